package tabinput

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/tab"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
)

// progressEvery is the number of lines between progress reports and
// cancellation checks.
const progressEvery = 10_000

// dimension is one explanatory variable being read.
type dimension struct {
	meta   *rda.Variable
	col    int       // column in the layout
	tree   *hrc.Tree // HierFile only
	length int       // code length (padding width)
	// missing are the missing codes as they appear in the code list;
	// missingSeen those that occur in the file (pass 1).
	missing     []string
	missingSeen map[string]bool
	seen        map[string]struct{} // pass 1: codes collected (flat, levels)
	dim         *table.Dimension
	index       map[string]int // code → index in dim (first occurrence)
}

// reader is the state of one Read.
type reader struct {
	src    Source
	spec   Spec
	opt    Options
	res    *Result
	layout tab.Layout
	dims   []*dimension
	// dotLines counts the cell lines with "." in a top-n field; dotFirst
	// is the first of them.
	dotLines, dotFirst int
	set                rules.Set // the effective (tabular) rule set
	topN               int
	// freqRule and maxScore are τ-Argus's m_HasFreq and m_HasMaxScore.
	freqRule, maxScore bool
	resp               table.Variable
	t                  *table.Table
	filled             []bool
	strides            []int
	rel                []parents // per dimension: parents and children
}

func (r *reader) warnf(format string, args ...any) {
	r.res.Warnings = append(r.res.Warnings, fmt.Sprintf(format, args...))
}

