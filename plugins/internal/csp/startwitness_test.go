package csp

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestStartWitnesses: deviations given with the start (Options.
// StartWitnesses) prove the requirements they meet, so that checking the
// start needs no attacker LP, and become the lean witnesses the clean-up
// reuses; a deviation that breaks a relation proves nothing.
func TestStartWitnesses(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5}, Seed: 3, PrimaryFraction: 0.2})
	in := FromProblem(p, p.Relations)
	start := make([]bool, in.NumCells())
	for i, k := range in.Kind {
		start[i] = k == Free
	}
	// The witnesses: the attacker LPs' optima under the start, as cell
	// deviations.
	devs := attackerDeviations(t, in, start, func(_ *engine, tk task, d int) bool { return tk.req[d] != 0 })
	for _, c := range []struct {
		name   string
		broken bool
	}{{"given", false}, {"broken", true}} {
		t.Run(c.name, func(t *testing.T) {
			ds := devs
			if c.broken {
				ds = make([]Deviation, len(devs))
				for k, dv := range devs {
					ds[k] = Deviation{Cells: dv.Cells, Dev: append([]float64(nil), dv.Dev...)}
					ds[k].Dev[0] *= 2 // moves one cell too far for its relations
				}
			}
			e := newStartEngine(t, in, &Options{Start: start, Threads: 1, StartWitnesses: ds})
			y := make([]bool, e.model.n)
			startPattern(e.model, e.opts.Start, y)
			e.stats.StartWitnessed += e.sep.useStartWitnesses(y, e.opts.StartWitnesses)
			bad, err := e.sep.verify(context.Background(), y)
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) > 0 {
				t.Fatalf("%d tasks unmet under every suppressible cell", len(bad))
			}
			lps, lean := e.pool[0].att.solves, 0
			for t := range e.reqs.tasks {
				for d := range 2 {
					if e.reqs.lean[t][d].set {
						lean++
					}
				}
			}
			t.Logf("%d deviations: %d requirements proven, %d lean witnesses, %d attacker LPs", len(ds), e.stats.StartWitnessed, lean, lps)
			switch {
			case !c.broken && (lps != 0 || e.stats.StartWitnessed != len(devs) || lean != len(devs)):
				t.Errorf("%d attacker LPs, %d requirements proven, %d lean witnesses; want 0, %d, %d", lps, e.stats.StartWitnessed, lean, len(devs), len(devs))
			case c.broken && (lps == 0 || e.stats.StartWitnessed != 0):
				t.Errorf("broken deviations: %d attacker LPs, %d requirements proven; want LPs, none proven", lps, e.stats.StartWitnessed)
			}
		})
	}
}

// newStartEngine prepares an engine over in as Solve does, up to the
// search: presolve, requirements, workers.
func newStartEngine(t *testing.T, in *Instance, o *Options) *engine {
	t.Helper()
	e := newEngine(in, o)
	e.reqs.build(e.model)
	pool, err := newWorkerPool(e.model, e.opts, len(e.reqs.tasks))
	e.setPool(pool)
	t.Cleanup(pool.close)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// attackerDeviations returns, as cell deviations, the attacker LPs'
// optima under the start pattern for every task and direction want
// selects.
func attackerDeviations(t *testing.T, in *Instance, start []bool, want func(e *engine, tk task, d int) bool) []Deviation {
	t.Helper()
	e := newStartEngine(t, in, &Options{Start: start, Threads: 1})
	y := make([]bool, e.model.n)
	startPattern(e.model, e.opts.Start, y)
	yf := e.model.toFloat(y)
	var devs []Deviation
	for _, tk := range e.reqs.tasks {
		for d := range 2 {
			if !want(e, tk, d) {
				continue
			}
			r, err := e.chk.attack(context.Background(), e.pool[0], yf, tk.col, d)
			if err != nil || !r.ok {
				t.Fatalf("attacker LP: %v", err)
			}
			var dv Deviation
			for i, j := range e.model.cellCol {
				if j >= 0 && r.x[j] != 0 {
					dv.Cells, dv.Dev = append(dv.Cells, int32(i)), append(dv.Dev, r.x[j]*e.model.cellRatio[i])
				}
			}
			devs = append(devs, dv)
		}
	}
	return devs
}
