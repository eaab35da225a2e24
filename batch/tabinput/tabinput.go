// Package tabinput builds a τ-Argus table from tabular input: a .tab file
// described by its tabular metadata (.rda), as <OPENTABLEDATA>,
// <OPENMETADATA>, <SPECIFYTABLE>, <SAFETYRULE> and <READTABLE> do
// (docs/formats.md §6, τ-Argus TableSet.read and the engine's
// SetInCodeList, SetTotalsInCodeList, SetInTable and CompletedTable).
//
// The contract, step by step, as τ-Argus 4.2.5 does it:
//
//  1. Code lengths (Metadata.setVariableLengthFromData): a flat variable's
//     length is the longest value in its column other than its <TOTCODE>;
//     a .hrc variable's is the longest code of its hierarchy file; a
//     <HIERLEVELS> variable's is the sum of its digit groups. A declared
//     missing code "X" becomes X repeated to that length.
//  2. Pass 1, code lists (SetInCodeList): lines holding a total code
//     (compared ignoring case; an empty field is not a total here) or a
//     declared missing code in any column are skipped; in the others every
//     code of a flat variable is left-padded with blanks to its length and
//     collected, every <HIERLEVELS> code is collected as written, and every
//     .hrc code must be a code (leaf or parent) of the hierarchy file,
//     as written or left-padded to the hierarchy's width ("Code not in
//     codelist"). Code lists (SetTotalsInCodeList): the total first, then
//     the sorted codes (flat), the sorted codes with every prefix of a
//     full-length code at the digit-group boundaries (<HIERLEVELS>), or
//     every code of the .hrc file in file order; then the declared missing
//     codes as the metadata writes them (not padded), at level 1, even if
//     absent from the file (then with a warning: piargus writes the code
//     width where the tabular metadata expects a missing code). As in τ-Argus, a line
//     is retried at most as many times as the table has dimensions, one
//     padding per retry, so a one-dimensional table cannot use an unpadded
//     .hrc code.
//  3. Pass 2, cells (TableSet.buildCell via package argusio/tab, then
//     SetInTable): every line is checked as τ-Argus does; lines whose status
//     is empty and lines with frequency 0 and value 0 are not cells; every
//     other line fills one cell: value, shadow, cost, frequency (at least 1,
//     as the engine stores it; a missing frequency is imputed as 1 with
//     τ-Argus's logbook line), the first k top-n values (k = what the safety
//     rules need), and for status-only tables the status read and, for
//     unsafe-manual cells, the protection levels read. A code not in the code
//     list is "Code does not exist"; a second line for the same cell is "Cell
//     has been filled already". .hrc codes are tried as written, then padded.
//  4. Totals and additivity (CompletedTable, docs/formats.md §6.6).
//     Additivity is checked as the engine does (IsTable): along every
//     dimension, for every combination of the other dimensions' codes, every
//     parent's value must equal the sum of its children's values, within
//     |a−b| < 2·10⁻¹⁴·|a+b| or |a−b| < 10⁻¹⁴. <READTABLE> 0: a non-additive
//     table is the error "Table is not additive" ([AdditivityError], with
//     the offending relations for τ-Argus's AdditErr.txt overview); 2: it is
//     accepted as is (Result.NonAdditive lists the relations). 1: while the
//     table is not additive, one repair round (AdjustTable) replaces, along
//     every dimension in table order and every parent in code order, each
//     parent cell that differs from the sum of its children in frequency,
//     value, shadow or cost by that sum (top-n merged, status unknown,
//     protection levels 0); once max-depth + 7 rounds have run the error is
//     "Error making totals" (τ-Argus does not check the result of that last
//     round). With the T option, the cells whose
//     status was read as something other than empty get their read status
//     and protection levels back afterwards.
//  5. Statuses. Status-only tables (empty <SAFETYRULE>, only MAN rules, or
//     <READTABLE> right after <SPECIFYTABLE>) keep the statuses read (safe,
//     1, when the file has no status column); recomputed totals become safe
//     (manual). Otherwise the statuses are
//     computed with package batch/rules, and protection levels set for every
//     cell, only if a FREQ rule was given or the metadata has <MAXSCORE>
//     columns; without either, τ-Argus neither checks nor repairs
//     additivity and every non-empty cell ends safe (manual) — reproduced
//     here, with a warning. Finally any cell without a status is empty
//     (frequency 0) or safe (manual).
//
// Rule sets are restricted as τ-Argus's SetTableSafetyInfo does for tabular
// input: no request rule, no weights, no holding slots (3rd/4th P and NK,
// 2nd FREQ); dropped rules are reported as warnings.
//
// Deliberate deviations, each where τ-Argus misbehaves rather than decides:
// the additivity check and repair visit every combination of the other
// dimensions' codes (the engine skips the last few combinations of
// hierarchical dimensions with trivial levels because of an indexing
// slip); <SPECIFYTABLE> must name the explanatory variables of the metadata
// in declaration order (τ-Argus assigns codes by column and then crashes or
// mislabels); a <HIERLEVELS> code whose length is not at a digit-group
// boundary is an error (τ-Argus builds a broken hierarchy). The internal
// cover-table mode (<COVER>) of linked-table protection is not supported.
//
// Several tables (linked tables, one .tab per table) are read one by one,
// each with its own call to [Read]; nothing is shared between calls.
package tabinput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/cost"
	"github.com/sdcengine/argus/batch/rules"
)

