package csp

import (
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
)

// incumbent is the best protected pattern found so far, with the lower
// bound on the cost of every protected pattern: together they are the gap
// of the search. A protected incumbent exists from the start heuristic on.
type incumbent struct {
	// pattern is the incumbent's column pattern, nil before the first.
	pattern []bool
	// cost is its cost (the model's patternCost).
	cost float64
	// bound is the best lower bound.
	bound float64
}

// closed reports whether the gap is closed: within the relative slack of
// the incumbent's cost (plus numeric.ProvenAbsolute), or within the relative gap asked for
// (Options.Gap).
func (e *engine) closed() bool {
	if e.best.pattern == nil {
		return false
	}
	gap := e.best.cost - e.best.bound
	return e.proven() || (e.opts.Gap > 0 && gap <= e.opts.Gap*e.best.cost)
}

// proven reports whether the incumbent is proven optimal: the bound within
// the relative slack of its cost (plus numeric.ProvenAbsolute).
func (e *engine) proven() bool {
	return e.best.pattern != nil && e.best.cost-e.best.bound <= numeric.Slack(e.best.cost)+numeric.ProvenAbsolute
}

// setIncumbent stores the protected pattern y if it is cheaper than the
// incumbent (by more than the slack of its cost); it reports whether it
// did.
func (e *engine) setIncumbent(y []bool) bool {
	c := e.model.patternCost(y)
	if e.best.pattern != nil && c >= e.best.cost-numeric.Slack(c) {
		return false
	}
	if e.best.pattern != nil {
		e.stats.Improvements++
	}
	e.best.pattern = slices.Clone(y)
	e.best.cost = c
	return true
}
