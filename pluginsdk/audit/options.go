package audit

import (
	"fmt"
	"runtime"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
)

// BoundsMode selects the a-priori bounds the attacker knows.
type BoundsMode int

const (
	// BoundsAuto uses the problem's LowerBound/UpperBound columns where
	// present and τ-Argus's JJ bounds otherwise.
	BoundsAuto BoundsMode = iota
	// BoundsTauArgus uses τ-Argus's JJ bounds: [0, 1.5·max] over the
	// non-empty cells (1.5·min as lower bound when a value is negative),
	// widened for primaries to [a − LPL, a + UPL].
	BoundsTauArgus
	// BoundsNonNegative uses [0, +∞).
	BoundsNonNegative
)

// SingletonMode selects the attacker model for single-respondent cells.
type SingletonMode int

const (
	// SingletonsIgnore is the classical audit: one external attacker.
	SingletonsIgnore SingletonMode = iota
	// SingletonsCollude assumes all hidden single-respondent primaries
	// collude (the multi-attacker variant of the attacker problems).
	SingletonsCollude
)

// Targets selects the cells whose bounds are computed.
type Targets int

const (
	// TargetsDefault audits every hidden cell for Suppression and the
	// primaries for Intervals.
	TargetsDefault Targets = iota
	// TargetsPrimaries audits the hidden primaries only.
	TargetsPrimaries
	// TargetsAll audits every hidden cell.
	TargetsAll
)

// Mode selects what the audit computes.
type Mode int

const (
	// ModeBounds computes the exact attacker bounds of every audited cell,
	// as τ-Argus's audit does.
	ModeBounds Mode = iota
	// ModeVerdicts computes the verdicts only: a direction of a cell is not
	// optimised once feasible points prove its verdict (a primary's value
	// can be moved by its protection levels and the sliding level; a
	// secondary takes two values farther apart than the tolerance). The
	// bounds reported for such cells are those witnesses, so the reported
	// interval may be narrower than the attacker's; the verdicts, and both
	// bounds of every under-protected or recomputable cell, are exact.
	ModeVerdicts
)

// MidpointMode selects how Intervals judges a primary whose true value
// lies at the midpoint of its published interval (verdict.AtMidpoint).
type MidpointMode int

const (
	// MidpointDisclosure: such a primary is under-protected (reason
	// verdict.Midpoint), whatever the attacker derives: anyone taking the
	// interval's average finds its value.
	MidpointDisclosure MidpointMode = iota
	// MidpointAccepted: such primaries are counted and listed
	// (Report.Midpoint) but judged by their protection levels alone; for
	// intervals whose method was asked by name to keep symmetric levels.
	MidpointAccepted
)

