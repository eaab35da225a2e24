package main

import (
	"maps"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestBatchForms: MOD(t, max time, three singleton switches, max scaling
// cost, lower margin, upper margin) reaches the parameters as τ-Argus reads
// it (linked tables: the first four only), and τ-Argus's complaints keep
// its words.
func TestBatchForms(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		linked bool
		want   map[string]string
		msg    string
	}{
		{[]string{"5", "1", "0", "x", "2e4", "0,95", "1.05"}, false, map[string]string{pMaxTime: "5", pSingleSingle: "1",
			pSingleMultiple: "0", pMinFreq: "0", pMaxScaledCost: "20000", pLowerMargin: "0.95", pUpperMargin: "1.05"}, ""},
		{[]string{"1", "0", "1", "0"}, true, map[string]string{pMaxTime: "1", pSingleSingle: "0", pSingleMultiple: "1", pMinFreq: "0"}, ""},
		{[]string{"x"}, false, nil, "Illegal value (x) for max time in MOD"},
		{[]string{"5", "1", "1", "1", "0"}, false, nil, "Illegal Max Scaling Cost: 0"},
		{[]string{"5", "1", "1", "1", "-2.5"}, false, nil, "Illegal Max Scaling Cost: -2.5"},
		{[]string{"5", "1", "1", "1", "x"}, false, nil, `"x" is not numeric.`},
		{[]string{"5", "1", "1", "1", "2", "x"}, false, nil, `"x" is not numeric.`},
		{[]string{"1", "0", "1", "0", "5"}, true, nil,
			"too many arguments for MOD: it takes at most 5 (t, max time, singleton-singleton, singleton-multiple, min frequency (linked tables))"},
		{[]string{"5", "1", "0", "0", "2", "0.9", "1.1", "7"}, false, nil,
			"too many arguments for MOD: it takes at most 8 (t, max time, singleton-singleton, singleton-multiple, min frequency, max scaling cost, lower margin, upper margin)"},
	} {
		args := make([]pluginsdk.BatchArg, len(tc.args))
		for i, a := range tc.args {
			args[i].Text = a
		}
		got, err := pluginsdk.BatchParams(modular{}.Info(), args, tc.linked)
		if tc.msg == "" && (err != nil || !maps.Equal(got, tc.want)) || tc.msg != "" && (err == nil || err.Error() != tc.msg) {
			t.Errorf("MOD%q: %v, %v; want %v, %q", tc.args, got, err, tc.want, tc.msg)
		}
	}
	if errs := pluginsdk.LintInfo(modular{}.Info()); len(errs) > 0 {
		t.Error(errs)
	}
}
