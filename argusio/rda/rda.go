// Package rda reads τ-Argus metadata files (.rda) for microdata (fixed and
// free format) and for tabular data (format: the τ-ARGUS user's manual (de Wolf et al., version 4.2)).
//
// The contract: [Parse] accepts exactly what τ-Argus 4.2.5 accepts
// (Metadata.readMicroMetadata / readTableMetadata followed by
// Metadata.verify) and rejects the rest with a *poserr.Error whose message
// is τ-Argus's own text. Where τ-Argus crashes with a Java runtime error
// (a non-numeric position, length or decimals; a keyword before the first
// variable in tabular metadata; a variable without any type keyword; more
// than ten hierarchical levels) Parse returns an error in our own words
// instead. The result is a typed [Metadata] in declaration order; every
// variable and every keyword occurrence keeps its file:line:column position.
//
// Overlapping fixed-format fields are not an error but produce [Warning]s,
// which τ-Argus writes to the logbook as "WARNING: <text>" (all overlaps in
// one message, joined by newlines) before continuing.
//
// Files referenced from the metadata are not opened here; [ResolveHierFile]
// implements τ-Argus's lookup rule for <HIERCODELIST> files.
//
// R workspace files that share the .rda extension (binary, usually
// compressed) are recognised by [IsRData] and rejected with [ErrRData].
package rda

import (
	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Origin says which kind of data a metadata file describes. τ-Argus decides
// it from the batch command that opened the data file, not from the .rda.
type Origin int

const (
	// Microdata metadata: variable lines carry positions and lengths.
	Microdata Origin = iota + 1
	// Tabular metadata: variable lines carry only a name and missing codes.
	Tabular
)

// String returns "microdata" or "tabular".
func (o Origin) String() string {
	switch o {
	case Microdata:
		return "microdata"
	case Tabular:
		return "tabular"
	}
	return "unknown origin"
}

// Format is the layout of the data file described by the metadata.
type Format int

const (
	// Fixed is fixed-column microdata (no <SEPARATOR> on line 1).
	Fixed Format = iota + 1
	// Free is separated data: microdata with <SEPARATOR> on line 1, and
	// every tabular file.
	Free
	// SPSS is an SPSS system file (<SPSS> on line 1 of microdata metadata).
	SPSS
)

// String returns "fixed", "free" or "SPSS".
func (f Format) String() string {
	switch f {
	case Fixed:
		return "fixed"
	case Free:
		return "free"
	case SPSS:
		return "SPSS"
	}
	return "unknown format"
}

// Kind is the role of a variable. It mirrors τ-Argus's variable types; the
// last keyword that sets a role wins, with the combinations described on
// each constant.
type Kind int

const (
	// NoKind: no role keyword was given (τ-Argus crashes on such a
	// variable; Parse reports an error).
	NoKind Kind = iota
	// Explanatory is a spanning (categorical) variable: <RECODEABLE>.
	Explanatory
	// Response is a numeric variable: <NUMERIC>.
	Response
	// ExplanatoryResponse is both (microdata: <RECODEABLE> and <NUMERIC>).
	ExplanatoryResponse
	// Weight is the sampling weight (microdata <WEIGHT>).
	Weight
	// Holding is the holding identifier (microdata <HOLDING>).
	Holding
	// Request is the request variable (microdata <REQUEST>).
	Request
	// RecordKey is the cell-key record key (microdata <RECORDKEY>).
	RecordKey
	// Shadow is the shadow value (tabular <NUMERIC> <SHADOW>).
	Shadow
	// Cost is the cost value (tabular <NUMERIC> <COST> or <COSTVAR>).
	Cost
	// LowerPL is the lower protection level (tabular <NUMERIC> <LOWERPL>).
	LowerPL
	// UpperPL is the upper protection level (tabular <NUMERIC> <UPPERPL>).
	UpperPL
	// Frequency is the number of contributors (tabular <FREQUENCY>).
	Frequency
	// TopN is one top-n contribution column (tabular <MAXSCORE>).
	TopN
	// Status is the status column (tabular <STATUS>).
	Status
)

var kindNames = [...]string{"none", "explanatory", "response", "explanatory+response", "weight", "holding", "request", "recordkey", "shadow", "cost", "lowerpl", "upperpl", "frequency", "topn", "status"}

// String returns a lower-case name of the kind.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown kind"
}

