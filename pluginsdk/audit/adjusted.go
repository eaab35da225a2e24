package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Center selects the values around which ECTA's published perturbation
// bounds are placed.
type Center int

const (
	// CenterPublished centres the attacker's intervals on the published
	// (adjusted) values: what an attacker who knows α and β can compute.
	CenterPublished Center = iota
	// CenterOriginal centres them on the original values, as Hernández García
	// and Salazar González (2012, "Exploratory report on the future of
	// SDC-software tools in general and the ECTA method in more details" (Data
	// without Boundaries D11.1 Part A)) §23 writes the attacker problems.
	CenterOriginal
)

// ECTA describes the perturbation bounds published with an ECTA table
// (Hernández García and Salazar González 2012, §17–23): sensitive cells deviate
// by at most Alpha, the others by at most Beta, relative to the centre value.
type ECTA struct {
	// Alpha and Beta are the relative perturbation bounds of the primaries
	// and of the other cells.
	Alpha, Beta float64
	// Center selects the values the bounds are relative to.
	Center Center
}

// AdjustedOptions control Adjusted.
type AdjustedOptions struct {
	// Options are used for the bounds, the tolerance of the protection
	// comparisons and, with ECTA, the attacker problems.
	Options
	// notAdditive declares a method that does not keep the table additive
	// (the cell key method perturbs cells independently): the residuals
	// are still measured (MaxResidual, NonAdditive) but are not a defect
	// (Safe ignores them).
	notAdditive bool
	// ECTA, if set, also runs the attacker problems of the published
	// perturbation bounds (Report.Attack).
	ECTA *ECTA
}

// sensitiveCell is the check of one sensitive (primary) cell of an
// adjusted table.
type sensitiveCell struct {
	// Cell is the cell id.
	Cell int
	// Original and Adjusted are the true and the published value.
	Original, Adjusted float64
	// Deviation is Adjusted − Original.
	Deviation float64
	// LowerPL and UpperPL are the protection levels.
	LowerPL, UpperPL float64
	// Verdict is protected when Deviation ≤ −LowerPL or Deviation ≥
	// UpperPL (within the tolerance; verdict.Deviation), under-protected
	// (verdict.TooClose) otherwise; with ECTA it is the attacker's verdict.
	Verdict verdict.Verdict
}

// Residual is a relation that the adjusted values violate.
type Residual struct {
	// Relation is the relation index.
	Relation int
	// Value is Σ coef·x − rhs.
	Value float64
}

// AdjustedCounts summarise an adjusted-table check.
type AdjustedCounts struct {
	// NonAdditive counts relations violated beyond the tolerance.
	NonAdditive int
	// OutOfBounds counts cells outside their a-priori bounds.
	OutOfBounds int
	// FrozenChanged counts protected (10) or empty (14) cells that changed.
	FrozenChanged int
	// Changed counts cells whose value changed.
	Changed int
	// Sensitive and UnderProtected count the primaries and the
	// under-protected ones.
	Sensitive, UnderProtected int
	// protected counts the protected primaries.
	protected int
}

// AdjustedReport is the result of Adjusted.
type AdjustedReport struct {
	// Verdicts is the protection verdict per cell (NotJudged for the cells
	// that are not primaries): the deviation's verdict or, with ECTA, the
	// attacker's (NotJudged for a primary outside Options.Cells).
	Verdicts []verdict.Verdict
	// Deviation is adjusted − original per cell.
	Deviation []float64
	// sensitive holds the check of every primary, by cell id.
	sensitive []sensitiveCell
	// underProtected lists the primaries whose deviation does not reach a
	// protection level.
	underProtected []sensitiveCell
	// NonAdditive lists the violated relations.
	NonAdditive []Residual
	// outOfBounds lists the cells outside their a-priori bounds.
	outOfBounds []int
	// frozenChanged lists the protected or empty cells that changed.
	frozenChanged []int
	// MaxResidual is the largest |Σ coef·x − rhs| over all relations.
	MaxResidual float64
	// L1 is Σ |deviation|.
	L1 float64
	// weightedL1 is Σ cost·|deviation| (0 without a cost column).
	weightedL1 float64
	// MaxRelSensitive and MaxRelOther are the largest relative deviations
	// |deviation| / |original| of the primaries and of the other cells
	// (cells with original 0 left out): ECTA's realised α and β.
	MaxRelSensitive, MaxRelOther float64
	// Counts summarise the check.
	Counts AdjustedCounts
	// Attack is the attacker audit of the ECTA bounds, when requested.
	Attack *Report
	// Diagnostics report the table's defects (codes audit.nonadditive,
	// audit.out_of_bounds, audit.frozen_changed), one per kind, naming the
	// cells or relations; the ECTA attack's own diagnostics follow.
	Diagnostics []pluginsdk.Diagnostic
	// Time is the wall-clock duration.
	Time time.Duration

	notAdditiveOK bool
}

