package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestBatchForms: MOD(t, max time, three singleton switches, max scaling
// cost, lower margin, upper margin) reaches the parameters as τ-Argus reads
// it (linked tables: the first four only), and τ-Argus's complaints keep
// its words.
func TestBatchForms(t *testing.T) {
	plugintest.CheckBatchForms(t, modular{}.Info(), []plugintest.BatchCase{
		{Args: []string{"5", "1", "0", "x", "2e4", "0,95", "1.05"}, Want: map[string]string{pMaxTime: "5", pSingleSingle: "1", pSingleMultiple: "0", pMinFreq: "0", pMaxScaledCost: "20000", pLowerMargin: "0.95", pUpperMargin: "1.05"}},
		{Args: []string{"1", "0", "1", "0"}, Linked: true, Want: map[string]string{pMaxTime: "1", pSingleSingle: "0", pSingleMultiple: "1", pMinFreq: "0"}},
		{Args: []string{"x"}, Msg: "Illegal value (x) for max time in MOD"},
		{Args: []string{"5", "1", "1", "1", "0"}, Msg: "Illegal Max Scaling Cost: 0"},
		{Args: []string{"5", "1", "1", "1", "-2.5"}, Msg: "Illegal Max Scaling Cost: -2.5"},
		{Args: []string{"5", "1", "1", "1", "x"}, Msg: `"x" is not numeric.`},
		{Args: []string{"5", "1", "1", "1", "2", "x"}, Msg: `"x" is not numeric.`},
		{Args: []string{"1", "0", "1", "0", "5"}, Linked: true, Msg: "too many arguments for MOD: it takes at most 5 (t, max time, singleton-singleton, singleton-multiple, min frequency (linked tables))"},
		{Args: []string{"5", "1", "0", "0", "2", "0.9", "1.1", "7"}, Msg: "too many arguments for MOD: it takes at most 8 (t, max time, singleton-singleton, singleton-multiple, min frequency, max scaling cost, lower margin, upper margin)"},
	})
}
