// Package tabulate builds τ-Argus tables from microdata: it reads the
// records (streamed, twice: once to find the code lists, once to add the
// records up), and fills every cell of every requested table, totals and
// subtotals of every hierarchy included, with response, shadow, cost,
// frequency, weight sum, the top contributions of records and of holdings,
// and request-rule information (docs/formats.md §5, docs/methods.md
// §1). Several tables are built in the same two passes. Memory grows with
// the number of cells, not with the number of records.
//
// Code lists follow τ-Argus: the total first; then the sorted codes seen
// (with <HIERLEVELS>, every prefix of a full-length code is a parent, sorted
// before its extensions), or the order of the .hrc file (every data code
// must be a leaf of it); then the declared missing codes, always present.
package tabulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/microdata"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/internal/numeric"
)

// FreqResponse is the response name of a frequency (count) table.
const FreqResponse = "<FREQ>"

// MaxCells bounds the cells of one table; larger tables are refused before
// any memory is taken.
const MaxCells = 200_000_000

// Spec is one table to build.
type Spec struct {
	// Explanatory names the spanning variables in table order.
	Explanatory []string
	// Response names the response variable, or FreqResponse.
	Response string
	// Shadow names the shadow variable; "" means the response.
	Shadow string
	// Cost is the cost function (see table.NewCost).
	Cost table.Cost
	// Rules are the table's safety rules; they say how many top
	// contributions to keep and whether weights and holdings apply.
	Rules *rules.Set
}

// Source is the microdata to read.
type Source struct {
	// Meta is the microdata metadata.
	Meta *rda.Metadata
	// Name is the data file name, for messages.
	Name string
	// Open opens the data file; it is called once per pass.
	Open func() (io.ReadCloser, error)
	// Hierarchies holds the parsed .hrc file of every variable with a
	// <HIERCODELIST>, by charset.UpperKey of the variable name.
	Hierarchies map[string]*hrc.Tree
	// Progress, if set, is called with the pass (1 or 2) and the number of
	// records read so far, every 20 000 records and at the end of each pass.
	Progress func(pass, records int)
}

// Extra is what the rules need of a cell beyond table.Cell.
type Extra struct {
	// TopWeight holds the record weights of Cell.TopN (weights only).
	TopWeight []float64
	// Request is the request information: index 0 records, 1 holdings.
	Request [2]rules.Request
	// Missing tells that some code of the cell is a missing code.
	Missing bool
	// MinContribution is the smallest absolute shadow value of the cell's
	// records, zero values included, as τ-Argus keeps it for the cell key
	// method's type D (a response with <CKM> D); 0 for other tables and
	// for empty cells.
	MinContribution float64
}

// Result is one built table.
type Result struct {
	Table *table.Table
	// Extra has one entry per cell of Table.
	Extra []Extra
}

// Build reads the microdata and builds every table of specs.
func Build(ctx context.Context, src Source, specs []Spec) ([]*Result, error) {
	b, err := newBuilder(src, specs)
	if err != nil {
		return nil, err
	}
	if err := b.pass(ctx, 1, b.explore); err != nil {
		return nil, err
	}
	if err := b.makeTables(); err != nil {
		return nil, err
	}
	if err := b.pass(ctx, 2, b.add); err != nil {
		return nil, err
	}
	b.finish()
	return b.results, nil
}

// variable is one variable used by some table, with its field in the layout.
type variable struct {
	meta  *rda.Variable
	field int
	// Explanatory variables: the code list being built.
	seen  map[string]struct{}
	dim   *table.Dimension // finished code list (shared by the tables using it)
	index map[string]int   // code → index in dim
	// chain[i] lists code i and its ancestors up to (excluding) the total.
	chain [][]int
}

type builder struct {
	src     Source
	specs   []Spec
	layout  microdata.Layout
	vars    map[string]*variable // by upper-case name
	order   []*variable
	weight  *variable
	holding *variable
	request *variable
	key     *variable // the record key (<RECORDKEY>), nil if none
	results []*Result
	tables  []*tableState
	holdNo  int // number of the current holding (consecutive records)
	prevHld string
}

