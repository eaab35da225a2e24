// Package verdict holds the audit's judgement of the sensitive cells of a
// protected table, and the one place where it is decided: whether a
// sensitive (primary) cell is protected, under-protected or unverified, and
// why. The audit (package pluginsdk/audit) decides with the functions of this
// package and sends the verdicts over the plugin contract; the host reads
// them and never decides again. The package imports only the standard
// library, so the host can use it without linking the audit's solver.
//
// Three kinds of publication are judged:
//
//   - a suppression pattern or published intervals, through the interval an
//     attacker derives for the cell ([Interval]): protected when it contains
//     the protection interval [v − LPL, v + UPL] and is at least the sliding
//     level wide; a point is an exact disclosure;
//   - published intervals themselves ([Covers]): interval protection
//     publishes for every sensitive cell an interval that must contain its
//     protection interval;
//   - adjusted values ([Deviation]): controlled tabular adjustment protects a
//     sensitive cell by publishing a value at least LPL below or UPL above the
//     true value.
//
// Every comparison allows the audit tolerance ([Tolerance]).
package verdict

import (
	"math"

	"github.com/sdcengine/argus/internal/numeric"
)

// Kind is the audit's judgement of one cell.
type Kind uint8

const (
	// NotJudged marks a cell the audit does not judge: not a sensitive
	// cell, or a result without verdicts.
	NotJudged Kind = iota
	// Protected marks a sensitive cell whose protection levels are met.
	Protected
	// UnderProtected marks a sensitive cell whose protection levels are not
	// met; the Reason says how.
	UnderProtected
	// Unverified marks a sensitive cell whose protection could not be
	// established (an attacker problem had no result). It is never
	// published as if safe: it counts as a failure.
	Unverified
)

var kindNames = [...]string{"not judged", "protected", "under-protected", "unverified"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(?)"
}

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return int(k) < len(kindNames) }

// Failed reports whether the cell fails its audit: under-protected or
// unverified.
func (k Kind) Failed() bool { return k == UnderProtected || k == Unverified }

// Reason says why a cell got its verdict.
type Reason uint8

const (
	// ReasonNone: protected, or not judged.
	ReasonNone Reason = iota
	// Exact: the attacker computes the cell's value exactly (its interval
	// is a point).
	Exact
	// Partial: the attacker's interval is not a point but misses the lower
	// or the upper protection level, or is narrower than the sliding level.
	Partial
	// Unsolved: an attacker problem of the cell gave no result (solver
	// failure, time limit, inconsistent data).
	Unsolved
	// TooClose: the adjusted value published for the cell lies within its
	// protection interval (closer to the true value than a protection
	// level).
	TooClose
	// Uncovered: the interval published for the cell does not contain its
	// protection interval, or is narrower than its sliding level.
	Uncovered
	// Midpoint: the cell's true value lies at the midpoint of the interval
	// published for it ([AtMidpoint]): anyone who takes the interval's
	// average finds the value, whatever the attacker derives.
	Midpoint
)

var reasonNames = [...]string{"", "exact disclosure", "partial disclosure", "attacker problem unsolved",
	"adjusted value within the protection levels", "published interval does not cover the protection levels",
	"true value at the published interval's midpoint"}

// String returns the reason's description ("" for ReasonNone).
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "reason(?)"
}

// Valid reports whether r is one of the reasons above.
func (r Reason) Valid() bool { return int(r) < len(reasonNames) }

// Verdict is the audit's judgement of one cell.
type Verdict struct {
	Kind   Kind
	Reason Reason
}

// Failed reports whether the cell fails its audit.
func (v Verdict) Failed() bool { return v.Kind.Failed() }

// String returns "kind" or "kind: reason".
func (v Verdict) String() string {
	if v.Reason == ReasonNone {
		return v.Kind.String()
	}
	return v.Kind.String() + ": " + v.Reason.String()
}

// Levels are the protection levels of a sensitive cell: the attacker must
// not be able to bring its value closer than Lower from below or Upper from
// above, nor confine it to an interval narrower than Sliding (0: none).
type Levels struct {
	Lower, Upper, Sliding float64
}

