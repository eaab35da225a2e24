package rounded

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// sum is x1 + x2 = y with the values given.
func sum(a ...float64) *pluginsdk.Problem {
	p := &pluginsdk.Problem{}
	p.Cells.Value = a
	p.Cells.Status = make([]cellstatus.Status, len(a))
	p.Relations.Add([]int{0, 1, 2}, []float64{1, 1, -1}, 0)
	return p
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		a, r                       []float64
		base                       float64
		steps                      int
		notMult, out, nonAdd, jump int
		maxJump                    float64
	}{
		{"zero-restricted", []float64{3, 4, 7}, []float64{5, 5, 10}, 5, 0, 0, 0, 0, 0, 3},
		{"multiple kept", []float64{5, 2, 7}, []float64{5, 0, 5}, 5, 0, 0, 0, 0, 0, 2},
		{"multiple moved", []float64{5, 2, 7}, []float64{10, 0, 10}, 5, 0, 0, 1, 0, 1, 5},
		{"multiple moved, one step", []float64{5, 2, 7}, []float64{10, 0, 10}, 5, 1, 0, 0, 0, 1, 5},
		{"two multiples away", []float64{3, 4, 7}, []float64{10, 0, 10}, 5, 0, 0, 1, 0, 1, 7},
		{"below zero", []float64{3, 4, 7}, []float64{-5, 5, 0}, 5, 0, 0, 2, 0, 2, 8},
		{"not a multiple", []float64{3, 4, 7}, []float64{3, 5, 8}, 5, 0, 2, 0, 0, 0, 1},
		{"not additive", []float64{3, 4, 7}, []float64{5, 5, 5}, 5, 0, 0, 0, 1, 0, 2},
		{"decimals", []float64{2.5, 2.25, 4.75}, []float64{5, 0, 5}, 5, 0, 0, 0, 0, 0, 2.5},
		{"negative", []float64{-3, 4, 1}, []float64{-5, 5, 0}, 5, 0, 0, 0, 0, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check(sum(tc.a...), tc.r, tc.base, tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			if rep.NotMultiple != tc.notMult || rep.OutOfRange != tc.out || rep.NonAdditive != tc.nonAdd ||
				rep.Jumps != tc.jump || rep.MaxJump != tc.maxJump {
				t.Errorf("got not multiple %d, out of range %d, non-additive %d, jumps %d, max jump %g; want %d %d %d %d %g",
					rep.NotMultiple, rep.OutOfRange, rep.NonAdditive, rep.Jumps, rep.MaxJump, tc.notMult, tc.out, tc.nonAdd, tc.jump, tc.maxJump)
			}
			if rep.OK() != (tc.notMult+tc.out+tc.nonAdd == 0) || (rep.Defects() == "") != rep.OK() {
				t.Errorf("OK %v, defects %q", rep.OK(), rep.Defects())
			}
		})
	}
	if _, err := Check(sum(1, 2, 3), []float64{0, 0}, 5, 0); err == nil {
		t.Error("two values for three cells accepted")
	}
	if _, err := Check(sum(1, 2, 3), []float64{0, 0, 0}, 0, 0); err == nil {
		t.Error("base 0 accepted")
	}
}
