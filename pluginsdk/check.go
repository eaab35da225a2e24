package pluginsdk

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// CheckResult checks a method's result against its problem and the method's
// output kind: one entry per cell in every slice the kind requires, statuses
// valid, primaries still suppressed, frozen cells (protected, empty) and
// other statuses unchanged except safe cells that became secondaries, and
// finite values. Hosts and the SDK apply it to every result; it does not
// check protection itself (that is the audit's job).
func CheckResult(p *Problem, kind OutputKind, r *Result) error {
	if !r.Outcome.HasResult() {
		return nil
	}
	n := p.NumCells()
	switch kind {
	case OutputSuppression:
		if len(r.Status) != n {
			return fmt.Errorf("suppression result has %d statuses for %d cells", len(r.Status), n)
		}
	case OutputAdjusted, OutputRounded, OutputPerturbed:
		if len(r.Values) != n {
			return fmt.Errorf("result has %d values for %d cells", len(r.Values), n)
		}
	case OutputIntervals:
		if len(r.Lower) != n || len(r.Upper) != n {
			return fmt.Errorf("interval result has %d lower and %d upper bounds for %d cells", len(r.Lower), len(r.Upper), n)
		}
		// An exactly determined cell whose two bounds crossed by rounding
		// (within the audit tolerance) is one point, not an empty interval.
		tol := verdict.Tolerance(p.Cells.Value)
		for i := range n {
			if !(r.Lower[i] <= r.Upper[i]+tol) {
				return fmt.Errorf("cell %d: interval [%g, %g] is empty", i, r.Lower[i], r.Upper[i])
			}
		}
	default:
		return fmt.Errorf("unknown output kind %d", kind)
	}
	for _, col := range [][]float64{r.Values, r.Lower, r.Upper} {
		if len(col) != 0 && len(col) != n {
			return fmt.Errorf("result column has %d entries for %d cells", len(col), n)
		}
		for i, v := range col {
			if math.IsNaN(v) {
				return fmt.Errorf("cell %d: result value is NaN", i)
			}
		}
	}
	if len(r.Verdicts) != 0 {
		if len(r.Verdicts) != n {
			return fmt.Errorf("result has %d verdicts for %d cells", len(r.Verdicts), n)
		}
		for i, v := range r.Verdicts {
			switch {
			case !v.Kind.Valid() || !v.Reason.Valid():
				return fmt.Errorf("cell %d: invalid verdict %d (reason %d)", i, v.Kind, v.Reason)
			case v.Kind != verdict.NotJudged && !p.Cells.Status[i].IsPrimary():
				return fmt.Errorf("cell %d: verdict %v for a cell that is not sensitive", i, v)
			}
		}
	}
	if len(r.Status) != 0 {
		if len(r.Status) != n {
			return fmt.Errorf("result has %d statuses for %d cells", len(r.Status), n)
		}
		for i, s := range r.Status {
			if err := checkTransition(p.Cells.Status[i], s); err != nil {
				return fmt.Errorf("cell %d: %w", i, err)
			}
		}
	}
	return nil
}

func checkTransition(from, to cellstatus.Status) error {
	if from == to {
		return nil
	}
	if sec, ok := from.ToSecondary(); ok && to == sec {
		return nil
	}
	if from.IsSecondary() && to == cellstatus.Safe || from == cellstatus.SecondaryManual && to == cellstatus.SafeManual {
		// A method may undo earlier secondaries of the same table.
		return nil
	}
	return fmt.Errorf("status %d (%s) may not become %d (%s)", from, from.Phrase(), to, to.Phrase())
}

// fillStats completes the figures a method left zero that the SDK can derive.
func fillStats(p *Problem, r *Result) {
	if len(r.Status) != p.NumCells() || r.Stats.Secondaries != 0 {
		return
	}
	r.Stats.Secondaries, r.Stats.SuppressedCost = Secondaries(p, r.Status)
}
