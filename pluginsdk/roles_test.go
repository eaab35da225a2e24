package pluginsdk

import (
	"testing"
)

// TestParseBool: exactly the documented spellings, whatever the case and
// surrounding spaces; anything else (Go's "t", "f", "maybe") is an error.
func TestParseBool(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    bool
		wantErr bool
	}{
		{"1", true, false}, {"true", true, false}, {"YES", true, false}, {" on ", true, false}, {"y", true, false},
		{"0", false, false}, {"False", false, false}, {"no", false, false}, {"OFF", false, false}, {"n", false, false},
		{"t", false, true}, {"f", false, true}, {"maybe", false, true}, {"", false, true}, {"2", false, true},
	} {
		got, err := ParseBool(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseBool(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