// setup checks the specification against the metadata and builds the
// layout of the .tab file.
func (r *reader) setup() error {
	meta := r.src.Meta
	expl := meta.Explanatory()
	names := make([]string, len(expl))
	for i, v := range expl {
		names[i] = v.Name
	}
	ok := len(r.spec.Explanatory) == len(expl)
	for i := 0; ok && i < len(expl); i++ {
		ok = charset.EqualFold(r.spec.Explanatory[i], expl[i].Name)
	}
	if !ok {
		return fmt.Errorf("%w: <SPECIFYTABLE> names %s, but the explanatory variables of %s are %s (all of them, in this order)",
			ErrSpec, strings.Join(r.spec.Explanatory, ", "), meta.File, strings.Join(names, ", "))
	}
	if len(expl) > table.MaxDims {
		return fmt.Errorf("%w: %d explanatory variables (at most %d)", ErrSpec, len(expl), table.MaxDims)
	}
	l := tab.Layout{Separator: meta.Separator, Safe: meta.Safe, Unsafe: meta.Unsafe, Protect: meta.Protect,
		FrequencyTable: r.spec.FreqTable, StatusOnly: r.opt.StatusOnly, ExtraFields: r.opt.ExtraFields}
	var lastResp *rda.Variable
	for i, v := range meta.Variables {
		c := tab.Column{Name: v.Name, TotalCode: v.TotCode, Missing1: v.Missing[0], Missing2: v.Missing[1],
			Hierarchical: v.Hierarchy != rda.NotHierarchical, Decimals: v.Decimals}
		switch v.Kind {
		case rda.Explanatory, rda.ExplanatoryResponse:
			c.Role = tab.Code
			r.dims = append(r.dims, &dimension{meta: v, col: i, seen: map[string]struct{}{}, missingSeen: map[string]bool{}})
		case rda.Response:
			c.Role = tab.Response
			lastResp = v
		case rda.Shadow:
			c.Role = tab.Shadow
		case rda.Cost:
			c.Role = tab.Cost
		case rda.Frequency:
			c.Role = tab.Frequency
		case rda.TopN:
			c.Role = tab.TopN
			r.maxScore = true
		case rda.Status:
			c.Role = tab.Status
		case rda.LowerPL:
			c.Role = tab.LowerPL
		case rda.UpperPL:
			c.Role = tab.UpperPL
		default:
			c.Role = tab.Skip
		}
		l.Columns = append(l.Columns, c)
	}
	// The response.
	if r.spec.FreqTable {
		fv := meta.FirstOfKind(rda.Frequency)
		if fv == nil {
			return fmt.Errorf("%w: frequency table, but %s has no <FREQUENCY> variable", ErrSpec, meta.File)
		}
		r.resp = table.Variable{Name: fv.Name, Decimals: fv.Decimals}
	} else {
		v := meta.Find(r.spec.Response)
		if v == nil || !v.Kind.IsNumeric() {
			return fmt.Errorf("%w: response variable %s not found among the numeric variables of %s", ErrSpec, r.spec.Response, meta.File)
		}
		r.resp = table.Variable{Name: v.Name, Decimals: v.Decimals}
		if lastResp != nil && lastResp != v {
			r.warnf("the cell values are read from %s, the last <NUMERIC> variable of %s, not from the response %s named in <SPECIFYTABLE> (as in τ-Argus)",
				lastResp.Name, meta.File, v.Name)
		}
	}
	if r.spec.Shadow != "" && meta.Find(r.spec.Shadow) == nil {
		return fmt.Errorf("%w: shadow variable %s not found in %s", ErrSpec, r.spec.Shadow, meta.File)
	}
	if r.spec.Cost.Kind == table.CostVariable && meta.Find(r.spec.Cost.Name) == nil {
		return fmt.Errorf("%w: Cost variable (%s) not found", ErrSpec, r.spec.Cost.Name)
	}
	// The rule set, restricted as SetTableSafetyInfo does for tables.
	r.set = rules.NewSet()
	if r.opt.Rules != nil {
		r.set = *r.opt.Rules
	}
	var dropped []string
	for i := 2; i < 4; i++ {
		if r.set.NK[i] != nil || r.set.P[i] != nil {
			dropped = append(dropped, "holding-level NK/P")
			r.set.NK[i], r.set.P[i] = nil, nil
		}
	}
	if r.set.Freq[1] != nil {
		dropped = append(dropped, "holding-level FREQ")
		r.set.Freq[1] = nil
	}
	if r.set.Req[0] != nil || r.set.Req[1] != nil {
		dropped = append(dropped, "REQ")
		r.set.Req = [2]*rules.Req{}
	}
	if r.set.Weighted {
		dropped = append(dropped, "WGT")
		r.set.Weighted = false
	}
	if len(dropped) > 0 {
		r.warnf("safety rules not applicable to tabular input ignored: %s", strings.Join(slices.Compact(dropped), ", "))
	}
	if nTop := len(meta.OfKind(rda.TopN)); r.set.TopN() > nTop {
		r.warnf("the safety rules need %d top contributions but %s has %d <MAXSCORE> variables; the missing ones count as 0 (τ-Argus does not check this in batch)",
			r.set.TopN(), meta.File, nTop)
	}
	r.set.EmptyNonStructural = false
	r.set.Decimals = r.resp.Decimals
	r.freqRule = r.set.Freq[0] != nil
	r.topN = r.set.TopN()
	l.ManualMargin = int(r.set.ManualMargin)
	r.layout = l
	// Hierarchies.
	for _, d := range r.dims {
		if d.meta.Hierarchy != rda.HierFile {
			continue
		}
		d.tree = r.src.Hierarchies[charset.UpperKey(d.meta.Name)]
		if d.tree == nil {
			return fmt.Errorf("%w: hierarchy file %s of variable %s not loaded", ErrSpec, d.meta.HierFile, d.meta.Name)
		}
	}
	return nil
}

// lengths derives the code lengths (Metadata.setVariableLengthFromData) and
// the missing codes of the code lists.
func (r *reader) lengths() error {
	f, err := r.open()
	if err != nil {
		return err
	}
	lengths, err := tab.CodeLengths(f, r.src.Name, r.layout)
	f.Close()
	if err != nil {
		return err
	}
	for _, d := range r.dims {
		v := d.meta
		switch v.Hierarchy {
		case rda.HierFile:
			d.length = d.tree.Width()
		case rda.HierLevels:
			d.length = v.HierLevelsSum()
		default:
			d.length = lengths[d.col]
		}
		col := &r.layout.Columns[d.col]
		col.Length = d.length
		if col.Missing1 == "X" { // TableService.readTables
			col.Missing1 = strings.Repeat("X", max(d.length, 1))
		}
		// As τ-Argus, the missing codes stay as the metadata gives them:
		// Metadata.readTableMetadata normalises them before the code
		// length is known (so without padding) and TableService.readTables
		// only widens "X".
		for _, m := range []string{col.Missing1, col.Missing2} {
			if strings.TrimSpace(m) == "" {
				continue
			}
			d.missing = append(d.missing, m)
		}
	}
	return nil
}