// Safe reports whether the adjusted table may be published: every
// primary protected, no frozen cell changed, every cell within its a-priori
// bounds and, unless the method declared otherwise (notAdditive), every
// relation satisfied within the tolerance.
func (r *AdjustedReport) Safe() bool {
	if verdict.Summarize(r.Verdicts).Failed() > 0 || len(r.frozenChanged) > 0 || len(r.outOfBounds) > 0 {
		return false
	}
	return r.notAdditiveOK || len(r.NonAdditive) == 0
}

// Adjusted checks an adjusted table (CTA, ECTA): adjusted[i] is the value
// published for cell i. It checks additivity within the tolerance, the
// a-priori bounds, that frozen cells (protected, empty) kept their values,
// and for every primary the distance of the published value from the
// original against its protection levels: CTA protects a primary by
// moving it at least LowerPL down or UpperPL up. With opts.ECTA the
// primaries are judged instead by the attacker problems of the published
// perturbation bounds (ECTA's protection: the attacker's interval covers
// the protection interval, however close the published value lies).
func Adjusted(ctx context.Context, p *pluginsdk.Problem, adjusted []float64, opts AdjustedOptions) (*AdjustedReport, error) {
	start := time.Now()
	in, err := prepare(p, nil, opts.Options)
	if err != nil {
		return nil, err
	}
	n := p.NumCells()
	if len(adjusted) != n {
		return nil, fmt.Errorf("audit: %w: %d adjusted values for %d cells", errInput, len(adjusted), n)
	}
	for i, v := range adjusted {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("audit: %w: adjusted value %v of cell %d", errInput, v, i)
		}
	}
	// The largest |adjusted − original| that counts as unchanged:
	// τ-Argus's [numeric.AdjustedChange].
	changeTol := numeric.AdjustedChange
	r := &AdjustedReport{Deviation: make([]float64, n), Verdicts: make([]verdict.Verdict, n), notAdditiveOK: opts.notAdditive}
	ct := &r.Counts
	orig := p.Cells.Value
	for i := range n {
		d := adjusted[i] - orig[i]
		r.Deviation[i] = d
		ad := math.Abs(d)
		if ad > changeTol {
			ct.Changed++
		}
		r.L1 += ad
		if len(p.Cells.Cost) == n {
			r.weightedL1 += p.Cells.Cost[i] * ad
		}
		if orig[i] != 0 {
			rel := ad / math.Abs(orig[i])
			if in.status[i].IsPrimary() {
				r.MaxRelSensitive = math.Max(r.MaxRelSensitive, rel)
			} else {
				r.MaxRelOther = math.Max(r.MaxRelOther, rel)
			}
		}
		if adjusted[i] < in.lo[i]-in.tol || adjusted[i] > in.hi[i]+in.tol {
			r.outOfBounds = append(r.outOfBounds, i)
		}
		if (in.status[i] == cellstatus.Protected || in.status[i] == cellstatus.Empty) && ad > changeTol {
			r.frozenChanged = append(r.frozenChanged, i)
		}
		if in.status[i].IsPrimary() {
			sc := sensitiveCell{Cell: i, Original: orig[i], Adjusted: adjusted[i], Deviation: d,
				LowerPL: in.lpl[i], UpperPL: in.upl[i], Verdict: verdict.Deviation(orig[i], adjusted[i], in.levels(i), in.tol)}
			r.Verdicts[i] = sc.Verdict
			r.sensitive = append(r.sensitive, sc)
			ct.Sensitive++
			if !sc.Verdict.Failed() {
				ct.protected++
			} else {
				ct.UnderProtected++
				r.underProtected = append(r.underProtected, sc)
			}
		}
	}
	rel := in.rel
	for q := range rel.Len() {
		if q%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("audit: %w", err)
			}
		}
		cells, coef := rel.Terms(q)
		s, mag := -rel.Rhs(q), math.Abs(rel.Rhs(q))
		for k, c := range cells {
			t := coef[k] * adjusted[c]
			s += t
			mag += math.Abs(t)
		}
		// The largest accepted |Σ coef·x − rhs| of a relation: τ-Argus's
		// [numeric.AdjustedChange] plus the relative slack of
		// m = Σ |coef·x| + |rhs| over the relation.
		tol := numeric.AdjustedChange + numeric.Slack(mag)
		r.MaxResidual = math.Max(r.MaxResidual, math.Abs(s))
		if math.Abs(s) > tol {
			r.NonAdditive = append(r.NonAdditive, Residual{Relation: q, Value: s})
		}
	}
	ct.NonAdditive, ct.OutOfBounds, ct.FrozenChanged = len(r.NonAdditive), len(r.outOfBounds), len(r.frozenChanged)
	if opts.ECTA != nil {
		lo, hi, err := ECTAIntervals(p, adjusted, *opts.ECTA)
		if err != nil {
			return nil, err
		}
		// ECTA's bounds are centred on the published value by
		// construction: their midpoint is judged by ECTA's own rules (the
		// published value's distance), not as interval protection's.
		ao := opts.Options
		ao.Midpoint = MidpointAccepted
		if r.Attack, err = Intervals(ctx, p, lo, hi, ao); err != nil {
			return nil, err
		}
		// ECTA protects by the published bounds, not by the distance of
		// the published value (§15 of the paper): a primary's verdict is
		// the attacker's, whatever its deviation.
		for i, v := range r.Attack.Verdicts {
			if in.status[i].IsPrimary() {
				r.Verdicts[i] = v
			}
		}
		ct.protected, ct.UnderProtected, r.underProtected = 0, 0, nil
		for k := range r.sensitive {
			sc := &r.sensitive[k]
			sc.Verdict = r.Verdicts[sc.Cell]
			if sc.Verdict.Failed() {
				ct.UnderProtected++
				r.underProtected = append(r.underProtected, *sc)
			} else {
				ct.protected++
			}
		}
	}
	r.Diagnostics = r.defects()
	if r.Attack != nil {
		r.Diagnostics = append(r.Diagnostics, r.Attack.Diagnostics...)
	}
	r.Time = time.Since(start)
	return r, nil
}

