package gh

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestBatchForms: GH(t, a priori percentage, model size, singleton) reaches
// the parameters as τ-Argus reads it, and τ-Argus's complaints keep its
// words.
func TestBatchForms(t *testing.T) {
	plugintest.CheckBatchForms(t, Method{}.Info(), []plugintest.BatchCase{
		{Args: []string{"50", "1", "0"}, Want: map[string]string{ParamApriori: "50", ParamModelSize: "1", ParamSingleton: "0"}},
		{Args: []string{"+5", "0", "true"}, Linked: true, Want: map[string]string{ParamApriori: "5", ParamModelSize: "0", ParamSingleton: "0"}},
		{Args: []string{"x"}, Msg: "Illegal value (x) for a priori percentage in GH"},
		{Args: []string{"1.5"}, Msg: "Illegal value (1.5) for a priori percentage in GH"},
		{Args: []string{"100", ""}, Msg: "Illegal value () for model size in GH"},
		{Args: []string{"100", "0", "1", "7"}, Msg: "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)"},
		{Args: []string{"100", "0", "1", "7"}, Linked: true, Msg: "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)"},
	})
}