// FreqResponse is the response name of a frequency table ("<freq>", any
// case).
const FreqResponse = arb.FreqResponse

// MaxCells bounds the cells of one table; larger tables are refused before
// any memory is taken.
const MaxCells = 200_000_000

// MaxReported bounds the number of non-additive relations kept in an
// [AdditivityError] or a [Result]; the total count is always reported.
const MaxReported = 10_000

// Additivity is the <READTABLE> argument.
type Additivity int

// The <READTABLE> modes.
const (
	// Check: a non-additive table is an error (<READTABLE> or <READTABLE> 0).
	Check Additivity = 0
	// Recompute: missing and inconsistent (sub)totals are computed
	// (<READTABLE> 1).
	Recompute Additivity = 1
	// Accept: non-additive tables are accepted (<READTABLE> 2).
	Accept Additivity = 2
)

// Spec is the table to read, as <SPECIFYTABLE> gives it.
type Spec struct {
	// Explanatory names the explanatory variables in table order; they must
	// be all explanatory variables of the metadata, in declaration order.
	Explanatory []string
	// Response names the response variable; it is ignored for a frequency
	// table.
	Response string
	// FreqTable is true for a "<freq>" table: the <FREQUENCY> column is the
	// response.
	FreqTable bool
	// Shadow names the shadow variable; "" means none (the response).
	Shadow string
	// Cost is the cost function (see table.NewCost); its zero value means
	// table.NewCost(table.CostResponse, ""). τ-Argus accepts a λ in [0, 1]
	// only.
	Cost table.Cost
}

// SpecFromBatch returns the Spec of a parsed <SPECIFYTABLE>.
func SpecFromBatch(c *arb.SpecifyTable) Spec {
	s := Spec{Explanatory: c.Explanatory, Response: c.Response, FreqTable: c.FreqTable, Shadow: c.Shadow}
	switch c.Cost {
	case arb.CostVariable:
		s.Cost = table.NewCost(table.CostVariable, c.CostVar)
	case arb.CostFrequency:
		s.Cost = table.NewCost(table.CostFrequency, "")
	case arb.CostUnity:
		s.Cost = table.NewCost(table.CostUnity, "")
	case arb.CostDistance:
		s.Cost = table.NewCost(table.CostDistance, "")
	default:
		if c.FreqTable {
			s.Cost = table.NewCost(table.CostFrequency, "")
		} else {
			s.Cost = table.NewCost(table.CostResponse, "")
		}
	}
	if c.HasLambda {
		s.Cost.Lambda = c.Lambda
	}
	return s
}

// Options say how the table is completed.
type Options struct {
	// Additivity is the <READTABLE> mode.
	Additivity Additivity
	// KeepStatus is the T option of <READTABLE> 1: cells whose totals were
	// recomputed get the status and protection levels read back.
	KeepStatus bool
	// StatusOnly makes the table use the statuses of the file (empty
	// <SAFETYRULE>, only MAN rules, or <READTABLE> right after
	// <SPECIFYTABLE>).
	StatusOnly bool
	// Rules are the table's safety rules; nil means none (τ-Argus's
	// defaults: manual margin 20%). Their Decimals should be the response's.
	Rules *rules.Set
	// ExtraFields accepts lines with fields after the declared ones (the
	// audit columns of a type-5 output written with AR+; see
	// [tab.Layout]). Batch jobs refuse them, as τ-Argus cannot read such
	// a file back.
	ExtraFields bool
}

// OptionsFromBatch returns the Options of a parsed <READTABLE> for a table
// whose <SAFETYRULE> is sr (nil when <READTABLE> follows <SPECIFYTABLE>
// directly) and whose rule set is set (nil for none).
func OptionsFromBatch(rt *arb.ReadTable, sr *arb.SafetyRule, set *rules.Set) Options {
	o := Options{Rules: set, StatusOnly: sr == nil || sr.StatusOnly}
	if rt != nil {
		o.Additivity = Additivity(rt.Additivity)
		o.KeepStatus = rt.KeepStatus && rt.Additivity == 1
	}
	return o
}

