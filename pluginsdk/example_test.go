package pluginsdk_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// corners is a toy suppression method for two-dimensional tables: for every
// primary in row r and column c it suppresses the cells (r, c'), (r', c) and
// (r', c') of the first other row r' and column c' (index 0 is the total).
// A real method chooses the cheapest such rectangle and checks protection
// levels; the host audits whatever it returns.
type corners struct{}

func (corners) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "CORNERS",
		Summary: "one rectangle of suppressions per primary (example)",
		Capabilities: pluginsdk.Capabilities{
			Output:        pluginsdk.OutputSuppression,
			MaxDimensions: 2,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional},
	}
}

func (corners) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	status := slices.Clone(p.Cells.Status)
	at := map[[2]int32]int{} // (row, column) → cell
	for i := range p.NumCells() {
		c := p.Coords(i)
		at[[2]int32{c[0], c[1]}] = i
	}
	other := func(x int32) int32 { // the first interior code other than x
		if x == 1 {
			return 2
		}
		return 1
	}
	for i, s := range p.Cells.Status {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !s.IsPrimary() {
			continue
		}
		r, c := p.Coords(i)[0], p.Coords(i)[1]
		for _, k := range [][2]int32{{r, other(c)}, {other(r), c}, {other(r), other(c)}} {
			if j, ok := at[k]; ok {
				if sec, ok := status[j].ToSecondary(); ok {
					status[j] = sec
				}
			}
		}
	}
	n, cost := pluginsdk.Secondaries(p, status)
	return &pluginsdk.Result{
		Status:  status,
		Outcome: pluginsdk.OutcomeFeasible,
		Stats:   pluginsdk.Stats{Secondaries: n, SuppressedCost: cost},
	}, nil
}

// A plugin binary's main package: Serve never returns. Build it as
// argus-method-<name> into a plugin directory and `argus plugins` lists it.
func ExampleServe() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:    "corners",
		Version: "0.1.0",
		Methods: []pluginsdk.Method{corners{}},
	})
}

// flat returns a flat dimension: the total "T" at index 0, then codes.
func flat(name string, codes ...string) pluginsdk.Dimension {
	d := pluginsdk.Dimension{Name: name, Codes: append([]string{"T"}, codes...)}
	for i := range d.Codes {
		d.Parent = append(d.Parent, int32(min(i, 1))-1) // -1 for the total, 0 (the total) for the others
		d.Depth = append(d.Depth, int32(min(i, 1)))
	}
	return d
}

// A Problem holds the cells column-wise in τ-Argus's cell order (the last
// dimension varies fastest); here a 2×2 table with its totals, one primary
// (A, X) with protection levels 5, then the pattern a method computes.
func ExampleProblem() {
	p := &pluginsdk.Problem{
		Tables: []pluginsdk.Table{{Name: "example", Dims: []pluginsdk.Dimension{
			flat("Region", "A", "B"), flat("Size", "X", "Y"),
		}}},
		Cells: pluginsdk.Cells{
			//       T×T  T×X  T×Y  A×T  A×X  A×Y  B×T  B×X  B×Y
			Value:  []float64{140, 50, 90, 70, 20, 50, 70, 30, 40},
			Coords: []int32{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2, 2, 0, 2, 1, 2, 2},
		},
	}
	p.Cells.Cost = p.Cells.Value // cost = value
	for i := range p.NumCells() {
		p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
		p.Cells.LowerPL = append(p.Cells.LowerPL, 0)
		p.Cells.UpperPL = append(p.Cells.UpperPL, 0)
		if i == 4 { // A×X
			p.Cells.Status[i] = cellstatus.UnsafeRule
			p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 5, 5
		}
	}
	if err := p.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	res, err := corners{}.Protect(context.Background(), &pluginsdk.Request{Method: "CORNERS", Problem: p})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range res.Status {
		if s.IsSuppressed() {
			c := p.Coords(i)
			fmt.Printf("%s×%s %s\n", p.Tables[0].Dims[0].Codes[c[0]], p.Tables[0].Dims[1].Codes[c[1]], s)
		}
	}
	fmt.Printf("%d secondaries, cost %g\n", res.Stats.Secondaries, res.Stats.SuppressedCost)
	// Output:
	// A×X Unsafe
	// A×Y Secondary
	// B×X Secondary
	// B×Y Secondary
	// 3 secondaries, cost 120
}
