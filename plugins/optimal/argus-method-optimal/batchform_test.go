package main

import (
	"maps"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestBatchForms: OPT(t, max time) reaches the parameters as τ-Argus reads
// it, and τ-Argus's complaints keep its words.
func TestBatchForms(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]string
		msg  string
	}{
		{nil, map[string]string{}, ""},
		{[]string{"30"}, map[string]string{pMaxTime: "30"}, ""},
		{[]string{"x"}, nil, "Illegal value (x) for max time in OPT"},
		{[]string{"30", "2"}, nil, "too many arguments for OPT: it takes at most 2 (t, max time)"},
	} {
		args := make([]pluginsdk.BatchArg, len(tc.args))
		for i, a := range tc.args {
			args[i].Text = a
		}
		got, err := pluginsdk.BatchParams(optimal{}.Info(), args, false)
		if tc.msg == "" && (err != nil || !maps.Equal(got, tc.want)) || tc.msg != "" && (err == nil || err.Error() != tc.msg) {
			t.Errorf("OPT%q: %v, %v; want %v, %q", tc.args, got, err, tc.want, tc.msg)
		}
	}
	if errs := pluginsdk.LintInfo(optimal{}.Info()); len(errs) > 0 {
		t.Error(errs)
	}
}