// tableState is the per-table accumulation state.
type tableState struct {
	spec     Spec
	res      *Result
	dims     []*variable
	resp     *variable // nil for a frequency table
	shadow   *variable // nil: the response
	cost     *variable // nil unless a cost variable
	topN     int
	holdTopN int
	// Holding accumulation per cell: the holding last seen and its sum.
	lastHold []int32
	holdSum  []float64
	strides  []int
	// keySum is the sum of the record keys per cell, in units of
	// 10^-keyDecimals modulo 1 (see recordKey); keyNonZero: only records
	// whose response is not zero add their key (a magnitude table whose
	// response does not include zeros in the cell key, as τ-Argus).
	keySum     []uint64
	keyNonZero bool
	// keepMin: keep the smallest contribution per cell (Extra.MinContribution).
	keepMin bool
}

func (b *builder) use(name string, code bool) (*variable, error) {
	key := charset.UpperKey(name)
	if v, ok := b.vars[key]; ok {
		return v, nil
	}
	m := b.src.Meta.Find(name)
	if m == nil {
		return nil, fmt.Errorf("variable %s not found in metadata %s", name, b.src.Meta.File)
	}
	kind := microdata.Number
	if code {
		kind = microdata.Code
	}
	pos := m.Start
	if b.src.Meta.Format != rda.Fixed {
		pos = b.src.Meta.Index(m.Name) + 1
	}
	v := &variable{meta: m, field: len(b.layout.Fields), seen: map[string]struct{}{}}
	b.layout.Fields = append(b.layout.Fields, microdata.Field{Name: m.Name, Pos: pos, Length: m.Length, Kind: kind,
		Missing1: m.Missing[0], Missing2: m.Missing[1]})
	b.vars[key] = v
	b.order = append(b.order, v)
	return v, nil
}

func newBuilder(src Source, specs []Spec) (*builder, error) {
	if src.Meta == nil || src.Open == nil {
		return nil, errors.New("tabulate: no microdata")
	}
	b := &builder{src: src, specs: specs, vars: map[string]*variable{}}
	b.layout.Format = microdata.Fixed
	if src.Meta.Format != rda.Fixed {
		b.layout.Format = microdata.Free
		if len(src.Meta.Separator) != 1 {
			return nil, fmt.Errorf("metadata %s: free-format separator %q is not one character", src.Meta.File, src.Meta.Separator)
		}
		b.layout.Separator = src.Meta.Separator[0]
		b.layout.NumFields = len(src.Meta.Variables)
	}
	for _, m := range src.Meta.Variables {
		var err error
		switch m.Kind {
		case rda.Weight:
			b.weight, err = b.use(m.Name, false)
		case rda.Holding:
			b.holding, err = b.use(m.Name, true)
		case rda.Request:
			b.request, err = b.use(m.Name, true)
		case rda.RecordKey:
			// Read as text: the key is summed exactly from its digits.
			b.key, err = b.use(m.Name, true)
		}
		if err != nil {
			return nil, err
		}
	}
	for ti, s := range specs {
		if len(s.Explanatory) == 0 || len(s.Explanatory) > table.MaxDims {
			return nil, fmt.Errorf("table %d: %d explanatory variables (1 to %d allowed)", ti+1, len(s.Explanatory), table.MaxDims)
		}
		if s.Rules == nil {
			return nil, fmt.Errorf("table %d: no rules", ti+1)
		}
		ts := &tableState{spec: s, topN: s.Rules.TopN(), holdTopN: s.Rules.HoldingTopN()}
		for _, name := range s.Explanatory {
			v, err := b.use(name, true)
			if err != nil {
				return nil, fmt.Errorf("table %d: %w", ti+1, err)
			}
			if !v.meta.Kind.IsExplanatory() {
				return nil, fmt.Errorf("table %d: %s is not an explanatory variable", ti+1, name)
			}
			if slices.Contains(ts.dims, v) {
				return nil, fmt.Errorf("table %d: variable %s used twice", ti+1, name)
			}
			ts.dims = append(ts.dims, v)
		}
		numeric := func(name, what string) (*variable, error) {
			v, err := b.use(name, false)
			if err != nil {
				return nil, fmt.Errorf("table %d: %s: %w", ti+1, what, err)
			}
			if !v.meta.Kind.IsNumeric() {
				return nil, fmt.Errorf("table %d: %s %s is not numeric", ti+1, what, name)
			}
			return v, nil
		}
		var err error
		if !strings.EqualFold(s.Response, FreqResponse) {
			if ts.resp, err = numeric(s.Response, "response"); err != nil {
				return nil, err
			}
		}
		if s.Shadow != "" && !charset.EqualFold(s.Shadow, s.Response) {
			if ts.shadow, err = numeric(s.Shadow, "shadow"); err != nil {
				return nil, err
			}
		}
		if s.Cost.Kind == table.CostVariable {
			if ts.cost, err = numeric(s.Cost.Name, "cost"); err != nil {
				return nil, err
			}
		}
		if ts.resp != nil && ts.resp.meta.CKM.Type == "T" {
			// τ-Argus keeps the top k contributions for CKM T(k).
			ts.topN = max(ts.topN, ts.resp.meta.CKM.TopK)
		}
		if ts.resp != nil && ts.resp.meta.CKM.Type == "D" {
			// CKM D perturbs the largest minus the smallest contribution.
			ts.topN = max(ts.topN, 1)
			ts.keepMin = true
		}
		ts.keyNonZero = ts.resp != nil && !ts.resp.meta.CKM.IncludeZeros
		if s.Rules.Weighted && b.weight == nil {
			return nil, fmt.Errorf("table %d: weights requested but the metadata has no <WEIGHT> variable", ti+1)
		}
		if ts.holdTopN > 0 && b.holding == nil {
			return nil, fmt.Errorf("table %d: holding rules but the metadata has no <HOLDING> variable", ti+1)
		}
		b.tables = append(b.tables, ts)
	}
	return b, nil
}

