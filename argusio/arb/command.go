// Package arb reads τ-Argus batch files (.arb), as specified in
// docs/formats.md §3.
//
// The contract: [Parse] takes a batch file apart line by line with the
// τ-Argus tokenizer (package lex) and returns one typed [Command] per
// command line, with the syntax checks τ-Argus performs while reading the
// arguments and τ-Argus's error texts. Checks that need the run-time state
// (number of tables, metadata, existing files, solver licences, whether a
// table is a frequency table) are left to the batch engine; the types and
// helpers here say which ones ([SafetyRule.CheckFrequencyTable],
// [CKMArgs.Parse], [Resolver]). The arguments of <SUPPRESS> after the table
// number are kept as written, with their positions ([Suppress.Args]): what
// they mean, and τ-Argus's checks of them, belong to the method's parameter
// schema, which the batch engine applies.
//
// τ-Argus executes each line before it reads the next one, so a malformed
// line only stops the run when it is reached. Parse therefore returns, with
// a parse error, the commands of all lines before the bad one: executing
// them and then reporting the error reproduces τ-Argus's behaviour
// (including the logbook: τ-Argus logs every command line, the bad one
// too, before executing it). Lines after <GOINTERACTIVE> are never read.
//
// The ordering rules of §3.2 are a separate state machine, [Order], which
// the engine drives command by command (it is also what [Job.CheckOrder]
// uses to validate a whole job up front).
//
// Deliberate deviations from τ-Argus 4.2.5, each reported as a [Warning]:
// a "|lambda" suffix after the cost field of <SPECIFYTABLE> (piargus and
// τ-Argus's own batch generator write it) is read as lambda; a legacy
// numeric option field of <WRITETABLE> (τ-Argus 3.5 syntax, written by
// SAS2Argus) is ignored; <APRIORI> with nothing after the separator uses the
// defaults. Where τ-Argus crashes with a Java runtime error (a non-numeric
// integer, a missing separator inside an argument list) Parse returns a
// *poserr.Error in our own words.
package arb

import "github.com/sdcengine/argus/argusio/poserr"

// Header is what every command has: its keyword, where it is and the text
// τ-Argus logs for it.
type Header struct {
	// Keyword is the first token of the line as τ-Argus compares it,
	// upper-cased ("<SUPPRESS>"); for a comment line it is the token
	// starting with `\\`.
	Keyword string
	// Pos is the position of the keyword.
	Pos poserr.Pos
	// Line is the whole command line, tabs replaced by blanks and
	// stripped; τ-Argus writes exactly this to the logbook before
	// executing the command.
	Line string
}

// Head returns the header; it makes every *Header-embedding type a Command.
func (h *Header) Head() *Header { return h }

// Command is one parsed batch command: a pointer to one of the types of this
// package ([Comment], [Logbook], [VersionInfo], [OpenMicrodata],
// [OpenTableData], [OpenMetadata], [SpecifyTable], [SafetyRule],
// [ReadMicrodata], [ReadTable], [Apriori], [Suppress], [WriteTable],
// [Recode], [Solver], [Clear], [GoInteractive], [Cover], [Anco], [JJ],
// [Confidential]).
type Command interface {
	Head() *Header
}

// Warning is a non-fatal finding of the parser, typically input that
// τ-Argus 4.2.5 rejects but that real clients write and that is accepted
// here.
type Warning struct {
	Pos poserr.Pos
	Msg string
}

// String formats the warning as "file:line:col: warning: msg".
func (w Warning) String() string { return w.Pos.String() + ": warning: " + w.Msg }

// Job is a parsed batch file.
type Job struct {
	File     string    // name given to Parse
	Commands []Command // in file order
	Warnings []Warning
}

// Comment is a line whose first token starts with `\\` (a comment that
// τ-Argus still logs). Lines starting with "//" never become commands.
type Comment struct{ Header }

// Logbook is <LOGBOOK> file: from now on messages go to File (the rest of
// the line with one pair of surrounding quotes removed; relative names are
// relative to the working directory).
type Logbook struct {
	Header
	File string
}

// VersionInfo is <VERSIONINFO> file: write the version line (see package
// logbook) to File, resolved with [Resolver.Output].
type VersionInfo struct {
	Header
	File string
}

// OpenMicrodata is <OPENMICRODATA> file (one token; resolve with
// [Resolver.Input]).
type OpenMicrodata struct {
	Header
	File string
}

// OpenTableData is <OPENTABLEDATA> file (one token; resolve with
// [Resolver.Input]).
type OpenTableData struct {
	Header
	File string
}

