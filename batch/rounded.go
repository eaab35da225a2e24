package batch

import (
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/rounded"
)

// roundingPrecheck makes τ-Argus's check of RND(t, base, ...) that needs
// the table, before anything runs: a base at least the table's minimum
// rounding base (minRoundBase). The arguments were read by roundingArgs
// before the job started, and linked tables (t = 0) refused by the parser.
func roundingPrecheck(c *arb.Suppress, specs []*tableSpec) error {
	if c.Method != "RND" || len(c.Args) == 0 || len(specs) != 1 {
		return nil
	}
	base, err := lex.ParseInt(c.Args[0].Text)
	if err != nil {
		return nil // roundingArgs refused it already
	}
	if mrb := minRoundBase(specs[0]); int64(base) < mrb {
		return fmt.Errorf("The rounding base is too small\nA minimum of %d is required", mrb)
	}
	return nil
}

// minRoundBase is τ-Argus's minimum rounding base of a table: for a
// frequency table the minimum frequency of its rule (the holding rule's
// when the table has one), else the largest sum of the lower and upper
// protection levels of a primary cell, truncated; at least 1.
func minRoundBase(t *tableSpec) int64 {
	var mrb int64
	if t.cmd.FreqTable {
		f := t.set.Freq[0]
		if h := t.set.Freq[1]; h != nil && h.MinFreq > 0 {
			f = h
		}
		if f != nil {
			mrb = int64(f.MinFreq)
		}
	} else if t.table != nil {
		most := 0.0
		for i := range t.table.Cells {
			c := &t.table.Cells[i]
			if c.Status.IsPrimary() {
				most = math.Max(most, c.LowerPL+c.UpperPL)
			}
		}
		mrb = int64(most)
	}
	return max(mrb, 1)
}

// rounded stores the result of a method that publishes a rounded table
// (RND) in the tables, so that every output writes the rounded values,
// logs it as τ-Argus does and checks it again, on the values as the outputs
// print them: every value a multiple of
// the base within its cell's allowed multiples, every relation holding. A
// table that fails the check is unsafe, as after a failed audit
// (markUnsafe).
func (e *engine) rounded(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, res *pluginsdk.Result, mr *MethodReport,
	facts pluginclient.RunFacts, target string, took time.Duration) error {
	if len(res.Values) != p.NumCells() {
		return fmt.Errorf("the rounding method returned %d values for %d cells", len(res.Values), p.NumCells())
	}
	// The base and the steps K, read from the method's parameters of those
	// roles (see runFacts), decide what the check allows. τ-Argus's
	// partitioning makes the first variable's totals the sums of the
	// rounded categories, which may jump: the method reports how far.
	base, steps := facts.RoundingBase, facts.RoundingSteps
	if base < 1 {
		return fmt.Errorf("rounding: no valid base among the parameters (%d)", base)
	}
	if facts.RoundingPartitions {
		steps = max(steps, int(res.Stats.Extra["steps_used"]))
	}
	for ti, t := range m.Tables {
		for i := range t.Cells {
			t.Cells[i].Rounded = res.Values[m.Cell[ti][i]]
		}
		t.Method = table.MethodRounding
	}
	printed, err := printedValues(m, p.NumCells(), printedValue)
	if err != nil {
		return err
	}
	rep, err := rounded.Check(p, printed, float64(base), max(steps, 0))
	if err != nil {
		return err
	}
	exact, err := checkPrintedTable(p, printed, false)
	if err != nil {
		return err
	}
	rep.NonAdditive = max(rep.NonAdditive, exact.NonAdditive)
	lower, upper := res.Stats.Bound, res.Stats.Objective
	if v, ok := res.Stats.Extra["lower_bound"]; ok {
		lower = v
	}
	if v, ok := res.Stats.Extra["upper_bound"]; ok {
		upper = v
	}
	dec := p.Decimals
	e.logf("Table has been rounded\nRounding base:   %d\nMax jump:        %s\nNumber of steps: %d\nLowerbound:%s\nUpperbound:%s",
		base, numfmt.Java(rep.MaxJump, dec, '.'), rep.Jumps, numfmt.Java(lower, dec, '.'), numfmt.Java(upper, dec, '.'))
	e.logf("End of the rounding procedure")
	for _, t := range specs {
		t.protected, t.method = took, "rounding"
		t.audit, t.unsafe = nil, nil
	}
	ar := &AuditReport{Done: true, Mode: "rounded", Defects: rep.Defects(), Figures: map[string]float64{
		"jumps": float64(rep.Jumps), "max_jump": rep.MaxJump, "not_multiple": float64(rep.NotMultiple),
		"out_of_range": float64(rep.OutOfRange), "nonadditive": float64(rep.NonAdditive), "max_residual": rep.MaxResidual}}
	for _, s := range p.Cells.Status {
		if s.IsPrimary() {
			ar.Primaries++
		}
	}
	mr.Audit = ar
	perTable := make([]*AuditReport, len(specs))
	for i, t := range specs {
		ta := *ar
		ta.Primaries = 0
		for k := range t.table.Cells {
			if t.table.Cells[k].Status.IsPrimary() {
				ta.Primaries++
			}
		}
		t.audit, perTable[i] = &ta, &ta
	}
	if rep.OK() {
		e.logf("Check of the rounded table: every value a multiple of %d within its allowed multiples; the table is additive", base)
		return nil
	}
	e.logf("WARNING: check of the rounded table: %s", rep.Defects())
	e.markUnsafe(specs, ar, perTable, target)
	return nil
}

// roundingStart is τ-Argus's logbook line at the start of a rounding.
func roundingStart(specs []*tableSpec, facts pluginclient.RunFacts) string {
	s := "Start of the rounding procedure for table: " + describe(specs[0])
	if facts.RoundingPartitions {
		s += " (with partitions)"
	}
	return s
}