// pass reads all records once, calling fn for each.
func (b *builder) pass(ctx context.Context, n int, fn func(*microdata.Record) error) error {
	f, err := b.src.Open()
	if err != nil {
		return fmt.Errorf("microdata %s: %w", b.src.Name, err)
	}
	defer f.Close()
	r, err := microdata.NewReader(f, b.src.Name, b.layout)
	if err != nil {
		return fmt.Errorf("microdata %s: %w", b.src.Name, err)
	}
	b.holdNo, b.prevHld = 0, ""
	for count := 1; ; count++ {
		rec, err := r.Read()
		if err == io.EOF {
			if b.src.Progress != nil {
				b.src.Progress(n, count-1)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("microdata: %w", err)
		}
		if err := fn(rec); err != nil {
			return &poserr.Error{Pos: poserr.Pos{File: b.src.Name, Line: rec.Line()}, Err: err,
				Msg: fmt.Sprintf("microdata %s record %d (line %d): %v", b.src.Name, rec.Number(), rec.Line(), err)}
		}
		if count%20_000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if b.src.Progress != nil {
				b.src.Progress(n, count)
			}
		}
	}
}

// explore is pass 1: collect the codes of every explanatory variable.
func (b *builder) explore(rec *microdata.Record) error {
	for _, v := range b.order {
		if v.seen == nil || !v.meta.Kind.IsExplanatory() || rec.Missing(v.field) {
			continue
		}
		code := rec.String(v.field)
		if _, ok := v.seen[code]; ok {
			continue
		}
		if v.meta.Hierarchy == rda.HierFile {
			tree := b.src.Hierarchies[charset.UpperKey(v.meta.Name)]
			if tree == nil {
				return fmt.Errorf("variable %s: hierarchy file %s not loaded", v.meta.Name, v.meta.HierFile)
			}
			if _, ok := tree.FindLeaf(code); !ok {
				return fmt.Errorf("code %q of variable %s not in codelist %s", code, v.meta.Name, tree.File)
			}
		}
		v.seen[code] = struct{}{}
	}
	return nil
}