// maxNamed is the most cells or relations a defect diagnostic names.
const maxNamed = 100

// defects returns a diagnostic per kind of table defect found.
func (r *AdjustedReport) defects() []pluginsdk.Diagnostic {
	var ds []pluginsdk.Diagnostic
	if k := len(r.NonAdditive); k > 0 {
		sev := pluginsdk.SeverityError
		if r.notAdditiveOK {
			sev = pluginsdk.SeverityInfo
		}
		rels := make([]int, 0, min(k, maxNamed))
		for _, q := range r.NonAdditive[:min(k, maxNamed)] {
			rels = append(rels, q.Relation)
		}
		ds = append(ds, pluginsdk.Diagnostic{Severity: sev, Code: "audit.nonadditive", Relations: rels,
			Summary: fmt.Sprintf("the adjusted values violate %d relations (largest residual %.3g)", k, r.MaxResidual)})
	}
	if k := len(r.outOfBounds); k > 0 {
		ds = append(ds, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityError, Code: "audit.out_of_bounds",
			Cells:   slices.Clone(r.outOfBounds[:min(k, maxNamed)]),
			Summary: fmt.Sprintf("%d adjusted values lie outside their a-priori bounds", k)})
	}
	if k := len(r.frozenChanged); k > 0 {
		ds = append(ds, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityError, Code: "audit.frozen_changed",
			Cells:   slices.Clone(r.frozenChanged[:min(k, maxNamed)]),
			Summary: fmt.Sprintf("%d protected or empty cells changed their values", k)})
	}
	return ds
}

// ECTAIntervals returns the intervals an attacker derives from an ECTA
// publication: for every primary [(1−α)·c, (1+α)·c], for every other cell
// [(1−β)·c, (1+β)·c] (ends swapped for negative c), c being the published
// or the original value (e.Center). Frozen cells (protected, empty) are
// published exactly.
func ECTAIntervals(p *pluginsdk.Problem, adjusted []float64, e ECTA) (lo, hi []float64, err error) {
	n := p.NumCells()
	if len(adjusted) != n || len(p.Cells.Status) != n {
		return nil, nil, fmt.Errorf("audit: %w: %d adjusted values and %d statuses for %d cells", errInput, len(adjusted), len(p.Cells.Status), n)
	}
	if !(e.Alpha >= 0) || !(e.Beta >= 0) || math.IsInf(e.Alpha, 0) || math.IsInf(e.Beta, 0) {
		return nil, nil, fmt.Errorf("audit: %w: ECTA bounds α = %v, β = %v", errInput, e.Alpha, e.Beta)
	}
	lo, hi = make([]float64, n), make([]float64, n)
	for i := range n {
		c := adjusted[i]
		if e.Center == CenterOriginal {
			c = p.Cells.Value[i]
		}
		s := p.Cells.Status[i]
		f := e.Beta
		switch {
		case s == cellstatus.Protected || s == cellstatus.Empty:
			f = 0
		case s.IsPrimary():
			f = e.Alpha
		}
		a, b := (1-f)*c, (1+f)*c
		if a > b {
			a, b = b, a
		}
		if f == 0 {
			a, b = adjusted[i], adjusted[i]
		}
		lo[i], hi[i] = a, b
	}
	return lo, hi, nil
}
