package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestBatchForms: OPT(t, max time) reaches the parameters as τ-Argus reads
// it, and τ-Argus's complaints keep its words.
func TestBatchForms(t *testing.T) {
	plugintest.CheckBatchForms(t, optimal{}.Info(), []plugintest.BatchCase{
		{Args: nil, Want: map[string]string{}},
		{Args: []string{"30"}, Want: map[string]string{pMaxTime: "30"}},
		{Args: []string{"x"}, Msg: "Illegal value (x) for max time in OPT"},
		{Args: []string{"30", "2"}, Msg: "too many arguments for OPT: it takes at most 2 (t, max time)"},
	})
}
