package tabinput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/tab"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// makeTable allocates the table for the code lists.
func (r *reader) makeTable() error {
	t := &table.Table{Response: r.resp, Cost: r.spec.Cost}
	if t.Cost == (table.Cost{}) {
		t.Cost = table.NewCost(table.CostResponse, "")
	}
	if r.spec.FreqTable {
		t.Frequency = table.FrequencyTabular
	}
	if r.spec.Shadow != "" && !charset.EqualFold(r.spec.Shadow, r.resp.Name) {
		if v := r.src.Meta.Find(r.spec.Shadow); v != nil {
			t.ShadowName = v.Name
		}
	}
	t.Rules = table.Rules{TopN: r.topN}
	for i := 0; i < 2; i++ {
		t.Rules.PRule = t.Rules.PRule || r.set.P[i] != nil
		t.Rules.DominanceRule = t.Rules.DominanceRule || r.set.NK[i] != nil
	}
	size := 1
	for _, d := range r.dims {
		t.Dims = append(t.Dims, *d.dim)
		size *= d.dim.Len()
		if size > MaxCells {
			return fmt.Errorf("%w: table %s has more than %d cells", ErrSpec, describe(r.spec), MaxCells)
		}
	}
	if err := t.Alloc(); err != nil {
		return fmt.Errorf("table %s: %w", describe(r.spec), err)
	}
	if k := r.topN; k > 0 {
		top := make([]float64, size*k)
		for i := range t.Cells {
			t.Cells[i].TopN = top[i*k : (i+1)*k : (i+1)*k]
		}
	}
	r.strides = make([]int, len(t.Dims))
	stride := 1
	for d := len(t.Dims) - 1; d >= 0; d-- {
		r.strides[d] = stride
		stride *= t.Dims[d].Len()
	}
	r.t = t
	r.filled = make([]bool, size)
	return nil
}

// cells is pass 2: read every line and fill the cells (TableSet.read phase
// 3, buildCell, SetInTable, FillInTable).
func (r *reader) cells(ctx context.Context) error {
	f, err := r.open()
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := tab.NewReader(f, r.src.Name, r.layout)
	if err != nil {
		return err
	}
	idx := make([]int, len(r.dims))
	codes := make([]string, len(r.dims))
	for n := 1; ; n++ {
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.src.Progress != nil {
				r.src.Progress(2, n)
			}
		}
		row, err := rd.Read()
		if err == io.EOF {
			if r.dotLines > 0 {
				r.warnf("%s: %d line(s) (first: line %d) have \".\" (SAS's missing value) in a top-n field, read as 0 "+
					"(no such contributor), as τ-Argus 4.1.4 and earlier did; τ-Argus 4.1.5 and later refuse the line",
					r.src.Name, r.dotLines, r.dotFirst)
			}
			return nil
		}
		if err != nil {
			var pe *poserr.Error
			if errors.As(err, &pe) {
				return lineError(r.src.Name, pe.Line, pe.Err, pe)
			}
			return err
		}
		if row.FreqImputed {
			r.res.Log = append(r.res.Log, row.FreqImputedMessage())
		}
		if row.MissingTopN > 0 {
			if r.dotLines == 0 {
				r.dotFirst = row.Line
			}
			r.dotLines++
		}
		if row.ReadStatus == cellstatus.Secondary {
			r.res.HasSecondary = true
		}
		if !row.IsCell() {
			continue
		}
		copy(codes, row.Codes)
		if err := r.cellIndex(codes, idx); err != nil {
			return lineError(r.src.Name, row.Line, err, nil)
		}
		ci := 0
		for d, i := range idx {
			ci += i * r.strides[d]
		}
		if r.filled[ci] {
			var b strings.Builder
			b.WriteString(ErrCellFilled.Error() + "\n Codes:")
			for _, c := range codes {
				b.WriteString(c + ",")
			}
			return lineError(r.src.Name, row.Line, lex.Reason(ErrCellFilled, b.String()), nil)
		}
		r.filled[ci] = true
		r.res.Cells++
		r.fill(&r.t.Cells[ci], row)
	}
}

// cellIndex finds the code indices of a line (SetInTable with the retry
// loop of TableSet.read: the first code not found is padded, for .hrc
// variables, and the line retried, at most as many times as there are
// explanatory variables).
func (r *reader) cellIndex(codes []string, idx []int) error {
	for retries := 0; ; {
		bad := -1
		for i, d := range r.dims {
			if idx[i] = d.lookup(codes[i]); idx[i] < 0 {
				bad = i
				break
			}
		}
		if bad < 0 {
			return nil
		}
		if r.dims[bad].tree != nil {
			codes[bad] = rda.PadCode(codes[bad], r.dims[bad].length)
		}
		retries++
		if retries >= len(r.dims) {
			d := r.dims[bad]
			where := ""
			if d.tree != nil {
				where = " (hierarchy file " + d.tree.File + ")"
			}
			return fmt.Errorf("%w: code %q of variable %s%s", ErrCodeDoesNotExist, codes[bad], d.meta.Name, where)
		}
	}
}

// fill enters a line into its cell (FillInTable).
func (r *reader) fill(c *table.Cell, row *tab.Row) {
	c.Value = row.Response
	c.Shadow = row.Shadow
	c.Cost = row.Cost
	c.Freq = int64(max(row.Freq, 1))
	c.Status = row.Status
	if r.opt.StatusOnly && row.Status == cellstatus.UnsafeManual {
		c.LowerPL, c.UpperPL = row.Lower, row.Upper
	}
	if r.maxScore {
		copy(c.TopN, row.TopN)
	}
}
