package solver

import (
	"regexp"
	"strings"
	"testing"
)

func TestVersionOfLinkedLibrary(t *testing.T) {
	v := Version()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("Version() = %q, want MAJOR.MINOR.PATCH", v)
	}
	if err := checkVersion(); err != nil {
		t.Fatalf("the linked library fails its own check: %v", err)
	}
}

// TestWantVersionRefusesOtherLibrary checks the release builds' guard: a
// binary stamped for one HiGHS version refuses to create solvers with another.
func TestWantVersionRefusesOtherLibrary(t *testing.T) {
	tests := []struct {
		want    string
		wantErr bool
	}{
		{"", false},
		{Version(), false},
		{"0.0.1", true},
	}
	saved := wantVersion
	defer func() { wantVersion = saved }()
	for _, tc := range tests {
		wantVersion = tc.want
		s, err := New(nil, Options{})
		if s != nil {
			s.Close()
		}
		if (err != nil) != tc.wantErr {
			t.Errorf("wantVersion %q: New error = %v, want error %v", tc.want, err, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "made for 0.0.1") {
			t.Errorf("wantVersion %q: error %q does not name the expected version", tc.want, err)
		}
	}
}
