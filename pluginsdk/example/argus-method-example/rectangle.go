package main

import (
	"context"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// rectangle is the RECT method.
type rectangle struct{}

// Info describes RECT and its one parameter.
func (rectangle) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "RECT",
		Summary: "cheapest rectangle per primary in a two-dimensional table (SDK example)",
		Params: []pluginsdk.ParamSpec{{
			Name: "prefer_suppressed", Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 1,
			Help: "count already suppressed corners as free when choosing a rectangle",
		}},
		Capabilities: pluginsdk.Capabilities{
			Output:        pluginsdk.OutputSuppression,
			MaxDimensions: 2,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional},
	}
}

// Protect suppresses one rectangle per primary.
func (rectangle) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	var primaries []int
	for i, s := range status {
		if s.IsPrimary() {
			primaries = append(primaries, i)
		}
	}
	if len(primaries) == 0 {
		return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeFeasible}, nil
	}
	if len(p.Tables) != 1 || len(p.Tables[0].Dims) != 2 || len(p.Cells.Coords) == 0 {
		return nil, pluginsdk.Errorf("table.structure", "RECT protects one two-dimensional table; got %d tables", len(p.Tables))
	}
	rows, cols := len(p.Tables[0].Dims[0].Codes), len(p.Tables[0].Dims[1].Codes)
	at := make([]int, rows*cols) // (row, col) → cell, -1 when absent
	for i := range at {
		at[i] = -1
	}
	for i := range p.NumCells() {
		c := p.Coords(i)
		at[int(c[0])*cols+int(c[1])] = i
	}
	free := req.Params.Bool("prefer_suppressed")
	cost := func(cell int) float64 { // cost of adding cell to the pattern
		switch s := status[cell]; {
		case cell < 0:
			return math.Inf(1)
		case s.IsSuppressed():
			if free {
				return 0
			}
			return costOf(p, cell)
		case s.CanBeSecondary():
			return costOf(p, cell)
		}
		return math.Inf(1) // frozen
	}
	for n, cell := range primaries {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			req.Progress(pluginsdk.Progress{Phase: "rectangles", Fraction: float64(n) / float64(len(primaries))})
		}
		r, c := int(p.Coords(cell)[0]), int(p.Coords(cell)[1])
		best, bk, bl := math.Inf(1), -1, -1
		for k := range rows {
			for l := range cols {
				if k == r || l == c {
					continue
				}
				x := cost(at[r*cols+l]) + cost(at[k*cols+c]) + cost(at[k*cols+l])
				if x < best {
					best, bk, bl = x, k, l
				}
			}
		}
		if bk < 0 {
			continue // no rectangle: the host's audit reports the cell
		}
		for _, corner := range []int{at[r*cols+bl], at[bk*cols+c], at[bk*cols+bl]} {
			if sec, ok := status[corner].ToSecondary(); ok {
				status[corner] = sec
			}
		}
	}
	req.Progress(pluginsdk.Progress{Phase: "rectangles", Fraction: 1})
	return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeFeasible}, nil
}

func costOf(p *pluginsdk.Problem, cell int) float64 {
	if len(p.Cells.Cost) == 0 {
		return 1
	}
	return p.Cells.Cost[cell]
}
