package jj

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// CRLF is the line end τ-Argus writes on Windows, the writer's default.
const CRLF = "\r\n"

// Bounds are the table-wide a-priori bounds of the JJ cells (τ-Argus's
// minTabVal and maxTabVal).
type Bounds struct {
	Lower, Upper float64
}

// TableBounds returns the bounds τ-Argus derives from the cell values
// (TableSet after reading, §5.5): over all non-empty cells, lower = 0 if the
// smallest value is ≥ 0 else 1.5 × that value, upper = 1.5 × the largest
// value if that is > 0 else 0. (Zero-valued cells cannot change the result,
// so it does not matter which empty cells are skipped.)
func TableBounds(t *table.Table) Bounds {
	lo, hi := 0.0, 0.0
	first := true
	for i := range t.Cells {
		c := &t.Cells[i]
		if c.Status == cellstatus.Empty {
			continue
		}
		if first || c.Value < lo {
			lo = c.Value
		}
		if first || c.Value > hi {
			hi = c.Value
		}
		first = false
	}
	var b Bounds
	if hi > 0 {
		b.Upper = 1.5 * hi
	}
	if lo < 0 {
		b.Lower = 1.5 * lo
	}
	return b
}

// WriteOptions control [Write].
type WriteOptions struct {
	// RemoveTrivial leaves out the cells of trivial hierarchy levels and
	// their relations (option TR+).
	RemoveTrivial bool
	// Bounds overrides the table bounds; nil means [TableBounds].
	Bounds *Bounds
	// Raw writes the engine's file without τ-Argus's Java post-processing
	// (as the engine writes additerr.jj): bounds with the response decimals,
	// protection levels as computed, relation lines ending in a blank.
	Raw bool
	// Newline is the line end; "" means CRLF.
	Newline string
}

// ErrStatus is returned for a cell whose status the JJ format cannot
// express (0 or 8; τ-Argus's writer fails on them).
var ErrStatus = errors.New("status cannot be written in JJ format")

// Write writes table t in JJ format to w and the frequency side file
// (".frq": one line "freq holdingfreq" per written cell) to frq, which may be
// nil. See the package documentation for the layout.
func Write(w, frq io.Writer, t *table.Table, o WriteOptions) error {
	if t == nil {
		return errors.New("jj: nil table")
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("jj: %w", err)
	}
	nl := o.Newline
	if nl == "" {
		nl = CRLF
	}
	b := TableBounds(t)
	if o.Bounds != nil {
		b = *o.Bounds
	}
	lay := NewLayout(t, o.RemoveTrivial)
	bw := bufio.NewWriterSize(w, 64<<10)
	var fw *bufio.Writer
	if frq != nil {
		fw = bufio.NewWriterSize(frq, 16<<10)
	}
	if err := writeCells(bw, fw, t, lay, b, o, nl); err != nil {
		return err
	}
	if err := writeRelations(bw, t, lay, o.Raw, nl); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("jj: writing JJ file: %w", err)
	}
	if fw != nil {
		if err := fw.Flush(); err != nil {
			return fmt.Errorf("jj: writing frequency file: %w", err)
		}
	}
	return nil
}

// scaledCost is the engine's integer cost (CJJFormat::WriteCells).
func scaledCost(t *table.Table, c *table.Cell, maxCost float64) int64 {
	if t.Cost.Kind == table.CostUnity {
		return 1
	}
	return ScaleCost(t.CostValue(c), maxCost, t.MaxScaledCost())
}

