package batch

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// The audits judge what the outputs print, not the method's continuous
// values: the writers round every number to the table's decimals, and an
// adjusted table that adds up before printing may not add up in its file, a
// primary moved just out of its protection interval may be printed inside
// it, an interval bound may be rounded inwards. After a method's result is
// stored in the tables, printedValues takes, per problem cell, the numbers
// output.Publish returns — the same function every writer prints — and the
// audit judges those. The reference output is the code-value file (type 3):
// the C-written types 1–4 and JJ print the same numbers; the Java-written
// types 5 and 7 are compared with it when written (checkPrinted).

// auditedOutput is the output whose numbers the audits judge.
const auditedOutput = output.TypeCodeValue

// printedValues returns, per problem cell of m (n cells), the number pick
// takes from what the reference output prints of it. A cell of linked
// tables printed differently by two of them (their decimals differ) is an
// error: it has no one published value to audit.
func printedValues(m *problem.Mapping, n int, pick func(output.Published) float64) ([]float64, error) {
	out := make([]float64, n)
	seen := make([]bool, n)
	for ti, t := range m.Tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if g < 0 || g >= n {
				return nil, fmt.Errorf("cell %d of table %d maps to problem cell %d of %d", i, ti+1, g, n)
			}
			v := pick(output.Publish(t, &t.Cells[i], auditedOutput, output.Options{}))
			if seen[g] && !sameNumber(out[g], v) {
				return nil, fmt.Errorf("cell %s is printed as %v and %v by the linked tables (their decimals differ): it has no one published value to audit",
					cellCodes(t, i), out[g], v)
			}
			out[g], seen[g] = v, true
		}
	}
	return out, nil
}

// sameNumber reports whether a and b are the same number (NaN equal to NaN).
func sameNumber(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// printedValue is the published value of a cell as printed; an empty cell
// (printed "-") is 0, the value the audits give it.
func printedValue(p output.Published) float64 {
	if p.Shown == output.ShowValue {
		return p.Value.Value
	}
	return 0
}

// printedLower and printedUpper are the published interval of a cell as
// printed; an empty cell's is [0, 0].
func printedLower(p output.Published) float64 {
	if math.IsNaN(p.Lower.Value) {
		return 0
	}
	return p.Lower.Value
}

func printedUpper(p output.Published) float64 {
	if math.IsNaN(p.Upper.Value) {
		return 0
	}
	return p.Upper.Value
}

// checkPrinted makes sure output type typ with options o prints the numbers
// the audit judged (those of auditedOutput) for every cell of t whose
// published numbers were audited: the value of a rounded, adjusted or
// perturbed table, the interval of interval protection. The C-written
// types print them by construction; the Java-written types 5 and 7 format
// differently from printf beyond 2^53 and about 17 significant digits, and
// such a table is not written rather than written unaudited.
func checkPrinted(t *table.Table, typ output.Type, o output.Options) error {
	if output.FormatOf(typ, o) == output.FormatOf(auditedOutput, output.Options{}) {
		return nil
	}
	for i := range t.Cells {
		c := &t.Cells[i]
		got, want := output.Publish(t, c, typ, o), output.Publish(t, c, auditedOutput, output.Options{})
		bad := false
		switch t.Method {
		case table.MethodRounding, table.MethodCTA, table.MethodCKM:
			bad = want.Shown == output.ShowValue && !sameNumber(got.Value.Value, want.Value.Value)
		case table.MethodInterval:
			bad = c.Status != cellstatus.Empty && (!sameNumber(got.Lower.Value, want.Lower.Value) || !sameNumber(got.Upper.Value, want.Upper.Value))
		}
		if bad {
			return fmt.Errorf("output type %d would print cell %s differently from the audited output (type %d), at the limits of its number format: it is not written",
				int(typ), cellCodes(t, i), int(auditedOutput))
		}
	}
	return nil
}

// printedReport is the host's own check of an adjusted or rounded table as
// printed, exact at the table's decimals where the audit compares with a
// tolerance relative to the table's largest value (which lets a relation
// of a large table be off by a printed unit).
type printedReport struct {
	// NonAdditive counts the relations whose printed values do not add up
	// (a residual of at least numeric.HalfUnit).
	NonAdditive int
	// Inside marks the primaries printed inside their protection interval
	// by more than the slack of their own size (numeric.Slack), at most
	// half a printed unit (numeric.HalfUnit).
	Inside []bool
}

// checkPrintedTable checks the printed values of p's cells: every relation, and
// with primaries every primary's distance from its true value.
func checkPrintedTable(p *pluginsdk.Problem, values []float64, primaries bool) (printedReport, error) {
	var r printedReport
	rel, err := relations.Of(p)
	if err != nil {
		return r, fmt.Errorf("relations of the printed table: %w", err)
	}
	tol := numeric.HalfUnit(p.Decimals)
	for i := range rel.Len() {
		if res := math.Abs(relations.Residual(&rel, values, i)); !(res < tol) {
			r.NonAdditive++
		}
	}
	if !primaries {
		return r, nil
	}
	r.Inside = make([]bool, p.NumCells())
	for g, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		v, a := p.Cells.Value[g], values[g]
		var lpl, upl float64
		if len(p.Cells.LowerPL) == len(values) && len(p.Cells.UpperPL) == len(values) {
			lpl, upl = p.Cells.LowerPL[g], p.Cells.UpperPL[g]
		}
		slack := math.Min(numeric.Slack(math.Abs(v)+lpl+upl), numeric.HalfUnit(p.Decimals))
		if a > v-lpl+slack && a < v+upl-slack {
			r.Inside[g] = true
		}
	}
	return r, nil
}