// IsExplanatory reports whether the kind spans tables (Explanatory or
// ExplanatoryResponse).
func (k Kind) IsExplanatory() bool { return k == Explanatory || k == ExplanatoryResponse }

// IsResponse reports whether the kind can be a cell value (Response or
// ExplanatoryResponse).
func (k Kind) IsResponse() bool { return k == Response || k == ExplanatoryResponse }

// IsNumeric reports whether values of this kind are numbers.
func (k Kind) IsNumeric() bool {
	switch k {
	case Response, ExplanatoryResponse, Weight, Shadow, Cost, LowerPL, UpperPL, Frequency, TopN:
		return true
	}
	return false
}

// Hierarchy says where a variable's hierarchy comes from.
type Hierarchy int

const (
	// NotHierarchical is a flat variable.
	NotHierarchical Hierarchy = iota
	// HierLevels derives the hierarchy from the digits of the code
	// (<HIERLEVELS>).
	HierLevels
	// HierFile reads the hierarchy from a .hrc file (<HIERARCHICAL> with
	// <HIERCODELIST> and <HIERLEADSTRING>).
	HierFile
)

// String returns "none", "levels" or "file".
func (h Hierarchy) String() string {
	switch h {
	case NotHierarchical:
		return "none"
	case HierLevels:
		return "levels"
	case HierFile:
		return "file"
	}
	return "unknown hierarchy"
}

// Limits taken from τ-Argus.
const (
	MaxMissing    = 2  // missing codes per variable
	MaxRequest    = 2  // request codes
	MaxDistance   = 5  // distance function values
	MaxHierLevels = 10 // <HIERLEVELS> digits groups
	MaxTopN       = 10 // <MAXSCORE> columns used by τ-Argus
)

// DefaultLeadString is the <HIERLEADSTRING> used when none is given.
const DefaultLeadString = "."

// DefaultTotalCode is the total label used in outputs when a variable has no
// <TOTCODE>.
const DefaultTotalCode = "Total"

// Metadata is the content of one .rda file.
type Metadata struct {
	File      string // file name given to Parse
	Origin    Origin
	Format    Format
	Separator string // field separator; ";" unless <SEPARATOR> was given

	// Status codes of tabular files (<SAFE>, <UNSAFE>, <PROTECT>); defaults
	// "S", "U", "P". They are compared as given; τ-Argus upper-cases only
	// the status values read from the .tab file.
	Safe, Unsafe, Protect string

	// GlobalPos holds the position of the last occurrence of each global
	// keyword (<SEPARATOR>, <SPSS>, <SAFE>, <UNSAFE>, <PROTECT>).
	GlobalPos map[string]poserr.Pos

	Variables []*Variable // in declaration order (= column order for free and tabular data)
	Warnings  []Warning
}

// Variable is one declared variable with everything its keywords set.
type Variable struct {
	Name string
	Pos  poserr.Pos // position of the declaration line
	Kind Kind

	// Start is the 1-based start column in fixed-format microdata (0
	// otherwise); Length the field length (microdata; tabular: the sum of
	// <HIERLEVELS>, else 0, i.e. derived from the data).
	Start, Length int

	// Missing holds up to two missing codes, left-padded with blanks to
	// Length; "" means none. Blank codes count as none.
	Missing [MaxMissing]string

	Decimals    int // <DECIMALS>
	TotCode     string
	CodeList    string // <CODELIST> file (stored only; never read in batch)
	Truncable   bool   // <TRUNCABLE>
	HasDistance bool
	Distance    [MaxDistance]int // <DISTANCE>, missing values filled in

	Hierarchy      Hierarchy
	HierLevels     []int  // <HIERLEVELS> widths as given (trailing zeros kept)
	HierFile       string // <HIERCODELIST> file name as written
	HierLeadString string // <HIERLEADSTRING>, default "."

	RequestCodes [MaxRequest]string // <REQUEST> codes ("" = absent)

	// CKM p-table files of a record key variable (<PFILE>/<PFILE_FREQ>,
	// <PFILE_CONT>, <PFILE_SEP>).
	PTableFile, PTableFileCont, PTableFileSep string

	CKM CKM // cell-key settings of a numeric variable

	// KeywordPos holds the position of the last occurrence of each keyword
	// given for this variable, keyed by the upper-case keyword ("<TOTCODE>").
	KeywordPos map[string]poserr.Pos
}