// Source is the tabular data to read.
type Source struct {
	// Meta is the tabular metadata.
	Meta *rda.Metadata
	// Name is the data file name, used in messages.
	Name string
	// Open opens the data file; it is called three times (code lengths,
	// code lists, cells).
	Open func() (io.ReadCloser, error)
	// Hierarchies holds the parsed .hrc file of every explanatory variable
	// with a <HIERCODELIST>, by charset.UpperKey of the variable name (see
	// [ReadHierarchy]).
	Hierarchies map[string]*hrc.Tree
	// Progress, if set, is called with the pass (1: code lists, 2: cells)
	// and the number of lines read so far, every 10 000 lines.
	Progress func(pass, lines int)
}

// Result is a table read from tabular input.
type Result struct {
	Table *table.Table
	// Log holds the lines τ-Argus writes to the logbook while reading, in
	// order: one per imputed frequency ("A real cell with no frequency is
	// strange; …").
	Log []string
	// Warnings are findings that τ-Argus passes over silently.
	Warnings []string
	// Additive tells whether the table is additive after reading; false only
	// with Accept.
	Additive bool
	// NonAdditive lists the relations that do not add up (Accept only), at
	// most MaxReported of them; NonAdditiveCount counts them all.
	NonAdditive      []Relation
	NonAdditiveCount int
	// Rounds is the number of repair rounds run (Recompute), Recomputed the
	// number of cells they replaced.
	Rounds, Recomputed int
	// Cells is the number of cells filled from the file.
	Cells int
	// HasSecondary tells that the file has cells with status M (secondary):
	// τ-Argus then considers the table protected (by the modular method).
	HasSecondary bool
}

// ReadHierarchy reads the .hrc file of a tabular explanatory variable with
// the options τ-Argus uses for tabular input: the variable's lead string and
// missing codes, and its <TOTCODE>, which must not occur in the file.
func ReadHierarchy(r io.Reader, name string, v *rda.Variable) (*hrc.Tree, error) {
	return hrc.Read(r, name, hrc.Options{LeadString: v.HierLeadString, Missing: v.Missing[:], TotalCode: v.TotCode})
}

// Read builds the table described by spec from the tabular source, completes
// it as opt says and returns it. Errors carry τ-Argus's messages: a
// *poserr.Error at the line for a bad line (its cause in τ-Argus's words)
// and for a code not in its hierarchy in the code-list pass (matching
// ErrCodeNotInCodelist, Field the variable), an
// *AdditivityError for a non-additive table under Check, and errors matching
// ErrCannotMakeTotals, ErrWrongHierarchy or ErrSpec otherwise. With an
// error from the cell pass on, the result is returned too, without a table,
// for the logbook lines written until then.
func Read(ctx context.Context, src Source, spec Spec, opt Options) (*Result, error) {
	if src.Meta == nil || src.Open == nil {
		return nil, errors.New("tabinput: no tabular data")
	}
	if src.Meta.Origin != rda.Tabular {
		return nil, fmt.Errorf("%w: metadata %s does not describe tabular data", ErrSpec, src.Meta.File)
	}
	if opt.Additivity < Check || opt.Additivity > Accept {
		return nil, fmt.Errorf("%w: Illegal parameter (%d) for ReadTable", ErrSpec, opt.Additivity)
	}
	if spec.Cost != (table.Cost{}) {
		if err := cost.CheckLambda(spec.Cost.Lambda); err != nil {
			return nil, fmt.Errorf("%w: Error in specifying table %s: %v", ErrSpec, describe(spec), err)
		}
	}
	r := &reader{src: src, spec: spec, opt: opt, res: &Result{Additive: true}}
	if err := r.setup(); err != nil {
		return nil, err
	}
	if err := r.lengths(); err != nil {
		return nil, err
	}
	if err := r.codeLists(ctx); err != nil {
		return nil, err
	}
	if err := r.makeTable(); err != nil {
		return nil, err
	}
	if err := r.cells(ctx); err != nil {
		return r.res, err
	}
	if r.res.Cells == 0 {
		// τ-Argus goes on with a table of empty cells and every output
		// empty; a job that protects nothing must not look like success.
		return r.res, fmt.Errorf("%w %s (empty, or only blank lines)", ErrNoCells, src.Name)
	}
	if err := r.complete(ctx); err != nil {
		return r.res, err
	}
	r.res.Table = r.t
	return r.res, nil
}

// describe is τ-Argus's table description "V1 x V2 | resp".
func describe(spec Spec) string {
	resp := spec.Response
	if spec.FreqTable {
		resp = "<freq>"
	}
	return strings.Join(spec.Explanatory, " x ") + " | " + resp
}
