package relations

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestOf: a problem's own relations are kept; a table without relations
// gets its tables' relations.
func TestOf(t *testing.T) {
	p := &pluginsdk.Problem{
		Tables: []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{{Name: "a", Codes: []string{"T", "x", "y"}, Parent: []int32{-1, 0, 0}, Depth: []int32{0, 1, 1}}}}},
		Cells:  pluginsdk.Cells{Value: []float64{3, 1, 2}, Coords: []int32{0, 1, 2}},
	}
	r, err := Of(p)
	if err != nil || r.Len() != 1 {
		t.Fatalf("built: %d relations, %v; want 1", r.Len(), err)
	}
	p.Relations.Add([]int{1, 2}, []float64{1, -1}, -1)
	if r, err := Of(p); err != nil || r.Len() != 1 || r.Coef[1] != -1 {
		t.Errorf("carried: %+v, %v; want the problem's own", r, err)
	}
}
