package gh

import (
	"errors"
	"maps"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestBatchForms: GH(t, a priori percentage, model size, singleton) reaches
// the parameters as τ-Argus reads it, and τ-Argus's complaints keep its
// words.
func TestBatchForms(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		linked bool
		want   map[string]string
		msg    string
	}{
		{[]string{"50", "1", "0"}, false, map[string]string{ParamApriori: "50", ParamModelSize: "1", ParamSingleton: "0"}, ""},
		{[]string{"+5", "0", "true"}, true, map[string]string{ParamApriori: "5", ParamModelSize: "0", ParamSingleton: "0"}, ""},
		{[]string{"x"}, false, nil, "Illegal value (x) for a priori percentage in GH"},
		{[]string{"1.5"}, false, nil, "Illegal value (1.5) for a priori percentage in GH"},
		{[]string{"100", ""}, false, nil, "Illegal value () for model size in GH"},
		{[]string{"100", "0", "1", "7"}, false, nil, "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)"},
		{[]string{"100", "0", "1", "7"}, true, nil, "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)"},
	} {
		args := make([]pluginsdk.BatchArg, len(tc.args))
		for i, a := range tc.args {
			args[i].Text = a
		}
		got, err := pluginsdk.BatchParams(Method{}.Info(), args, tc.linked)
		if tc.msg == "" && (err != nil || !maps.Equal(got, tc.want)) || tc.msg != "" && (err == nil || err.Error() != tc.msg) {
			t.Errorf("GH%q: %v, %v; want %v, %q", tc.args, got, err, tc.want, tc.msg)
		}
		var be *pluginsdk.BatchArgError
		if tc.msg != "" && !errors.As(err, &be) {
			t.Errorf("GH%q: error %T", tc.args, err)
		}
	}
	if errs := pluginsdk.LintInfo(Method{}.Info()); len(errs) > 0 {
		t.Error(errs)
	}
}
