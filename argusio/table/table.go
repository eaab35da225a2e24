// Package table is the τ-Argus table model shared by the whole engine: the
// table builder fills it, the safety rules set statuses and protection
// levels in it, the protection methods add secondary suppressions or
// rounded / adjusted / perturbed values, and the writers of argusio/output
// and argusio/jj read it. It is a plain data model: no I/O, no rules.
//
// The contract, following docs/formats.md §5.3–5.6 and §13:
//
//   - A table has up to 10 explanatory dimensions (τ-Argus's MAXDIM). Each
//     [Dimension] lists its codes in τ-Argus output order: index 0 is the
//     total, then the codes in code-list order (sorted codes, or .hrc file
//     order for hierarchies, each parent directly followed by its
//     descendants), declared missing codes last.
//   - Codes are stored exactly as τ-Argus stores them, padding blanks
//     included (" 1", "      12"); the total is stored as "" and shown as
//     the <TOTCODE> value or "Total".
//   - The cells are dense and row-major over the dimension code lists, the
//     last dimension varying fastest; [Table.Index] and [Table.Coords]
//     convert between a cell number and its code-index tuple.
//   - Per cell the model holds what the rules, the methods and the writers
//     need: value, shadow, cost, frequencies, top-n contributions, [Status],
//     protection levels, a-priori and audit bounds and the optional results
//     of rounding, CTA and the cell-key method.
//
// [Table.Validate] checks the structural invariants the writers rely on;
// nothing in this package panics on any input.
package table