// makeTables turns the codes seen into code lists and allocates the tables.
func (b *builder) makeTables() error {
	for _, v := range b.order {
		if !v.meta.Kind.IsExplanatory() || v.dim != nil {
			continue
		}
		if err := b.codeList(v); err != nil {
			return err
		}
	}
	for _, ts := range b.tables {
		t := &table.Table{Cost: ts.spec.Cost}
		for _, v := range ts.dims {
			t.Dims = append(t.Dims, *v.dim)
		}
		if ts.resp == nil {
			t.Frequency = table.FrequencyMicrodata
			t.Response = table.Variable{Name: "Freq"}
		} else {
			t.Response = table.Variable{Name: ts.resp.meta.Name, Decimals: ts.resp.meta.Decimals}
		}
		if ts.shadow != nil {
			t.ShadowName = ts.shadow.meta.Name
		}
		if b.key != nil {
			t.CellKey = table.Variable{Name: b.key.meta.Name, Decimals: b.key.meta.Decimals}
		}
		rs := ts.spec.Rules
		t.Rules = table.Rules{TopN: ts.topN, HoldingTopN: ts.holdTopN, Holding: ts.holdTopN > 0}
		for i := range rs.P {
			t.Rules.PRule = t.Rules.PRule || rs.P[i] != nil
			t.Rules.DominanceRule = t.Rules.DominanceRule || rs.NK[i] != nil
		}
		size := 1
		for _, d := range t.Dims {
			size *= d.Len()
			if size > MaxCells {
				return fmt.Errorf("table %s has more than %d cells", strings.Join(ts.spec.Explanatory, " x "), MaxCells)
			}
		}
		if err := t.Alloc(); err != nil {
			return err
		}
		ts.strides = make([]int, len(t.Dims))
		stride := 1
		for d := len(t.Dims) - 1; d >= 0; d-- {
			ts.strides[d] = stride
			stride *= t.Dims[d].Len()
		}
		res := &Result{Table: t, Extra: make([]Extra, size)}
		// The top-n lists of all cells share one array each: one allocation,
		// and neighbouring cells' lists are neighbours in memory.
		top := make([]float64, size*ts.topN)
		holdTop := make([]float64, size*ts.holdTopN)
		var topW []float64
		if rs.Weighted {
			topW = make([]float64, size*ts.topN)
		}
		for i := range t.Cells {
			c := &t.Cells[i]
			if k := ts.topN; k > 0 {
				c.TopN = top[i*k : (i+1)*k : (i+1)*k]
				if topW != nil {
					res.Extra[i].TopWeight = topW[i*k : (i+1)*k : (i+1)*k]
				}
			}
			if k := ts.holdTopN; k > 0 {
				c.HoldingTopN = holdTop[i*k : (i+1)*k : (i+1)*k]
			}
		}
		if ts.keepMin {
			for i := range res.Extra {
				res.Extra[i].MinContribution = math.Inf(1)
			}
		}
		if ts.holdTopN > 0 {
			ts.lastHold = make([]int32, size)
			ts.holdSum = make([]float64, size)
		}
		if b.key != nil {
			ts.keySum = make([]uint64, size)
		}
		ts.res = res
		b.results = append(b.results, res)
	}
	return nil
}