// open opens the tabular data for one pass.
func (r *reader) open() (io.ReadCloser, error) {
	f, err := r.src.Open()
	if err != nil {
		return nil, fmt.Errorf("tabular data %s: %w", r.src.Name, err)
	}
	return f, nil
}

// codeLists is pass 1: collect the codes of every explanatory variable
// (TableSet.read phase 2, SetInCodeList) and build the code lists
// (SetTotalsInCodeList).
func (r *reader) codeLists(ctx context.Context) error {
	f, err := r.open()
	if err != nil {
		return err
	}
	defer f.Close()
	sep := r.layout.Separator
	if sep == "" {
		sep = tab.DefaultSeparator
	}
	sc := lex.NewScanner(f, r.src.Name)
	codes := make([]string, len(r.dims))
	for n := 1; sc.NextLine(); n++ {
		if n%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.src.Progress != nil {
				r.src.Progress(1, n)
			}
		}
		k, skip := 0, false
		for j := range r.layout.Columns {
			col := &r.layout.Columns[j]
			v := sc.NextField(sep)
			if col.Role != tab.Code {
				continue
			}
			if col.IsMissing(v) {
				r.dims[k].missingSeen[v] = true
			}
			switch {
			case skip:
			case col.IsTotalFold(v):
				skip = true
			default:
				codes[k] = col.Normalise(v)
				skip = col.IsMissing(v)
			}
			k++
		}
		sc.ClearLine()
		if skip {
			continue
		}
		if err := r.addCodes(codes, sc.LineNumber()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("tabular data %s: %w", r.src.Name, err)
	}
	for _, d := range r.dims {
		if err := r.codeList(d); err != nil {
			return err
		}
	}
	return nil
}

// addCodes is SetInCodeList with the retry loop of TableSet.read: at the
// first .hrc code not in the hierarchy the code is padded and the whole line
// retried, at most as many times as there are explanatory variables.
func (r *reader) addCodes(codes []string, line int) error {
	for retries := 0; ; {
		bad := -1
		for i, d := range r.dims {
			c := codes[i]
			if c == "" {
				continue
			}
			if d.tree != nil {
				if _, ok := d.tree.Find(c); !ok {
					bad = i
					break
				}
				continue
			}
			d.seen[c] = struct{}{}
		}
		if bad < 0 {
			return nil
		}
		codes[bad] = rda.PadCode(codes[bad], r.dims[bad].length)
		retries++
		if retries >= len(r.dims) {
			return codeListError(r.src.Name, line, codes, bad, r.dims[bad].meta.Name, r.dims[bad].tree.File)
		}
	}
}