// OpenMetadata is <OPENMETADATA> file (one token; resolve with
// [Resolver.Input]); it is read as microdata or tabular metadata according
// to the preceding open command.
type OpenMetadata struct {
	Header
	File string
}

// CostKind says how the cost of a table is defined.
type CostKind int

const (
	// CostDefault: no cost given; the response variable (frequency cost
	// for frequency tables).
	CostDefault CostKind = iota
	// CostVariable: the numeric variable named in SpecifyTable.CostVar.
	CostVariable
	// CostFrequency is "-1".
	CostFrequency
	// CostUnity is "-2" (every cell costs 1).
	CostUnity
	// CostDistance is "-3" (distance function of the metadata).
	CostDistance
)

// String returns a short name of the cost kind.
func (k CostKind) String() string {
	switch k {
	case CostDefault:
		return "default"
	case CostVariable:
		return "variable"
	case CostFrequency:
		return "frequency(-1)"
	case CostUnity:
		return "unity(-2)"
	case CostDistance:
		return "distance(-3)"
	}
	return "unknown cost"
}

// FreqResponse is the response name that makes a frequency table (compared
// ignoring case).
const FreqResponse = "<FREQ>"

// SpecifyTable is <SPECIFYTABLE> "e1""e2"...|resp[|shadow[|cost[,lambda]]].
// Variable names are as written; τ-Argus matches them ignoring case against
// the metadata opened last.
type SpecifyTable struct {
	Header
	Explanatory []string
	// Response is the response variable name; for a frequency table it is
	// the text as written (any case of "<freq>") and FreqTable is true.
	Response  string
	FreqTable bool
	// Shadow is the shadow variable, "" for none (shadow = response).
	Shadow string
	// Cost and CostVar define the cost function.
	Cost    CostKind
	CostVar string
	// Lambda is the cost exponent, 1 unless given (HasLambda).
	Lambda    float64
	HasLambda bool
}

// MaxDimensions is the largest number of explanatory variables of a table.
const MaxDimensions = 10

// ReadMicrodata is <READMICRODATA>.
type ReadMicrodata struct{ Header }

// ReadTable is <READTABLE> [d[T|F]].
type ReadTable struct {
	Header
	// Additivity: 0 = the table must be additive (default), 1 = compute
	// missing or inconsistent (sub)totals, 2 = accept non-additive tables.
	Additivity int
	// KeepStatus is the T option; τ-Argus uses it only with Additivity 1.
	KeepStatus bool
}

// Apriori is <APRIORI> "file", TabNo, "sep" [, IgnoreError [, ExpandTrivial]]
// (also spelled <APRIORY>).
type Apriori struct {
	Header
	File      string // as written; resolve with [Resolver.Apriori]
	Table     int    // 1-based; the upper bound is checked at run time
	Separator string
	// IgnoreError: skip bad lines (default true in batch).
	IgnoreError bool
	// ExpandTrivial: apply lines also to cells equal through trivial
	// hierarchy levels.
	ExpandTrivial bool
}

// Solver is <SOLVER> name[,"licence"].
type Solver struct {
	Header
	// Name is "XPRESS", "CPLEX" or "FREE" (upper-cased).
	Name string
	// Licence is the CPLEX licence file ("" if none); it must exist.
	Licence string
}

// Recode is <RECODE> TabNo, VarName, file|digit.
type Recode struct {
	Header
	Table    int    // 1-based
	Variable string // explanatory variable of that table (ignoring case)
	// File is the recode file (as given, working directory); empty when
	// Level is set.
	File string
	// Level is 1..9 for "collapse the hierarchy to this level", 0 for a
	// file recode.
	Level int
}

// Clear is <CLEAR>.
type Clear struct{ Header }

// GoInteractive is <GOINTERACTIVE>: processing stops (exit code 1).
type GoInteractive struct{ Header }

// Cover is <COVER>, used only in the sub-batch τ-Argus generates for the
// cover table of linked tables.
type Cover struct{ Header }

// Anco is <ANCO>, a developer flag.
type Anco struct{ Header }

// Confidential is <CONFIDENTIAL> n, an argus extension (τ-Argus has no
// such command): table n is computed and protected but never published.
// Its sensitive cells are protected through the suppressions of the
// published tables of a linked protection (<SUPPRESS> with table 0)
// against an attacker who knows the published tables come from one
// underlying table; no <WRITETABLE> may write it.
type Confidential struct {
	Header
	Table int // 1-based
}

// JJ is <JJ>; τ-Argus logs "<JJ> not yet implemented. Skipping this
// command." and continues.
type JJ struct{ Header }