// ScaleCost returns the integer cost of a cell with transformed cost x when
// the largest transformed cost of the table is max (CJJFormat::WriteCells):
// (long)(x · maxScaled / max + 0.5), 0 replaced by 1. A non-positive max, or
// a NaN result, gives 1 (τ-Argus would divide by zero); results beyond the
// int64 range are clamped. A non-positive maxScaled means
// table.DefaultMaxScaledCost.
func ScaleCost(x, max, maxScaled float64) int64 {
	if !(maxScaled > 0) {
		maxScaled = table.DefaultMaxScaledCost
	}
	if !(max > 0) {
		return 1
	}
	v := math.Trunc(x*maxScaled/max + .5)
	switch {
	case math.IsNaN(v):
		return 1
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	if s := int64(v); s != 0 {
		return s
	}
	return 1
}

func cellName(t *table.Table, ci int) string {
	idx := t.Coords(ci, nil)
	parts := make([]string, len(idx))
	for d, i := range idx {
		parts[d] = strconv.Quote(t.Dims[d].Label(i))
	}
	return strings.Join(parts, " x ")
}

func writeCells(bw, fw *bufio.Writer, t *table.Table, lay Layout, b Bounds, o WriteOptions, nl string) error {
	dec := t.Response.Decimals
	maxCost := 0.0
	for i := range t.Cells {
		if x := t.CostValue(&t.Cells[i]); x > maxCost {
			maxCost = x
		}
	}
	roundConst := 1 / math.Pow10(dec)
	eps1 := 1 / math.Pow10(dec+1)

	bw.WriteString("0")
	bw.WriteString(nl)
	bw.WriteString(strconv.Itoa(lay.Len()))
	bw.WriteString(nl)

	var idx []int
	j := 0
	var line []byte
	for ci := range t.Cells {
		idx = t.Coords(ci, idx)
		if lay.JJIndex(idx) < 0 {
			continue
		}
		c := &t.Cells[ci]
		letter, ok := c.Status.JJLetter()
		if !ok {
			return fmt.Errorf("jj: cell %s: %w: %d (%v)", cellName(t, ci), ErrStatus, int(c.Status), c.Status)
		}
		if fw != nil {
			fw.WriteString(strconv.FormatInt(c.Freq, 10))
			fw.WriteByte(' ')
			fw.WriteString(strconv.FormatInt(c.HoldingFreq, 10))
			fw.WriteString(nl)
		}
		v := c.Value
		var lpl, upl float64
		if letter == 'u' {
			lpl, upl = c.LowerPL, c.UpperPL
			if upl < roundConst {
				upl = roundConst
			}
		}
		lb, ub := b.Lower, b.Upper
		if c.Status != cellstatus.UnsafeZero {
			if tb := v - lpl; lb > tb {
				lb = tb
			}
			if upl < 0 {
				upl = 0
			}
			if tb := v + upl; tb > ub {
				ub = tb
			}
		} else if v+upl > ub {
			ub = v + upl
		}
		valStr := output.Publish(t, c, output.TypeJJ, output.Options{}).Value.Text
		costStr := strconv.FormatInt(scaledCost(t, c, maxCost), 10)
		line = line[:0]
		line = strconv.AppendInt(line, int64(j), 10)
		line = append(line, ' ')
		line = append(line, valStr...)
		line = append(line, ' ')
		if o.Raw {
			line = append(line, costStr...)
		} else {
			line = append(line, strings.ReplaceAll(costStr, "-", " ")...)
		}
		line = append(line, ' ', letter, ' ')
		if o.Raw || letter == 'z' {
			line = numfmt.AppendC(line, lb, dec)
			line = append(line, ' ')
			line = numfmt.AppendC(line, ub, dec)
			line = append(line, ' ')
			line = numfmt.AppendC(line, lpl, dec+3)
			line = append(line, ' ')
			line = numfmt.AppendC(line, upl, dec+3)
		} else {
			// τ-Argus's Java post-processing (SaveTable.opschonenJJFileforKomma)
			// reads back what the engine printed and rewrites the numbers.
			resp := parseC(valStr)
			xlb := parseC(numfmt.C(lb, dec))
			xub := parseC(numfmt.C(ub, dec))
			xlpl := parseC(numfmt.C(lpl, dec+3))
			xupl := parseC(numfmt.C(upl, dec+3))
			if xlb < b.Lower {
				xlb = b.Lower
			}
			if resp-xlpl < xlb {
				xlpl = resp - xlb
			}
			xlpl = realLPL(xlpl, resp, eps1, b.Lower)
			if xupl < roundConst {
				xupl = roundConst
			}
			line = append(line, numfmt.Java(xlb, dec+1, '.')...)
			line = append(line, ' ')
			line = append(line, numfmt.Java(xub, dec+1, '.')...)
			line = append(line, ' ')
			line = append(line, numfmt.Java(xlpl, dec+3, '.')...)
			line = append(line, ' ')
			line = append(line, numfmt.Java(xupl, dec+3, '.')...)
		}
		line = append(line, ' ')
		line = numfmt.AppendC(line, 0, dec) // sliding
		bw.Write(line)
		bw.WriteString(nl)
		j++
	}
	return nil
}

// parseC reads back a number printed by numfmt.C (Java Double.parseDouble
// in τ-Argus); "nan"/"inf" become NaN/±Inf.
func parseC(s string) float64 {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// realLPL is SaveTable.realLPL: the lower protection level is reduced so
// that value − LPL stays eps above the table's lower bound, never below 0.
func realLPL(lpl, resp, eps, minTabVal float64) float64 {
	x := resp - minTabVal
	if x < 0 {
		x = 0
	}
	if lpl+eps > x {
		lpl = x - eps
	}
	if lpl < 0 {
		lpl = 0
	}
	return lpl
}

// relation is one parent with its children, as code indices of one
// dimension.
type relation struct {
	parent   int
	children []int
}

// dimRelations returns the parent–children relations of one dimension
// (CJJFormat::GetRange): a flat dimension has the single relation total =
// all other codes; a hierarchical one a relation for every code with
// children (next-level codes). With removeTrivial, trivial codes are never
// parents nor children and a parent's children are its non-trivial
// descendants at the level of its first non-trivial descendant.
func dimRelations(d *table.Dimension, removeTrivial bool) []relation {
	n := d.Len()
	if !d.Hierarchical() {
		r := relation{parent: 0}
		for i := 1; i < n; i++ {
			r.children = append(r.children, i)
		}
		return []relation{r}
	}
	var out []relation
	for i := 0; i < n; i++ {
		if !d.IsParent(i) {
			continue
		}
		lp := d.Codes[i].Level
		end := i + 1
		for end < n && d.Codes[end].Level > lp {
			end++
		}
		var r relation
		r.parent = i
		if !removeTrivial {
			for k := i + 1; k < end; k++ {
				if d.Codes[k].Level == lp+1 {
					r.children = append(r.children, k)
				}
			}
		} else {
			if i > 0 && d.Codes[i].Trivial {
				continue
			}
			ld := -1
			for k := i + 1; k < end; k++ {
				if !d.Codes[k].Trivial {
					ld = d.Codes[k].Level
					break
				}
			}
			if ld < 0 {
				continue
			}
			for k := i + 1; k < end; k++ {
				if !d.Codes[k].Trivial && d.Codes[k].Level == ld {
					r.children = append(r.children, k)
				}
			}
		}
		if len(r.children) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// forEachRelation calls f for every relation line in τ-Argus order: per
// dimension, per combination of the kept codes of the other dimensions (in
// cell order), per parent. f gets the JJ numbers of the parent cell and of
// the children.
func forEachRelation(t *table.Table, lay Layout, removeTrivial bool, f func(parent int, children []int)) {
	nd := len(t.Dims)
	idx := make([]int, nd)
	var kids []int
	for target := 0; target < nd; target++ {
		rels := dimRelations(&t.Dims[target], removeTrivial)
		// pos[e] walks the kept codes of every other dimension.
		pos := make([]int, nd)
		for {
			for e := 0; e < nd; e++ {
				if e != target {
					idx[e] = lay.codes[e][pos[e]]
				}
			}
			for _, r := range rels {
				idx[target] = r.parent
				p := lay.JJIndex(idx)
				kids = kids[:0]
				for _, ch := range r.children {
					idx[target] = ch
					kids = append(kids, lay.JJIndex(idx))
				}
				f(p, kids)
			}
			// advance the other dimensions, last fastest
			e := nd - 1
			for ; e >= 0; e-- {
				if e == target {
					continue
				}
				pos[e]++
				if pos[e] < len(lay.codes[e]) {
					break
				}
				pos[e] = 0
			}
			if e < 0 {
				break
			}
		}
	}
}

func writeRelations(bw *bufio.Writer, t *table.Table, lay Layout, raw bool, nl string) error {
	count := 0
	forEachRelation(t, lay, lay.removeTrivial, func(int, []int) { count++ })
	bw.WriteString(strconv.Itoa(count))
	bw.WriteString(nl)
	var line []byte
	forEachRelation(t, lay, lay.removeTrivial, func(p int, kids []int) {
		line = append(line[:0], "0 "...)
		line = strconv.AppendInt(line, int64(len(kids)+1), 10)
		line = append(line, " : "...)
		line = strconv.AppendInt(line, int64(p), 10)
		line = append(line, " (-1)"...)
		for _, k := range kids {
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(k), 10)
			line = append(line, " (1)"...)
		}
		if raw {
			line = append(line, ' ')
		}
		bw.Write(line)
		bw.WriteString(nl)
	})
	return nil
}
