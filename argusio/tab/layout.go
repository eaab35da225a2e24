package tab

import (
	"fmt"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
)

// Role is what a column of a .tab file holds; it follows from the keywords
// of the variable in the .rda.
type Role int

// Column roles.
const (
	Code      Role = iota // <RECODEABLE>: explanatory variable
	Response              // <NUMERIC>: cell value
	Shadow                // <NUMERIC> <SHADOW>
	Cost                  // <NUMERIC> <COST> or <COSTVAR>
	Frequency             // <FREQUENCY>: number of contributors
	TopN                  // <MAXSCORE>: 1st declared = largest contribution
	Status                // <STATUS>
	LowerPL               // <NUMERIC> <LOWERPL>
	UpperPL               // <NUMERIC> <UPPERPL>
	Skip                  // a column read and ignored (no τ-Argus equivalent)
)

// String returns the name of the role.
func (r Role) String() string {
	switch r {
	case Code:
		return "code"
	case Response:
		return "response"
	case Shadow:
		return "shadow"
	case Cost:
		return "cost"
	case Frequency:
		return "frequency"
	case TopN:
		return "top-n"
	case Status:
		return "status"
	case LowerPL:
		return "lower protection level"
	case UpperPL:
		return "upper protection level"
	case Skip:
		return "skip"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Column describes one column of a .tab file, i.e. one variable of the
// .rda, in declaration order.
type Column struct {
	Name string // variable name, used in messages
	Role Role
	// TotalCode is the <TOTCODE> of a Code column.
	TotalCode string
	// Missing1 and Missing2 are the missing codes of a Code column, as
	// declared; empty means none.
	Missing1, Missing2 string
	// Length is the code length of a Code column: codes of non-hierarchical
	// variables are left-padded with blanks to it. Derive it with
	// [CodeLengths] (or, for .hrc variables, from the hierarchy's width).
	Length int
	// Hierarchical is true for <HIERARCHICAL> and <HIERLEVELS> variables,
	// whose codes are used as written (not padded).
	Hierarchical bool
	// Decimals is the <DECIMALS> of the variable (informative).
	Decimals int
}

// Normalise returns the code τ-Argus uses for a raw field value of a Code
// column: non-empty codes of non-hierarchical variables are left-padded with
// blanks to Length (Variable.normaliseCode).
func (c *Column) Normalise(raw string) string {
	if raw == "" || c.Hierarchical || len(raw) >= c.Length {
		return raw
	}
	return strings.Repeat(" ", c.Length-len(raw)) + raw
}

// IsTotal reports whether a raw field value denotes the total when cells are
// read: equal to the total code (case-sensitive, after trimming) or empty
// (Variable.isTotalCode2).
func (c *Column) IsTotal(raw string) bool {
	t := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	return t == "" || t == c.TotalCode
}

// IsTotalFold reports whether a raw field value is the total code compared
// case-insensitively (Variable.isTotalCode), the test τ-Argus applies when it
// collects the code lists in a first pass. An empty value is not a total
// there.
func (c *Column) IsTotalFold(raw string) bool {
	return charset.EqualFold(raw, c.TotalCode) // not strings.EqualFold: it reads every Latin-1 byte as U+FFFD
}

// IsMissing reports whether a raw field value equals a declared missing code
// (Variable.isMissing); τ-Argus skips such lines when it collects the code
// lists.
func (c *Column) IsMissing(raw string) bool {
	return (c.Missing1 != "" && raw == c.Missing1) || (c.Missing2 != "" && raw == c.Missing2)
}

// Defaults of the tabular metadata (§4.3).
const (
	DefaultSeparator    = ";"
	DefaultSafe         = "S"
	DefaultUnsafe       = "U"
	DefaultProtect      = "P"
	DefaultManualMargin = 20
	// MaxTopN is the largest number of <MAXSCORE> columns τ-Argus supports.
	MaxTopN = 10
)

// Layout describes a .tab file and how its cells are to be checked.
type Layout struct {
	// Separator is the <SEPARATOR> of the .rda; empty means ";".
	Separator string
	// Safe, Unsafe and Protect are the status letters of <SAFE>, <UNSAFE>
	// and <PROTECT>; empty means "S", "U" and "P". Status values read are
	// upper-cased before the comparison, these codes are not (so lower-case
	// codes never match, as in τ-Argus).
	Safe, Unsafe, Protect string
	// Columns are the variables of the .rda in declaration order.
	Columns []Column
	// ExtraFields accepts fields after the declared ones, which are
	// ignored: τ-Argus's type-5 output with AR+ appends six audit columns
	// its .rda lists only in comments ("cannot be read back into
	// TauArgus"). Without it such a line is an error ([ErrFieldCount]).
	ExtraFields bool
	// FrequencyTable is true when <SPECIFYTABLE> names "<freq>" as the
	// response: the cell value is then the frequency column.
	FrequencyTable bool
	// StatusOnly is true when the table uses the statuses of the file
	// (empty <SAFETYRULE>, only MAN rules, or <READTABLE> right after
	// <SPECIFYTABLE>); otherwise the statuses read are discarded for
	// non-empty cells.
	StatusOnly bool
	// ManualMargin is the MAN percentage used for default protection levels
	// of unsafe-manual cells. τ-Argus's default is DefaultManualMargin.
	ManualMargin int
	// Cover is τ-Argus's internal cover-table mode (<COVER>): status E is
	// read as protected with frequency 1.
	Cover bool
}

// withDefaults returns l with the documented defaults filled in.
func (l Layout) withDefaults() Layout {
	if l.Separator == "" {
		l.Separator = DefaultSeparator
	}
	if l.Safe == "" {
		l.Safe = DefaultSafe
	}
	if l.Unsafe == "" {
		l.Unsafe = DefaultUnsafe
	}
	if l.Protect == "" {
		l.Protect = DefaultProtect
	}
	return l
}

// validate checks the layout for what τ-Argus's metadata check would reject
// or what would crash its reader.
func (l *Layout) validate() error {
	if len(l.Columns) == 0 {
		return fmt.Errorf("no columns")
	}
	nCode, nTop, nResp, nFreq := 0, 0, 0, 0
	for _, c := range l.Columns {
		switch c.Role {
		case Code:
			nCode++
		case TopN:
			nTop++
		case Response:
			nResp++
		case Frequency:
			nFreq++
		case Shadow, Cost, Status, LowerPL, UpperPL, Skip:
		default:
			return fmt.Errorf("column %s: unknown role %d", c.Name, c.Role)
		}
	}
	switch {
	case nCode == 0:
		return fmt.Errorf("no explanatory (code) column")
	case nTop > MaxTopN:
		return fmt.Errorf("%d top-n columns; at most %d are supported", nTop, MaxTopN)
	case l.FrequencyTable && nFreq == 0:
		return fmt.Errorf("frequency table without a frequency column")
	case nResp == 0 && nFreq == 0:
		return fmt.Errorf("no response and no frequency column")
	}
	return nil
}