// Options control an audit. The zero value is τ-Argus's audit on all cores.
type Options struct {
	// Threads is the number of parallel solvers; 0 means GOMAXPROCS.
	Threads int
	// Bounds selects the a-priori bounds.
	Bounds BoundsMode
	// Singletons selects the attacker model for single-respondent cells.
	Singletons SingletonMode
	// Targets selects the audited cells.
	Targets Targets
	// Cells, if non-nil, narrows the audited cells further to these (of
	// Suppression: the hidden ones among them that Targets selects); the
	// other hidden cells stay the attacker's unknowns, are not audited and
	// get VerdictNotAudited. The verdicts of the audited cells are those
	// of an audit of all targets: a caller that knows most primaries
	// protected re-audits the others alone.
	Cells []int
	// Mode selects exact bounds or verdicts only.
	Mode Mode
	// Midpoint selects how Intervals judges a primary at the midpoint of
	// its published interval.
	Midpoint MidpointMode
	// tolerance is the absolute tolerance of the comparisons (exactness,
	// protection levels, additivity of the published values); 0 means
	// verdict.Tolerance of the cell values.
	tolerance float64
	// LPTimeLimit bounds each LP solve; 0 means none. A cell whose LP hits
	// it gets NaN bounds and the verdict Unknown.
	LPTimeLimit time.Duration
	// TimeLimit bounds the audit, from its start; 0 means none. When it
	// runs out the audit stops solving and reports what it has proven: an
	// audited cell whose bounds are not both proven gets NaN bounds and the
	// verdict Unknown (a primary: unverified, never protected), and
	// Report.TimedOut is set. Unlike a cancelled context, which makes the
	// audit return an error, the time limit gives a report. Nothing starts
	// after it (no stage of local proofs, no set-up of the whole table's
	// attack), and it is every LP's deadline, which HiGHS checks in every
	// phase of a solve: the audit ends within moments of its limit.
	TimeLimit time.Duration
	// OnProgress, if set, receives progress reports (at most about ten a
	// second, and a last one at the end) from the auditing goroutines, one
	// call at a time: phase "audit", the fraction of the targets audited
	// (proven, while the local proofs run), the LPs solved so far as
	// Iterations, and the counts in words as Message.
	OnProgress func(pluginsdk.Progress)

	// LocalCells is the size of the first neighbourhoods of the local
	// proofs in verdict mode (local.go): 0 means the default, a negative
	// number no local proofs (every target on the whole table). Verdicts
	// are the same either way; only the time differs.
	LocalCells int
	// Scope is where verdict mode judges its targets: ScopeTable (the
	// default) or ScopeLocal.
	Scope Scope
	// Witnesses are the witnesses of the method that made the pattern
	// (pluginsdk.Witness), used in verdict mode: each is checked by
	// arithmetic as a hypercube certificate is (cube.go), and one that
	// fails is ignored (Counts.WitnessRejected); those the time limit
	// leaves unchecked are not used (Counts.WitnessUnchecked). The
	// checked ones are feasible tables, which prove the primaries whose
	// protection interval they span before any LP and spare the LPs of the
	// directions they show. Verdicts are the same with or without them.
	Witnesses []pluginsdk.Witness
	// OnWitness, if set, receives every feasible table the
	// audit verified (its local proofs' and LPs' points, the tables of its
	// hypercube certificates): the cells of the sub-problem, component or
	// certificate and their values there, every other cell at its true
	// value. Such a table, less the true values, is a witness
	// (pluginsdk.Witness) of each primary it moves, which a method may
	// return with its pattern; one that moves a colluding singleton
	// (SingletonsCollude) is a table of that singleton's own problems
	// only, a witness of it alone. It may be called from several
	// goroutines at once; cells and x must not be kept (copy them).
	OnWitness func(cells []int, x []float64)

	// noDifferencing and noReuse switch off the shortcuts, for tests.
	noDifferencing, noReuse bool
	// noCube switches off the hypercube certificates (cube.go), for tests.
	noCube bool
	// noCapped switches off the capped witness LPs (witness.go), for tests.
	noCapped bool
	// noNarrow switches off the failures proven on relaxations
	// (narrowed.go), for tests; keepOpen, for the test that must catch a
	// wrong relaxation, keeps the relations it should drop, each unknown
	// outside the region at its value (a stronger attacker, unsound).
	noNarrow, keepOpen bool
	// narrowWhole overrides narrowWhole (narrowed.go) when not 0 (a
	// negative one: every stage for every target), for tests.
	narrowWhole int
	// proofOnly: only protection is wanted (a local audit, local.go): a
	// large component's targets that its witnesses leave open get no LPs
	// of their own (VerdictUnknown), as their optima would serve only to
	// report failures.
	proofOnly bool
	// hugeCols overrides hugeColumns (engine.go) when positive, for tests.
	hugeCols int
	// aggregate is the number of targets of an aggregated LP tried before
	// each task's own LP (aggregate.go): 0 means aggregateTargets in exact
	// bounds mode and none in verdict mode, 1 or less none; for tests and
	// benchmarks.
	aggregate int
	// brokenAggregate frees the relations through an aggregated LP's
	// targets, and trustAggregate takes its solutions unchecked: the
	// wrong shortcut the tests must catch.
	brokenAggregate, trustAggregate bool
	// noCertify switches off the basis certificates (tableau.go), for
	// tests and benchmarks; wrongCertificate inverts their sign test, for
	// the test that must catch a wrong certificate.
	noCertify, wrongCertificate bool
	// onWitness, if set, receives every verified feasible point of the
	// base problems (cells, their values; local.go's certificates).
	onWitness func(cells []int, x []float64)
	// onOwn, if set, receives the verified optima of the colluding
	// singletons' own attacker problems (engine.go's task), which move
	// the singleton: tables of its problems only, never onWitness's.
	// Suppression sets it to OnWitness.
	onOwn func(cells []int, x []float64)
}

func (o *Options) hugeColumns() int {
	if o.hugeCols > 0 {
		return o.hugeCols
	}
	return hugeColumns
}

// aggregated is the number of targets of an aggregated LP (Options.aggregate)
// in exact bounds mode (bounds) or verdict mode.
func (o *Options) aggregated(bounds bool) int {
	switch {
	case o.aggregate != 0:
		return o.aggregate
	case bounds:
		return aggregateTargets
	}
	return 0
}

func (o *Options) workers() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// Scope selects where verdict mode judges its targets.
type Scope int

const (
	// ScopeTable proves targets locally first and judges the others on the
	// whole table: every target gets its verdict. The audit of anything
	// published.
	ScopeTable Scope = iota
	// ScopeLocal proves targets locally only: a target the local proofs
	// leave is not judged (Report.NotProven), however long the whole
	// table would take. For a method's repair loop, which may hide more
	// cells around such a target instead of waiting for its proof; never
	// for the audit of what is published. Which targets it proves does
	// not depend on Threads (only TimeLimit may cut its work).
	ScopeLocal
)

// progress is the report to OnProgress: done of total targets audited
// (proven, by the local proofs) after lps LPs.
func (o *Options) progress(local bool, done, total, lps int) pluginsdk.Progress {
	noun := "cells"
	if o.Targets == TargetsPrimaries {
		noun = "primaries"
	}
	f := -1.0
	if total > 0 {
		f = float64(done) / float64(total)
	}
	msg := fmt.Sprintf("%d of %d %s audited", done, total, noun)
	if local {
		msg = fmt.Sprintf("local audits: %d of %d %s proven", done, total, noun)
	}
	return pluginsdk.Progress{Phase: "audit", Fraction: f, Iterations: int64(lps), Message: msg}
}