import (
	"errors"
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// MaxDims is the maximum number of explanatory dimensions of a table
// (τ-Argus TableSet.MAX_EXP_VAR, engine MAXDIM).
const MaxDims = 10

// DefaultTotalLabel is the label τ-Argus shows for a total when the variable
// has no <TOTCODE> value.
const DefaultTotalLabel = "Total"

// DefaultMaxScaledCost is the largest scaled cost of the JJ format (and the
// default of the MOD "MSC" parameter).
const DefaultMaxScaledCost = 20000

// HierarchyKind tells how the hierarchy of a dimension is defined.
type HierarchyKind uint8

// The hierarchy kinds.
const (
	HierNone   HierarchyKind = iota // flat: the total and its children
	HierLevels                      // <HIERLEVELS> digit groups
	HierFile                        // <HIERCODELIST> .hrc file
)

// Code is one code of a dimension.
type Code struct {
	// Label is the code exactly as τ-Argus stores it, padding blanks
	// included (" 1", "Os"). It is "" for the total (index 0).
	Label string
	// Parent is the index of the parent code: -1 for the total, 0 for codes
	// at level 1.
	Parent int
	// Level is the depth in the hierarchy: 0 for the total, 1 for its
	// children, and so on. Flat dimensions have only levels 0 and 1; declared
	// missing codes are at level 1.
	Level int
	// Trivial marks a code that is the only child of its parent: a trivial
	// ("bogus") hierarchy level, whose cells equal those of the parent. Only
	// meaningful for hierarchical dimensions (the TR+ option of the JJ
	// writer, a-priori ExpandTrivial).
	Trivial bool
	// Missing marks a declared missing code (always the last codes).
	Missing bool
}

// Dimension is one explanatory variable of a table with its code list.
type Dimension struct {
	// Name is the variable name as given in the metadata.
	Name string
	// TotalCode is the <TOTCODE> value shown for the total; "" means
	// DefaultTotalLabel.
	TotalCode string
	// Codes lists the codes in output order (§5.6); Codes[0] is the total.
	Codes []Code
	// Hierarchy tells how the hierarchy is defined.
	Hierarchy HierarchyKind
	// HierLevels holds the digit-group widths of a HierLevels hierarchy.
	HierLevels []int
	// HierFile is the hierarchy file of a HierFile hierarchy, as it is to be
	// written into generated metadata.
	HierFile string
	// LeadString is the <HIERLEADSTRING> of a HierFile hierarchy.
	LeadString string
	// CodelistFile is the <CODELIST> file as it is to be written into
	// generated metadata; "" if none.
	CodelistFile string
	// Distance holds the five <DISTANCE> values; nil if none were given.
	Distance []int
	// MissingCodes are the declared missing codes as written in the metadata
	// (not padded); they are echoed on the variable line of generated
	// metadata.
	MissingCodes []string
	// Recoded tells that the code list is the result of a recode; a
	// hierarchical recoded dimension gets a fresh .hrc file in intermediate
	// output.
	Recoded bool
	// MetaIndex is the 0-based index of the variable among all variables of
	// its metadata; τ-Argus uses it to name the hierarchy file written for a
	// recoded variable ("<base><index>_New.HRC").
	MetaIndex int
}

// Len returns the number of codes, the total included.
func (d *Dimension) Len() int { return len(d.Codes) }

// Hierarchical reports whether the dimension has a hierarchy.
func (d *Dimension) Hierarchical() bool { return d.Hierarchy != HierNone }

// TotalLabel returns the label shown for the total: TotalCode, or
// DefaultTotalLabel if that is empty.
func (d *Dimension) TotalLabel() string {
	if d.TotalCode == "" {
		return DefaultTotalLabel
	}
	return d.TotalCode
}

// Label returns the label τ-Argus writes for code i: the total label for
// index 0 (and for any code stored as ""), the stored code otherwise. It
// returns "" for an index out of range.
func (d *Dimension) Label(i int) string {
	if i < 0 || i >= len(d.Codes) {
		return ""
	}
	if i == 0 || d.Codes[i].Label == "" {
		return d.TotalLabel()
	}
	return d.Codes[i].Label
}

// Children returns the indices of the direct children of code i, in code
// order. The total's children are the codes at level 1.
func (d *Dimension) Children(i int) []int {
	var out []int
	for j := i + 1; j < len(d.Codes); j++ {
		if d.Codes[j].Parent == i {
			out = append(out, j)
		}
	}
	return out
}

// IsParent reports whether code i has at least one child.
func (d *Dimension) IsParent(i int) bool {
	return i+1 < len(d.Codes) && i >= 0 && d.Codes[i+1].Parent == i
}

// MaxLevel returns the deepest level of the code list.
func (d *Dimension) MaxLevel() int {
	m := 0
	for _, c := range d.Codes {
		if c.Level > m {
			m = c.Level
		}
	}
	return m
}

// FrequencyKind tells whether a table counts contributors.
type FrequencyKind uint8

// The frequency kinds.
const (
	// Magnitude: the response is a numeric variable.
	Magnitude FrequencyKind = iota
	// FrequencyMicrodata: a "<freq>" table built from microdata; τ-Argus's
	// built-in count variable is the response. Several writers treat it
	// specially (header "Freq", no frequency and shadow columns in
	// intermediate output).
	FrequencyMicrodata
	// FrequencyTabular: a "<freq>" table read from a .tab file; the
	// <FREQUENCY> column is the response. τ-Argus's writers treat it like a
	// magnitude table whose response is that column.
	FrequencyTabular
)

// CostKind is the cost function of a table (<SPECIFYTABLE> cost field).
type CostKind uint8

// The cost functions.
const (
	// CostResponse: no cost given; the response is the cost variable.
	CostResponse CostKind = iota
	// CostVariable: a named numeric cost variable.
	CostVariable
	// CostFrequency: cost -1, the cell frequency.
	CostFrequency
	// CostUnity: cost -2, every cell costs 1.
	CostUnity
	// CostDistance: cost -3, distance cost (every cell 1 in the cell data).
	CostDistance
)

// Method is the protection method whose result a table holds.
type Method uint8

// The protection methods.
const (
	MethodNone        Method = iota // primary statuses only
	MethodSuppression               // secondary cell suppression (GH, MOD, OPT, NET)
	MethodRounding                  // controlled rounding (RND)
	MethodCTA                       // controlled tabular adjustment
	MethodCKM                       // cell-key method
	MethodInterval                  // interval protection (IP)
)

var methodNames = [...]string{"none", "suppression", "rounding", "CTA", "CKM", "IP"}

// String returns a short name of the method.
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Variable names a numeric variable of a table.
type Variable struct {
	// Name is the variable name.
	Name string
	// Decimals is the number of decimals of the variable (<DECIMALS>); the
	// writers format values with it. Frequency tables use 0.
	Decimals int
}

// Cost describes the cost function of a table.
type Cost struct {
	// Kind is the cost function.
	Kind CostKind
	// Name is the cost variable for CostVariable.
	Name string
	// Lambda is the exponent of the λ transform: the cost used by solvers
	// is cost^λ for λ > 0 and ln(cost+1) for λ = 0. The zero value of Cost
	// has Lambda 0; use [NewCost] or set 1 explicitly for the default.
	Lambda float64
	// MaxScaledCost is the largest scaled cost of the JJ format; 0 means
	// DefaultMaxScaledCost.
	MaxScaledCost float64
}

// NewCost returns a cost description with λ = 1 and the default scaling.
func NewCost(kind CostKind, name string) Cost {
	return Cost{Kind: kind, Name: name, Lambda: 1, MaxScaledCost: DefaultMaxScaledCost}
}

// Rules summarises the safety rules of a table as far as outputs need them.
type Rules struct {
	// PRule tells that a p% rule is active (SBS letter F, two percentages).
	PRule bool
	// DominanceRule tells that an (n,k)-dominance rule is active.
	DominanceRule bool
	// TopN is the number of individual top contributions kept per cell
	// (max over P rules of n+1 and over NK rules of n).
	TopN int
	// HoldingTopN is the number of holding-level top contributions kept.
	HoldingTopN int
	// Holding tells that holding (enterprise group) rules are used.
	Holding bool
}

// SBSCode returns τ-Argus's classification of the kept top contributions
// used by the SBS writer: 1 none kept, 2 one individual, 3 several
// individual, 4 one holding, 5 several holding (holding wins).
func (r Rules) SBSCode() int {
	code := 0
	if r.TopN == 0 && r.HoldingTopN == 0 {
		code = 1
	}
	if r.TopN == 1 {
		code = 2
	}
	if r.TopN > 1 {
		code = 3
	}
	if r.HoldingTopN == 1 {
		code = 4
	}
	if r.HoldingTopN > 1 {
		code = 5
	}
	return code
}

// Cell is one cell of a table.
type Cell struct {
	// Value is the response total (weighted if weights are applied).
	Value float64
	// Shadow is the shadow-variable total on which the rules work.
	Shadow float64
	// Cost is the raw cost total, before the λ transform (see
	// [Table.CostValue]).
	Cost float64
	// Weight is the sum of the record weights (1 per record without
	// weights).
	Weight float64
	// Freq is the number of contributing records.
	Freq int64
	// HoldingFreq is the number of contributing holdings (0 without
	// holdings).
	HoldingFreq int64
	// TopN holds the largest absolute shadow contributions of individual
	// records, decreasing; missing slots are 0.
	TopN []float64
	// HoldingTopN holds the largest holding-level contributions.
	HoldingTopN []float64
	// Status is the cell status.
	Status cellstatus.Status
	// LowerPL and UpperPL are the lower and upper protection levels, as
	// distances from Value.
	LowerPL, UpperPL float64
	// HasApriori tells that AprioriLower and AprioriUpper are set.
	HasApriori bool
	// AprioriLower and AprioriUpper are a-priori bounds on the cell value.
	AprioriLower, AprioriUpper float64
	// RealizedLower and RealizedUpper are the bounds an intruder can
	// compute for the published table (the audit), valid when the table is
	// Audited.
	RealizedLower, RealizedUpper float64
	// Rounded is the rounded value (MethodRounding).
	Rounded float64
	// Adjusted is the CTA-adjusted value (MethodCTA).
	Adjusted float64
	// Perturbed is the cell-key perturbed value (MethodCKM).
	Perturbed float64
	// IntervalLower and IntervalUpper are the published interval
	// (MethodInterval); equal to Value for a cell published exactly.
	IntervalLower, IntervalUpper float64
	// CellKey is the cell key (fractional part of the sum of record keys, or
	// the variant over records with non-zero response, as the table
	// requires).
	CellKey float64
}

// Table is a τ-Argus table.
type Table struct {
	// Dims are the explanatory dimensions in table order.
	Dims []Dimension
	// Response is the response variable. For a FrequencyMicrodata table
	// τ-Argus shows the built-in count variable as "Freq".
	Response Variable
	// Frequency tells whether and how the table counts contributors.
	Frequency FrequencyKind
	// ShadowName is the shadow variable; "" when none was given (the
	// response is the shadow).
	ShadowName string
	// Cost is the cost function.
	Cost Cost
	// CellKey is the record-key variable of the cell-key method and its
	// decimals (for the AC+ option); zero value if none.
	CellKey Variable
	// Rules summarises the safety rules.
	Rules Rules
	// Method is the protection method whose result the cells hold.
	Method Method
	// Audited tells that the cells' realised bounds are valid.
	Audited bool
	// Cells are the cells in row-major order over the dimensions' code
	// lists, the last dimension varying fastest.
	Cells []Cell
}

// IsFrequency reports whether the table counts contributors.
func (t *Table) IsFrequency() bool { return t.Frequency != Magnitude }

// Shape returns the number of codes of every dimension.
func (t *Table) Shape() []int {
	s := make([]int, len(t.Dims))
	for i := range t.Dims {
		s[i] = len(t.Dims[i].Codes)
	}
	return s
}

// Size returns the number of cells the dimensions span, or -1 if that
// number overflows an int or a dimension is empty.
func (t *Table) Size() int {
	if len(t.Dims) == 0 {
		return -1
	}
	n := 1
	for i := range t.Dims {
		k := len(t.Dims[i].Codes)
		if k == 0 || n > math.MaxInt/k {
			return -1
		}
		n *= k
	}
	return n
}

// Index returns the cell number of the code-index tuple idx, or -1 if idx has
// the wrong length or an index out of range.
func (t *Table) Index(idx []int) int {
	if len(idx) != len(t.Dims) {
		return -1
	}
	c := 0
	for d := range t.Dims {
		n := len(t.Dims[d].Codes)
		if idx[d] < 0 || idx[d] >= n {
			return -1
		}
		c = c*n + idx[d]
	}
	return c
}

// Coords writes the code-index tuple of cell number c into dst (grown or
// allocated as needed) and returns it. It returns nil if c is out of range.
func (t *Table) Coords(c int, dst []int) []int {
	size := t.Size()
	if c < 0 || size < 0 || c >= size {
		return nil
	}
	if cap(dst) < len(t.Dims) {
		dst = make([]int, len(t.Dims))
	}
	dst = dst[:len(t.Dims)]
	for d := len(t.Dims) - 1; d >= 0; d-- {
		n := len(t.Dims[d].Codes)
		dst[d] = c % n
		c /= n
	}
	return dst
}

// Cell returns a pointer to the cell at code-index tuple idx, or nil if idx
// is invalid or the cells are not allocated.
func (t *Table) Cell(idx []int) *Cell {
	c := t.Index(idx)
	if c < 0 || c >= len(t.Cells) {
		return nil
	}
	return &t.Cells[c]
}

// Alloc allocates the cells for the current dimensions, all with status
// Empty. It fails if the dimensions are invalid.
func (t *Table) Alloc() error {
	if err := t.validateDims(); err != nil {
		return err
	}
	size := t.Size()
	t.Cells = make([]Cell, size)
	for i := range t.Cells {
		t.Cells[i].Status = cellstatus.Empty
	}
	return nil
}

// CostValue returns the cost of cell c after the λ transform: cost^λ for
// λ > 0 (cost itself for λ = 1) and ln(cost+1) for λ = 0.
func (t *Table) CostValue(c *Cell) float64 {
	l := t.Cost.Lambda
	switch {
	case l == 1:
		return c.Cost
	case l == 0:
		return math.Log(c.Cost + 1)
	}
	return math.Pow(c.Cost, l)
}

// MaxScaledCost returns Cost.MaxScaledCost, or DefaultMaxScaledCost if that
// is not positive.
func (t *Table) MaxScaledCost() float64 {
	if t.Cost.MaxScaledCost > 0 {
		return t.Cost.MaxScaledCost
	}
	return DefaultMaxScaledCost
}

// PublishedValue returns the value the protection method publishes for cell
// c: the rounded, adjusted or perturbed value for those methods, the cell
// value otherwise.
func (t *Table) PublishedValue(c *Cell) float64 {
	switch t.Method {
	case MethodRounding:
		return c.Rounded
	case MethodCTA:
		return c.Adjusted
	case MethodCKM:
		return c.Perturbed
	}
	return c.Value
}

// Errors returned by [Table.Validate], wrapped with context.
var (
	ErrNoDims      = errors.New("table has no dimensions")
	ErrTooManyDims = errors.New("table has more than 10 dimensions")
	ErrBadCodes    = errors.New("invalid code list")
	ErrBadCells    = errors.New("invalid cells")
)

// Validate checks the invariants the writers rely on: 1–10 dimensions, each
// with a total at index 0 and a consistent hierarchy (every code's parent
// precedes it, its level is the parent's plus one, descendants directly
// follow their ancestor, flat dimensions have only levels 0 and 1), a cell
// slice of the right length, statuses in 0–14, and decimals in 0–30.
func (t *Table) Validate() error {
	if err := t.validateDims(); err != nil {
		return err
	}
	if size := t.Size(); len(t.Cells) != size {
		return fmt.Errorf("%w: %d cells for %d code combinations", ErrBadCells, len(t.Cells), size)
	}
	for i := range t.Cells {
		if t.Cells[i].Status > cellstatus.Max {
			return fmt.Errorf("%w: cell %d has status %d", ErrBadCells, i, t.Cells[i].Status)
		}
	}
	if t.Response.Decimals < 0 || t.Response.Decimals > 30 {
		return fmt.Errorf("%w: response %q has %d decimals", ErrBadCells, t.Response.Name, t.Response.Decimals)
	}
	if t.CellKey.Decimals < 0 || t.CellKey.Decimals > 30 {
		return fmt.Errorf("%w: cell key %q has %d decimals", ErrBadCells, t.CellKey.Name, t.CellKey.Decimals)
	}
	return nil
}

func (t *Table) validateDims() error {
	if len(t.Dims) == 0 {
		return ErrNoDims
	}
	if len(t.Dims) > MaxDims {
		return ErrTooManyDims
	}
	for d := range t.Dims {
		if err := t.Dims[d].Validate(); err != nil {
			return fmt.Errorf("dimension %d (%s): %w", d+1, t.Dims[d].Name, err)
		}
	}
	if t.Size() < 0 {
		return fmt.Errorf("%w: too many cells", ErrBadCells)
	}
	return nil
}

// Validate checks the code list of one dimension (see [Table.Validate]).
func (d *Dimension) Validate() error {
	if len(d.Codes) == 0 {
		return fmt.Errorf("%w: no codes", ErrBadCodes)
	}
	if c := d.Codes[0]; c.Level != 0 || c.Parent != -1 {
		return fmt.Errorf("%w: code 0 is not a total (level %d, parent %d)", ErrBadCodes, c.Level, c.Parent)
	}
	// ancestors[l] is the index of the latest code at level l.
	ancestors := []int{0}
	for i := 1; i < len(d.Codes); i++ {
		c := d.Codes[i]
		if c.Level < 1 || c.Level > len(ancestors) {
			return fmt.Errorf("%w: code %d (%q) jumps to level %d", ErrBadCodes, i, c.Label, c.Level)
		}
		if !d.Hierarchical() && c.Level != 1 {
			return fmt.Errorf("%w: code %d (%q) has level %d in a flat dimension", ErrBadCodes, i, c.Label, c.Level)
		}
		if c.Parent != ancestors[c.Level-1] {
			return fmt.Errorf("%w: code %d (%q) has parent %d, want %d", ErrBadCodes, i, c.Label, c.Parent, ancestors[c.Level-1])
		}
		ancestors = append(ancestors[:c.Level], i)
	}
	return nil
}

// MarkTrivial sets Code.Trivial as the τ-Argus engine does
// (CVariable::SetHierarch): children are counted among the non-missing
// codes, and the only non-missing child of a parent — the total included —
// is trivial. Missing codes are never trivial. Flat dimensions get no
// trivial codes.
func (d *Dimension) MarkTrivial() {
	n := make([]int, len(d.Codes))
	for i := 1; i < len(d.Codes); i++ {
		if p := d.Codes[i].Parent; p >= 0 && p < len(n) && !d.Codes[i].Missing {
			n[p]++
		}
	}
	for i := range d.Codes {
		p := d.Codes[i].Parent
		d.Codes[i].Trivial = d.Hierarchical() && i > 0 && !d.Codes[i].Missing &&
			p >= 0 && p < len(n) && n[p] == 1
	}
}

// NumTrivial returns the number of trivial codes of a hierarchical
// dimension (0 for a flat one).
func (d *Dimension) NumTrivial() int {
	if !d.Hierarchical() {
		return 0
	}
	k := 0
	for _, c := range d.Codes {
		if c.Trivial {
			k++
		}
	}
	return k
}

// InsertTop inserts the contribution x (with its weight w, when weights is
// not nil) into the decreasing list top (and its weights), dropping the
// smallest; x no larger than every entry leaves the lists as they are.
func InsertTop(top, weights []float64, x, w float64) {
	i := len(top)
	for i > 0 && top[i-1] < x {
		i--
	}
	if i == len(top) {
		return
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = x
	if weights != nil {
		copy(weights[i+1:], weights[i:len(weights)-1])
		weights[i] = w
	}
}

// MergeTop merges the decreasing list b of top contributions (with their
// weights bw, if any) into the decreasing list a (with weights aw, or nil),
// keeping the len(a) largest, as τ-Argus's engine merges a cell's
// contributions into its total's (CDataCell::MergeScore).
func MergeTop(a, aw, b, bw []float64) {
	n := len(a)
	ai := 0
	for i := 0; i < len(b) && ai < n; {
		if b[i] > a[ai] {
			copy(a[ai+1:], a[ai:n-1])
			a[ai] = b[i]
			if aw != nil && len(aw) == n {
				copy(aw[ai+1:], aw[ai:n-1])
				aw[ai] = 0
				if i < len(bw) {
					aw[ai] = bw[i]
				}
			}
			i++
		}
		ai++
	}
}