// codeList builds the code list of v from the codes seen (§5.3).
func (b *builder) codeList(v *variable) error {
	d := &table.Dimension{Name: v.meta.Name, TotalCode: v.meta.TotCode, MetaIndex: b.src.Meta.Index(v.meta.Name),
		CodelistFile: v.meta.CodeList}
	for _, m := range v.meta.Missing {
		if strings.TrimSpace(m) != "" {
			d.MissingCodes = append(d.MissingCodes, strings.TrimSpace(m))
		}
	}
	if v.meta.HasDistance {
		d.Distance = v.meta.Distance[:]
	}
	d.Codes = []table.Code{{Label: "", Parent: -1, Level: 0}}
	codes := make([]string, 0, len(v.seen))
	for c := range v.seen {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	switch v.meta.Hierarchy {
	case rda.HierFile:
		d.Hierarchy = table.HierFile
		d.HierFile = v.meta.HierFile
		d.LeadString = v.meta.HierLeadString
		tree := b.src.Hierarchies[charset.UpperKey(v.meta.Name)]
		for _, n := range tree.Nodes {
			d.Codes = append(d.Codes, table.Code{Label: n.Code, Parent: n.Parent + 1, Level: n.Level})
		}
	case rda.HierLevels:
		d.Hierarchy = table.HierLevels
		d.HierLevels = v.meta.HierLevels
		if err := levelCodes(d, codes, v.meta); err != nil {
			return fmt.Errorf("variable %s: %w", v.meta.Name, err)
		}
	default:
		for _, c := range codes {
			d.Codes = append(d.Codes, table.Code{Label: c, Parent: 0, Level: 1})
		}
	}
	for _, m := range v.meta.Missing {
		if m != "" {
			d.Codes = append(d.Codes, table.Code{Label: m, Parent: 0, Level: 1, Missing: true})
		}
	}
	d.MarkTrivial()
	v.dim = d
	v.index = make(map[string]int, len(d.Codes))
	v.chain = make([][]int, len(d.Codes))
	for i, c := range d.Codes {
		if i > 0 {
			if _, dup := v.index[c.Label]; !dup {
				v.index[c.Label] = i
			}
		}
		for p := i; p > 0; p = d.Codes[p].Parent {
			v.chain[i] = append(v.chain[i], p)
		}
	}
	v.seen = nil
	return nil
}

// levelCodes builds a <HIERLEVELS> code list: every full-length code and all
// its prefixes at the level boundaries, sorted (a prefix before its
// extensions), each with its parent.
func levelCodes(d *table.Dimension, codes []string, m *rda.Variable) error {
	bounds := table.LevelBounds(m.HierLevels) // prefix lengths of the levels
	all := map[string]int{}                   // code → level
	for _, c := range codes {
		if len(c) != m.Length {
			all[c] = len(bounds)
			continue
		}
		for lvl, n := range bounds {
			if n <= len(c) {
				all[c[:n]] = lvl + 1
			}
		}
	}
	return d.AppendLevelCodes(slices.Collect(maps.Keys(all)), bounds,
		func(c string) (int, error) { return all[c], nil },
		func(c, parent string) error { return fmt.Errorf("code %q has no parent %q", c, parent) })
}

// add is pass 2: add the record to every cell it belongs to.
func (b *builder) add(rec *microdata.Record) error {
	weight := 1.0
	if b.weight != nil {
		weight = rec.Float(b.weight.field)
	}
	if b.holding != nil {
		if h := rec.String(b.holding.field); b.holdNo == 0 || h != b.prevHld {
			b.holdNo++
			b.prevHld = h
		}
	}
	reqCode := 0
	if b.request != nil {
		code := rec.String(b.request.field)
		for i, rc := range b.request.meta.RequestCodes {
			if rc != "" && strings.TrimSpace(code) == strings.TrimSpace(rc) {
				reqCode = i + 1
			}
		}
	}
	var key uint64
	if b.key != nil {
		k, err := recordKey(rec.Bytes(b.key.field))
		if err != nil {
			return fmt.Errorf("record key %s: %w", b.key.meta.Name, err)
		}
		key = k
	}
	for _, ts := range b.tables {
		if err := ts.addRecord(b, rec, weight, reqCode, key); err != nil {
			return err
		}
	}
	return nil
}

func (ts *tableState) addRecord(b *builder, rec *microdata.Record, weight float64, reqCode int, key uint64) error {
	rs := ts.spec.Rules
	var value float64
	if ts.resp == nil {
		value = 1
	} else {
		value = rec.Float(ts.resp.field)
	}
	shadow := value
	if ts.shadow != nil {
		shadow = rec.Float(ts.shadow.field)
	}
	cost := 0.0
	if ts.cost != nil {
		cost = rec.Float(ts.cost.field)
	}
	w := 1.0
	if rs.Weighted {
		w = weight
	}
	// Per dimension, the codes the record adds to: its own code, its
	// ancestors, the total.
	var chainsBuf [table.MaxDims][]int
	chains := chainsBuf[:len(ts.dims)]
	missing := false
	for d, v := range ts.dims {
		code := rec.String(v.field)
		idx, ok := v.index[code]
		if !ok {
			return fmt.Errorf("code %q of variable %s not in the code list", code, v.meta.Name)
		}
		missing = missing || v.dim.Codes[idx].Missing
		chains[d] = v.chain[idx]
	}
	t := ts.res.Table
	addKey := ts.keySum != nil && (!ts.keyNonZero || math.Abs(value) > keyZero)
	var pos [table.MaxDims]int // position in each chain; len(chain) = total
	for {
		cell := 0
		for d := range chains {
			k := 0
			if pos[d] < len(chains[d]) {
				k = chains[d][pos[d]]
			}
			cell += k * ts.strides[d]
		}
		c := &t.Cells[cell]
		x := &ts.res.Extra[cell]
		c.Freq++
		c.Value += value * w
		c.Shadow += shadow * w
		c.Cost += cost * w
		c.Weight += weight
		x.Missing = x.Missing || missing
		if addKey {
			ts.keySum[cell] = (ts.keySum[cell] + key) % keyUnit
		}
		if ts.topN > 0 {
			table.InsertTop(c.TopN, x.TopWeight, math.Abs(shadow), weight)
		}
		if ts.keepMin {
			x.MinContribution = min(x.MinContribution, math.Abs(shadow))
		}
		if reqCode > 0 && (x.Request[0].Code == 0 || math.Abs(shadow) > x.Request[0].Max) {
			x.Request[0] = rules.Request{Max: math.Abs(shadow), Code: reqCode}
		}
		if ts.holdTopN > 0 {
			if int(ts.lastHold[cell]) != b.holdNo {
				if ts.lastHold[cell] != 0 {
					c.HoldingFreq++
					table.InsertTop(c.HoldingTopN, nil, math.Abs(ts.holdSum[cell]), 1)
				}
				ts.lastHold[cell] = int32(b.holdNo)
				ts.holdSum[cell] = 0
			}
			ts.holdSum[cell] += shadow
		}
		// Next combination (odometer over the chains, total included).
		d := len(chains) - 1
		for ; d >= 0; d-- {
			pos[d]++
			if pos[d] <= len(chains[d]) {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// finish flushes the last holding of every cell and sets costs that do not
// come from a variable.
func (b *builder) finish() {
	for _, ts := range b.tables {
		t := ts.res.Table
		for i := range t.Cells {
			c := &t.Cells[i]
			if ts.holdTopN > 0 && ts.lastHold[i] != 0 {
				c.HoldingFreq++
				table.InsertTop(c.HoldingTopN, nil, math.Abs(ts.holdSum[i]), 1)
			}
			if ts.keySum != nil {
				c.CellKey = float64(ts.keySum[i]) / keyUnit
			}
			if x := &ts.res.Extra[i]; ts.keepMin && c.Freq == 0 {
				x.MinContribution = 0
			}
			switch ts.spec.Cost.Kind {
			case table.CostResponse:
				c.Cost = c.Value
			case table.CostFrequency:
				c.Cost = float64(c.Freq)
			case table.CostUnity, table.CostDistance:
				c.Cost = 1
			}
		}
		ts.lastHold, ts.holdSum, ts.keySum = nil, nil, nil
	}
}

// Record keys. τ-Argus adds the keys of a cell's records in floating point,
// rounding the sum to 15 decimals and keeping its fractional part after
// every addition; here every key is read from its digits as an integer
// number of units 10^-15 and the sums are taken modulo 10^15, which gives
// the same cell keys exactly and in any record order.
const (
	keyDecimals = 15
	keyUnit     = 1_000_000_000_000_000 // 10^keyDecimals
	// keyZero is τ-Argus's threshold below which a response counts as zero
	// for the cell key without zero contributions.
	keyZero = numeric.CellKeyZero
)

// errKeyRange is the error of a record key outside [0,1).
var errKeyRange = errors.New("the record key is outside [0,1)")

// recordKey reads a record key written in decimal notation ("0.123",
// ".5", "0") or, as a fallback, in scientific notation, as a number of
// units 10^-15, rounding half up beyond the 15th decimal as τ-Argus's
// rounding of the sum does (a key rounding up to 1 counts as 0, the
// fractional part of 1). The message never quotes the value.
func recordKey(field []byte) (uint64, error) {
	s := strings.TrimSpace(string(field))
	if s == "" {
		return 0, errors.New("the record key is empty")
	}
	intPart, frac, hasPoint := strings.Cut(s, ".")
	plain := intPart != "" || hasPoint
	for _, c := range []byte(intPart + frac) {
		plain = plain && c >= '0' && c <= '9'
	}
	if hasPoint && intPart == "" && frac == "" {
		plain = false
	}
	if !plain {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) {
			return 0, errors.New("the record key is not a number")
		}
		if x < 0 || x >= 1 {
			return 0, errKeyRange
		}
		return uint64(math.Floor(x*keyUnit+0.5)) % keyUnit, nil
	}
	if strings.TrimLeft(intPart, "0") != "" {
		return 0, errKeyRange
	}
	var n uint64
	for i := range keyDecimals {
		n *= 10
		if i < len(frac) {
			n += uint64(frac[i] - '0')
		}
	}
	if len(frac) > keyDecimals && frac[keyDecimals] >= '5' {
		n++
	}
	return n % keyUnit, nil
}

// ApplyRules sets the status and protection levels of every cell of r.
func ApplyRules(r *Result, s *rules.Set) {
	t := r.Table
	for i := range t.Cells {
		c := &t.Cells[i]
		x := &r.Extra[i]
		rc := rules.Cell{Value: c.Value, Shadow: c.Shadow, Freq: c.Freq, HoldingFreq: c.HoldingFreq,
			WeightSum: c.Weight, Top: c.TopN, TopWeight: x.TopWeight, HoldingTop: c.HoldingTopN,
			Request: x.Request, Missing: x.Missing}
		st := s.Status(&rc)
		c.Status = st
		c.LowerPL, c.UpperPL = s.ProtectionLevels(&rc, st)
	}
}
