package subtable_test

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// Enumerate splits a hierarchical table into the non-hierarchical
// sub-tables HiTaS protects one by one: here Region (total, A with children
// A1 and A2, B) × Size (total, X, Y). Each sub-table lists, per dimension,
// its margin code first, then that code's children; level tuples come in
// increasing order of their sum, and (0, 0), the grand total alone, is left
// out.
func ExampleEnumerate() {
	region := pluginsdk.Dimension{Name: "Region",
		Codes:  []string{"T", "A", "A1", "A2", "B"},
		Parent: []int32{-1, 0, 1, 1, 0},
		Depth:  []int32{0, 1, 2, 2, 1}}
	size := pluginsdk.Dimension{Name: "Size",
		Codes:  []string{"T", "X", "Y"},
		Parent: []int32{-1, 0, 0},
		Depth:  []int32{0, 1, 1}}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Dims: []pluginsdk.Dimension{region, size}}}}
	for r := range region.Codes {
		for s := range size.Codes {
			p.Cells.Coords = append(p.Cells.Coords, int32(r), int32(s))
			p.Cells.Value = append(p.Cells.Value, 0)
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
		}
	}
	subs, err := subtable.Enumerate(context.Background(), p, 0, subtable.Options{Mode: subtable.ModeHiTaS})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range subs {
		var names [2][]string
		for d, codes := range s.Codes {
			for _, c := range codes {
				names[d] = append(names[d], p.Tables[0].Dims[d].Codes[c])
			}
		}
		fmt.Println("levels", s.Levels, "Region", names[0], "Size", names[1], "cells", len(s.Cells))
	}
	// Output:
	// levels [0 1] Region [T] Size [T X Y] cells 3
	// levels [1 0] Region [T A B] Size [T] cells 3
	// levels [1 1] Region [T A B] Size [T X Y] cells 9
	// levels [2 0] Region [A A1 A2] Size [T] cells 3
	// levels [2 1] Region [A A1 A2] Size [T X Y] cells 9
}
