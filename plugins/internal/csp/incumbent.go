package csp

import (
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
)

// incumbent is the best protected pattern found so far, with the lower
// bound on the cost of every protected pattern: together they are the gap
// of the search. A protected incumbent exists from the start heuristic on.
type incumbent struct {
	// m gives the patterns' costs.
	m *model
	// pattern is the incumbent's column pattern, nil before the first.
	pattern []bool
	// cost is its cost (the model's patternCost).
	cost float64
	// bound is the best lower bound.
	bound float64
	// improvements counts the incumbents after the first
	// (Stats.Improvements).
	improvements int
}

// closed reports whether the gap is closed: within the relative slack of
// the incumbent's cost (plus numeric.ProvenAbsolute), or within the relative
// gap asked for (Options.Gap).
func (b *incumbent) closed(gap float64) bool {
	if b.pattern == nil {
		return false
	}
	return b.proven() || (gap > 0 && b.cost-b.bound <= gap*b.cost)
}

// proven reports whether the incumbent is proven optimal: the bound within
// the relative slack of its cost (plus numeric.ProvenAbsolute).
func (b *incumbent) proven() bool {
	return b.pattern != nil && b.cost-b.bound <= numeric.Slack(b.cost)+numeric.ProvenAbsolute
}

// set stores the protected pattern y if it is cheaper than the incumbent
// (by more than the slack of its cost); it reports whether it did.
func (b *incumbent) set(y []bool) bool {
	c := b.m.patternCost(y)
	if b.pattern != nil && c >= b.cost-numeric.Slack(c) {
		return false
	}
	if b.pattern != nil {
		b.improvements++
	}
	b.pattern = slices.Clone(y)
	b.cost = c
	return true
}