// Tolerance is the absolute tolerance with which the audit compares
// intervals and values with protection levels, for a table with these
// values: 10⁻⁹ (numeric.SlackFactor) of the largest |value| (at least 1)
// plus 10⁻⁷ (numeric.AuditLPAccuracy) for the accuracy of its LPs. It does
// not depend on the decimals a table is written with.
func Tolerance(values []float64) float64 {
	scale := 1.0
	for _, v := range values {
		scale = math.Max(scale, math.Abs(v))
	}
	return numeric.SlackFactor*scale + numeric.AuditLPAccuracy
}

// Interval judges a sensitive cell with true value v and levels l from the
// interval [lo, hi] an attacker derives for it: unverified when an end is
// NaN (no result), an exact disclosure when the interval is a point (width
// within tol), protected when it contains [v − l.Lower, v + l.Upper] and is
// at least l.Sliding wide (each within tol), else a partial disclosure. A
// cell is never protected by zero levels alone: an exactly disclosed cell
// fails whatever its levels.
func Interval(v float64, l Levels, lo, hi, tol float64) Verdict {
	return judgeInterval(v, l, lo, hi, tol, Partial)
}

// Covers judges the interval [lo, hi] published for a sensitive cell
// (interval protection) before any attack: protected when it contains the
// protection interval and is at least the sliding level wide, otherwise
// under-protected (Uncovered; Exact when the cell is published as a point).
// A NaN end is Unverified. What the attacker derives from all published
// intervals together is judged with [Interval].
func Covers(v float64, l Levels, lo, hi, tol float64) Verdict {
	return judgeInterval(v, l, lo, hi, tol, Uncovered)
}

// judgeInterval is [Interval] and [Covers]: short is the reason given to
// an interval that is neither a point nor wide enough.
func judgeInterval(v float64, l Levels, lo, hi, tol float64, short Reason) Verdict {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return Verdict{Unverified, Unsolved}
	case hi-lo <= tol:
		return Verdict{UnderProtected, Exact}
	case lo <= v-l.Lower+tol && hi >= v+l.Upper-tol && (l.Sliding <= 0 || hi-lo >= l.Sliding-tol):
		return Verdict{Kind: Protected}
	}
	return Verdict{UnderProtected, short}
}

// Step is the table's last decimal, 10^−decimals (1 for decimals ≤ 0): the
// published values of a table written with that many decimals lie on
// multiples of it.
func Step(decimals int) float64 {
	return math.Pow(10, -float64(max(decimals, 0)))
}

// AtMidpoint reports whether the true value v of a cell published as the
// proper interval [lo, hi] (wider than tol) lies at its midpoint, within
// step (the table's last decimal, [Step]) plus tol: the published ends are
// rounded to the table's decimals, so a value within one last decimal of
// the midpoint is what anyone taking the interval's average finds.
func AtMidpoint(v, lo, hi, step, tol float64) bool {
	return hi-lo > tol && math.Abs(v-(lo+hi)/2) <= step+tol
}

// Deviation judges a sensitive cell with true value v published at the
// adjusted value a (controlled tabular adjustment): protected when a lies at
// least l.Lower below or l.Upper above v (within tol), otherwise
// under-protected (TooClose). A NaN adjusted value is Unverified.
func Deviation(v, a float64, l Levels, tol float64) Verdict {
	if math.IsNaN(a) {
		return Verdict{Unverified, Unsolved}
	}
	if d := a - v; d <= -l.Lower+tol || d >= l.Upper-tol {
		return Verdict{Kind: Protected}
	}
	return Verdict{UnderProtected, TooClose}
}

// Summary counts the verdicts of a table.
type Summary struct {
	// Sensitive counts the judged cells.
	Sensitive int
	// Protected, UnderProtected and Unverified count them by kind.
	Protected, UnderProtected, Unverified int
}

// Summarize counts vs.
func Summarize(vs []Verdict) Summary {
	var s Summary
	for _, v := range vs {
		switch v.Kind {
		case Protected:
			s.Protected++
		case UnderProtected:
			s.UnderProtected++
		case Unverified:
			s.Unverified++
		default:
			continue
		}
		s.Sensitive++
	}
	return s
}

// Failed is the number of judged cells that fail: under-protected or
// unverified.
func (s Summary) Failed() int { return s.UnderProtected + s.Unverified }