// codeList builds the code list of d (SetTotalsInCodeList).
func (r *reader) codeList(d *dimension) error {
	v := d.meta
	dim := &table.Dimension{Name: v.Name, TotalCode: v.TotCode, MetaIndex: r.src.Meta.Index(v.Name), CodelistFile: v.CodeList}
	for _, m := range v.Missing {
		if s := strings.TrimSpace(m); s != "" {
			dim.MissingCodes = append(dim.MissingCodes, s)
		}
	}
	if v.HasDistance {
		dim.Distance = slices.Clone(v.Distance[:])
	}
	dim.Codes = []table.Code{{Label: "", Parent: -1, Level: 0}}
	missing := map[string]bool{}
	for _, m := range d.missing {
		missing[m] = true
	}
	seen := make([]string, 0, len(d.seen))
	for c := range d.seen {
		if !missing[c] {
			seen = append(seen, c)
		}
	}
	slices.Sort(seen)
	switch v.Hierarchy {
	case rda.HierFile:
		dim.Hierarchy = table.HierFile
		dim.HierFile = v.HierFile
		dim.LeadString = v.HierLeadString
		for _, n := range d.tree.Nodes {
			dim.Codes = append(dim.Codes, table.Code{Label: n.Code, Parent: n.Parent + 1, Level: n.Level})
		}
	case rda.HierLevels:
		dim.Hierarchy = table.HierLevels
		dim.HierLevels = slices.Clone(v.HierLevels)
		if err := levelCodes(dim, seen, v.HierLevels, d.length); err != nil {
			return fmt.Errorf("Error completing code list\n%w: variable %s: %v", ErrWrongHierarchy, v.Name, err)
		}
	default:
		for _, c := range seen {
			dim.Codes = append(dim.Codes, table.Code{Label: c, Parent: 0, Level: 1})
		}
	}
	for _, m := range d.missing {
		dim.Codes = append(dim.Codes, table.Code{Label: m, Parent: 0, Level: 1, Missing: true})
	}
	dim.MarkTrivial()
	if err := dim.Validate(); err != nil {
		where := ""
		if v.Hierarchy == rda.HierFile {
			where = " (hierarchy file " + d.tree.File + ")"
		}
		return fmt.Errorf("Error completing code list\n%w: variable %s%s: %v", ErrWrongHierarchy, v.Name, where, err)
	}
	d.dim = dim
	d.index = make(map[string]int, len(dim.Codes))
	for i, c := range dim.Codes {
		if _, dup := d.index[c.Label]; !dup {
			d.index[c.Label] = i
		}
	}
	for i := len(dim.Codes) - len(d.missing); i < len(dim.Codes); i++ {
		m := dim.Codes[i].Label
		// A cell line carries the missing code padded like every code
		// (TableSet.buildCell); τ-Argus then finds no such code ("Code
		// does not exist"), argus finds the missing code.
		if p := rda.PadCode(m, d.length); v.Hierarchy == rda.NotHierarchical {
			if _, dup := d.index[p]; !dup {
				d.index[p] = i
			}
		}
		if !d.missingSeen[m] {
			r.warnf("variable %s: the missing code %q declared in the metadata does not occur in %s; "+
				"as in τ-Argus its category is in the table, all its cells empty (in tabular metadata "+
				"a token after the variable name is a missing code, not a length)", v.Name, m, r.src.Name)
		}
	}
	return nil
}

// levelCodes builds a <HIERLEVELS> code list (CVariable::
// ComputeHierarchicalCodes, SetHierarch): the codes collected plus every
// prefix of a full-length code at the digit-group boundaries, sorted (a
// prefix sorts before its extensions); a code's level is the number of the
// boundary its length equals.
func levelCodes(dim *table.Dimension, codes []string, widths []int, length int) error {
	bounds := table.LevelBounds(widths)
	if len(bounds) == 0 {
		return fmt.Errorf("<HIERLEVELS> %v has no digit group", widths)
	}
	levelOf := func(c string) int {
		for i, b := range bounds {
			if len(c) == b {
				return i + 1
			}
		}
		return 0
	}
	all := map[string]struct{}{}
	for _, c := range codes {
		all[c] = struct{}{}
		if len(c) != length {
			continue
		}
		for _, b := range bounds[:len(bounds)-1] {
			all[c[:b]] = struct{}{}
		}
	}
	return dim.AppendLevelCodes(slices.Collect(maps.Keys(all)), bounds,
		func(c string) (int, error) {
			if lvl := levelOf(c); lvl != 0 {
				return lvl, nil
			}
			return 0, fmt.Errorf("code %q: its length %d is not at a digit-group boundary of <HIERLEVELS> %v", c, len(c), widths)
		},
		func(c, parent string) error { return fmt.Errorf("code %q has no parent code %q", c, parent) })
}

// lookup returns the index of code c in d's code list, -1 if absent
// (FillInTable: BinSearchStringArray, or FindAllHierarchicalCode for .hrc
// variables).
func (d *dimension) lookup(c string) int {
	if i, ok := d.index[c]; ok {
		return i
	}
	return -1
}
