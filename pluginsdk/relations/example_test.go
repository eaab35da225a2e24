package relations_test

import (
	"fmt"
	"strings"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// dim returns a dimension from codes and parent indices (-1 for the total).
func dim(name string, codes []string, parent []int32) pluginsdk.Dimension {
	return pluginsdk.Dimension{Name: name, Codes: codes, Parent: parent, Depth: make([]int32, len(codes))}
}

// Build writes the relations of a 2 × 3 table with its totals in τ-Argus's
// JJ order: first those of the first dimension (for every Size code, its
// Region total is the sum of the regions), then those of the second. Depths
// are recomputed from the parents.
func ExampleBuild() {
	region := dim("Region", []string{"T", "A", "B"}, []int32{-1, 0, 0})
	size := dim("Size", []string{"T", "X", "Y", "Z"}, []int32{-1, 0, 0, 0})
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{region, size}}}}
	for r := range 3 { // cells in τ-Argus order: the last dimension fastest
		for s := range 4 {
			p.Cells.Coords = append(p.Cells.Coords, int32(r), int32(s))
			p.Cells.Value = append(p.Cells.Value, 0)
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
		}
	}
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	name := func(cell int) string {
		c := p.Coords(cell)
		return region.Codes[c[0]] + "×" + size.Codes[c[1]]
	}
	for i := range rel.Len() {
		cells, coef := rel.Terms(i)
		var terms []string
		for k, c := range cells {
			terms = append(terms, fmt.Sprintf("%+g·%s", coef[k], name(c)))
		}
		fmt.Println(strings.Join(terms, " "), "= 0")
	}
	// Output:
	// -1·T×T +1·A×T +1·B×T = 0
	// -1·T×X +1·A×X +1·B×X = 0
	// -1·T×Y +1·A×Y +1·B×Y = 0
	// -1·T×Z +1·A×Z +1·B×Z = 0
	// -1·T×T +1·T×X +1·T×Y +1·T×Z = 0
	// -1·A×T +1·A×X +1·A×Y +1·A×Z = 0
	// -1·B×T +1·B×X +1·B×Y +1·B×Z = 0
}
