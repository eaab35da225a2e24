package weights

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

func TestOf(t *testing.T) {
	p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{400, -0.5}, Cost: []float64{7, 3}}}
	for _, tc := range []struct {
		k    Kind
		want [2]float64
	}{
		{Cost, [2]float64{7, 3}},
		{Unit, [2]float64{1, 1}},
		{Inverse, [2]float64{1.0 / 400, 1}},
		{SqrtInverse, [2]float64{1.0 / 20, 1}},
	} {
		for i, w := range tc.want {
			if got := Of(p, i, tc.k); got != w {
				t.Errorf("%v cell %d: %v, want %v", tc.k, i, got, w)
			}
		}
		if k, ok := Parse(tc.k.String()); !ok || k != tc.k {
			t.Errorf("Parse(%q) = %v, %v", tc.k.String(), k, ok)
		}
	}
	p.Cells.Cost = nil
	if got := Of(p, 0, Cost); got != 1 {
		t.Errorf("cost without costs: %v, want 1", got)
	}
	if _, ok := Parse("square"); ok {
		t.Error("Parse accepts an unknown name")
	}
}