// CKM holds the cell-key method settings of a numeric microdata variable.
type CKM struct {
	// Type is "N" (not allowed, the default), "M", "D", "V" or "T".
	Type string
	// TopK is k of T(k); 1 for the other types.
	TopK int
	// IncludeZeros, Parity and Separation are the Y/N switches.
	IncludeZeros, Parity, Separation bool
	// Scaling is "F", "N" or "" (not given).
	Scaling string
	// Sigma0, Sigma1, XStar and Q are the scaling parameters; -1 = not given.
	Sigma0, Sigma1, XStar, Q float64
	// Epsilon holds epsilon_1..epsilon_TopK; Epsilon[0] is 1.
	Epsilon []float64
}

// Warning is a non-fatal finding, logged by τ-Argus as "WARNING: <Msg>".
type Warning struct {
	Pos poserr.Pos
	Msg string
}

// String formats the warning as "file:line: WARNING: msg".
func (w Warning) String() string { return w.Pos.String() + ": WARNING: " + w.Msg }

// TotalCode returns the label of the total: TotCode, or "Total" when none
// was given.
func (v *Variable) TotalCode() string {
	if v.TotCode == "" {
		return DefaultTotalCode
	}
	return v.TotCode
}

// NumMissing returns the number of missing codes declared.
func (v *Variable) NumMissing() int {
	n := 0
	for n < MaxMissing && v.Missing[n] != "" {
		n++
	}
	return n
}

// IsMissing reports whether code equals one of the declared missing codes.
func (v *Variable) IsMissing(code string) bool {
	for _, m := range v.Missing {
		if m != "" && m == code {
			return true
		}
	}
	return false
}

// Find returns the first variable whose name equals name ignoring case
// (τ-Argus's rule for every name lookup), or nil.
func (m *Metadata) Find(name string) *Variable {
	for _, v := range m.Variables {
		if charset.EqualFold(v.Name, name) {
			return v
		}
	}
	return nil
}

// Index returns the declaration index of the variable named name (ignoring
// case), or -1.
func (m *Metadata) Index(name string) int {
	for i, v := range m.Variables {
		if charset.EqualFold(v.Name, name) {
			return i
		}
	}
	return -1
}

// FirstOfKind returns the first variable of kind k, or nil.
func (m *Metadata) FirstOfKind(k Kind) *Variable {
	for _, v := range m.Variables {
		if v.Kind == k {
			return v
		}
	}
	return nil
}

// OfKind returns all variables of kind k in declaration order.
func (m *Metadata) OfKind(k Kind) []*Variable {
	var out []*Variable
	for _, v := range m.Variables {
		if v.Kind == k {
			out = append(out, v)
		}
	}
	return out
}

// Explanatory returns the explanatory variables in declaration order.
func (m *Metadata) Explanatory() []*Variable {
	var out []*Variable
	for _, v := range m.Variables {
		if v.Kind.IsExplanatory() {
			out = append(out, v)
		}
	}
	return out
}

// count returns the number of variables of kind k.
func (m *Metadata) count(k Kind) int {
	n := 0
	for _, v := range m.Variables {
		if v.Kind == k {
			n++
		}
	}
	return n
}
