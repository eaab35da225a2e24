package audit_test

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Suppression audits a pattern on a 2 × 2 table with totals whose cell A×X
// (value 20) is primary with protection levels 5. Hiding the whole
// rectangle A×X, A×Y, B×X, B×Y leaves the attacker the interval [0, 50] for
// A×X, which covers [15, 25]; hiding A×X alone lets the attacker recompute
// it from its row.
func ExampleSuppression() {
	dim := func(name string, codes ...string) pluginsdk.Dimension {
		return pluginsdk.Dimension{Name: name, Codes: codes, Parent: []int32{-1, 0, 0}, Depth: []int32{0, 1, 1}}
	}
	p := &pluginsdk.Problem{
		Tables: []pluginsdk.Table{{Dims: []pluginsdk.Dimension{dim("Region", "T", "A", "B"), dim("Size", "T", "X", "Y")}}},
		Cells: pluginsdk.Cells{
			//                 T×T  T×X  T×Y  A×T  A×X  A×Y  B×T  B×X  B×Y
			Value:   []float64{140, 50, 90, 70, 20, 50, 70, 30, 40},
			LowerPL: []float64{0, 0, 0, 0, 5, 0, 0, 0, 0},
			UpperPL: []float64{0, 0, 0, 0, 5, 0, 0, 0, 0},
			Coords:  []int32{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2, 2, 0, 2, 1, 2, 2},
		},
	}
	safe, primary, secondary := cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.Secondary
	p.Cells.Status = []cellstatus.Status{safe, safe, safe, safe, primary, safe, safe, safe, safe}
	patterns := []struct {
		name   string
		status []cellstatus.Status
	}{
		{"rectangle", []cellstatus.Status{safe, safe, safe, safe, primary, secondary, safe, secondary, secondary}},
		{"primary alone", nil}, // nil: the problem's own statuses
	}
	for _, pat := range patterns {
		r, err := audit.Suppression(context.Background(), p, pat.status, audit.Options{Threads: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: A×X %s, attacker interval [%g, %g], %d under-protected\n",
			pat.name, r.Verdict[4], r.Lower[4], r.Upper[4], len(r.UnderProtected))
	}
	// Output:
	// rectangle: A×X protected, attacker interval [0, 50], 0 under-protected
	// primary alone: A×X exact disclosure, attacker interval [20, 20], 1 under-protected
}
