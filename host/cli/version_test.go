package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintVersionNamesStamps(t *testing.T) {
	savedC, savedH := Commit, HiGHSVersion
	defer func() { Commit, HiGHSVersion = savedC, savedH }()
	tests := []struct {
		commit, highs string
		want          []string
	}{
		{"abc123", "1.10.0", []string{"argus " + Version, "commit abc123\n", "HiGHS 1.10.0 (linked into the method plugins)"}},
		{"", "", []string{"argus " + Version, "HiGHS version not stamped"}},
	}
	for _, tc := range tests {
		Commit, HiGHSVersion = tc.commit, tc.highs
		var b bytes.Buffer
		printVersion(&b)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("stamps %q/%q: output %q lacks %q", tc.commit, tc.highs, b.String(), w)
			}
		}
	}
}
