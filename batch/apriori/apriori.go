// Package apriori applies τ-Argus a-priori files (.hst) to a table, as
// <APRIORI> does in batch mode (τ-Argus 4.2.5 TableSet.processAprioryFile with the
// engine's SetTableCellStatus, SetTableCellCost and
// SetProtectionLevelsForResponseTable).
//
// The contract, line by line (lines read with the τ-Argus tokenizer: blank
// lines and lines starting with "//" skipped, fields taken with
// nextField(separator) and trimmed):
//
//   - The first line must contain the separator, else the run stops
//     ("separator (x) not found in file f\nFirst line: …").
//   - One code field per dimension of the table, in table order. A field is
//     compared with the codes of the dimension trimmed of blanks (the first
//     equal code wins; the empty field is the total) and equal to the
//     variable's <TOTCODE> it is the total. A code that is not found makes
//     the line incorrect: with IgnoreError it is counted and skipped, without
//     the run stops ("Code number i code: x could not be found…").
//   - The action, upper-cased, and its numbers (StrUtils.toDouble: a decimal
//     comma is accepted); an unreadable number stops the run ("Error in
//     apriori type X"), except PL with one level and nothing after it
//     (piargus writes "pl,<level>"): that level is the lower one and the
//     upper one is 0, as τ-Argus up to 4.2.4 read it (its parse error was
//     swallowed with the upper level still 0; 4.2.5 refuses the line), and
//     [Result.Warnings] says so. An unknown action stops the run without IgnoreError (with
//     IgnoreError it is counted and the line skipped).
//   - With ExpandTrivial, the line applies to every cell of the cartesian
//     product, over the dimensions, of the chain of codes that are equal
//     through trivial (single-child) levels of a hierarchy around the code
//     given (flat dimensions have none); otherwise to the one cell.
//   - Per cell:
//     S (safe) from statuses 1–10: safe (1) if the safety rules find the cell
//     safe, else safe manual (2); protection levels recomputed.
//     U (unsafe) from 1–9: the rules' status if they find the cell unsafe
//     (3–7), else unsafe manual (9); protection levels recomputed (the
//     manual margin for 9).
//     P (protected), M (secondary manual) from 1–2: status 10, 12.
//     ML (secondary) from 1–2: 11, or 12 from safe manual — and, as in
//     τ-Argus, 12 for the remaining cells of the same line after that.
//     C and W (cost) on any cell: the new cost (0 becomes 1; negative is
//     refused). For the frequency, unity and distance cost functions the
//     engine recomputes every cell's cost when it reads it, so the change
//     has no effect; it is counted as done, as τ-Argus does, and recorded.
//     PL (protection levels) on primary unsafe cells (3–9) only, both values
//     ≥ 0; as in τ-Argus, after a refused cell the remaining cells of the
//     same line are refused too.
//     AB (a-priori bounds) always stops the run ("Change apriory bounds is
//     not yet possible; was neither in the old TAU-Argus").
//     A refused change is counted and, without IgnoreError, stops the run
//     with τ-Argus's message ("Illegal status transition for cell (…)",
//     "Illegal new cost value (…) for cell (…)", "Illegal values for the
//     protection levels: …", "Protection levels can only be changed for
//     unsafe cells"), followed by "Line number n" (τ-Argus adds
//     "\nLine: <line>"; argus does not echo the line, see [ErrStop]).
//
// The result holds τ-Argus's counters (aPrioryStatus: lines read, status,
// cost, bounds and protection-level changes, each correct/refused) and one
// diagnostic per line with the cells it touched, from which the engine
// writes the logbook and the a-priori report. A fatal error is a
// *poserr.Error matching [ErrStop];
// the changes made before it stay in the table, as in τ-Argus.
//
// This package tokenises the lines itself rather than through
// argusio/hst, whose reader follows the GUI's APriori.processAprioryFile
// (a field-count check of the first line, padded code comparison, number
// errors swallowed), which the batch command does not use.
package apriori

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/cost"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// The counters of Result.Counts (τ-Argus's aPrioryStatus rows).
const (
	CountLines     = 0 // lines read
	CountStatus    = 1 // status changes
	CountCost      = 2 // cost changes
	CountBounds    = 3 // a-priori bound changes (never: AB stops the run)
	CountProtLevel = 4 // protection-level changes
)

// The columns of Result.Counts.
const (
	OK      = 0
	Refused = 1
)

// Options control how an a-priori file is applied.
type Options struct {
	// Separator is the field separator given in <APRIORI>; it must not be
	// empty.
	Separator string
	// IgnoreError skips bad lines and refused changes (counting them)
	// instead of stopping. τ-Argus's batch default is true.
	IgnoreError bool
	// ExpandTrivial applies each line also to the cells equal to it through
	// trivial hierarchy levels.
	ExpandTrivial bool
	// Rules are the table's safety rules; S and U consult them and the
	// protection levels of the cells they change are recomputed with them.
	// nil means no rule (manual margin 20%) with the response's decimals.
	Rules *rules.Set
	// RuleCell returns what the rules see of cell i; nil builds it from the
	// table's cell (value, shadow, frequencies, weight sum, top-n lists).
	// Callers with more information (microdata tables: record weights of
	// the top contributions, request-rule information) supply it here.
	RuleCell func(i int) rules.Cell
}

// CellChange is what one line did to one cell.
type CellChange struct {
	// Cell is the cell number; Codes τ-Argus's description of the cell
	// (the codes as stored, the total as "Total", joined by ";").
	Cell  int
	Codes string
	// OK tells whether the change was made; Err is τ-Argus's reason
	// otherwise.
	OK  bool
	Err string
	// The cell before and after.
	OldStatus, NewStatus cellstatus.Status
	OldCost, NewCost     float64
	OldLower, OldUpper   float64
	NewLower, NewUpper   float64
}

// Line is the diagnostic of one line of the file.
type Line struct {
	Line int    // 1-based physical line number
	Text string // the line as read
	// Codes are the code fields, trimmed; Incorrect marks those not found.
	Codes     []string
	Incorrect []bool
	// Action is the action, upper-cased ("" when the codes were bad);
	// Value1 and Value2 its numbers.
	Action         string
	Value1, Value2 float64
	// Err is τ-Argus's message for a line that was skipped (bad code,
	// unknown action).
	Err string
	// Cells are the cells the line was applied to.
	Cells []CellChange
}

// Result is the outcome of applying an a-priori file.
type Result struct {
	File string
	// Counts are τ-Argus's counters, indexed by the Count constants and by
	// OK / Refused.
	Counts [5][2]int
	Lines  []Line
	// ExpandTrivial echoes the option (the report says whether trivial
	// levels were expanded).
	ExpandTrivial bool
	// OneLevelPL are the lines whose PL gives one protection level: it is
	// the lower level, the upper level is 0.
	OneLevelPL []int
}

// Warnings returns what the logbook should warn about the file: the PL
// lines that give one protection level.
func (r *Result) Warnings() []string {
	if len(r.OneLevelPL) == 0 {
		return nil
	}
	lines := make([]string, 0, min(len(r.OneLevelPL), maxListed))
	for _, l := range r.OneLevelPL[:min(len(r.OneLevelPL), maxListed)] {
		lines = append(lines, strconv.Itoa(l))
	}
	list := strings.Join(lines, ", ")
	if len(r.OneLevelPL) > maxListed {
		list += ", …"
	}
	return []string{fmt.Sprintf("%s: %d PL line(s) give one protection level (line %s): "+
		"taken as the lower protection level with upper protection level 0, as τ-Argus 4.2.4 and "+
		"earlier read them (τ-Argus 4.2.5 refuses such a line); write PL,<lower>,<upper> to protect both sides",
		r.File, len(r.OneLevelPL), list)}
}

// maxListed is how many line numbers a warning lists.
const maxListed = 5

// Summary returns τ-Argus's line in the Apriori<t>.htm history:
// the ten counters separated and terminated by ";".
func (r *Result) Summary() string {
	var b strings.Builder
	for i := range r.Counts {
		b.WriteString(strconv.Itoa(r.Counts[i][OK]) + ";" + strconv.Itoa(r.Counts[i][Refused]) + ";")
	}
	return b.String()
}

// LogMessage returns the logbook line τ-Argus writes when the file has been
// applied to the table described by tableName ("V1 x V2 | resp").
func (r *Result) LogMessage(tableName string) string {
	return "Apriory file: " + r.File + " has been applied\nto table: " + tableName
}

// ErrStop is matched (errors.Is) by the error of a line that stops the run.
var ErrStop = errors.New("the a-priori file stops the run")

// stopError returns the error that stops the run at line n of file (0 when
// not tied to a line): a *poserr.Error whose message is τ-Argus's, msg, and
// whose cause, matching ErrStop, says what is wrong in our words, reason
// ("" = msg), for its Detail ("file:line: reason"). Batch τ-Argus reports
// [BatchMessage] only, which names neither the line nor the cause. Neither
// echoes the line (it may carry protection levels or costs).
func stopError(file string, n int, msg, reason string) *poserr.Error {
	if reason == "" {
		reason = strings.ReplaceAll(msg, "\n", " ")
	}
	return &poserr.Error{Pos: poserr.Pos{File: file, Line: n}, Err: lex.Reason(ErrStop, reason), Msg: msg}
}

// BatchMessage returns what τ-Argus's batch driver reports for an error
// that stops the run in the a-priori file: "An error has occurred when
// processing apriori file <file>".
func BatchMessage(file string) string {
	return "An error has occurred when processing apriori file " + file
}

// Apply reads the a-priori file from r (name is used in messages, as
// τ-Argus uses the file name) and applies it to t. It returns the result so
// far together with a *poserr.Error matching [ErrStop] when a line stops the
// run, or a read error.
func Apply(ctx context.Context, t *table.Table, r io.Reader, name string, opt Options) (*Result, error) {
	res := &Result{File: name, ExpandTrivial: opt.ExpandTrivial}
	if t == nil || len(t.Dims) == 0 || t.Size() != len(t.Cells) {
		return res, fmt.Errorf("apriori: table without cells")
	}
	if opt.Separator == "" {
		return res, stopError(name, 0, "No separator was specified", "")
	}
	a := newApplier(t, name, opt, res)
	sc := lex.NewScanner(bufio.NewReader(r), name)
	first := true
	for n := 1; sc.NextLine(); n++ {
		if n%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
		}
		text := sc.Text()
		if first {
			first = false
			if !strings.Contains(text, opt.Separator) {
				return res, stopError(name, sc.LineNumber(), "separator ("+opt.Separator+") not found in file "+name,
					"separator ("+opt.Separator+") not found in the first line")
			}
		}
		if err := a.line(sc, text); err != nil {
			return res, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, lex.ErrBinary) {
			return res, err // names the file, line and column
		}
		return res, fmt.Errorf("apriori: reading %s: %w", name, err)
	}
	return res, nil
}

// applier holds the state of one Apply.
type applier struct {
	t      *table.Table
	name   string
	opt    Options
	res    *Result
	set    rules.Set
	codes  [][]string // per dimension: the codes trimmed
	chains [][][2]int // per dimension and code: the trivial chain [first, last]
	stride []int
}

func newApplier(t *table.Table, name string, opt Options, res *Result) *applier {
	a := &applier{t: t, name: name, opt: opt, res: res}
	if opt.Rules != nil {
		a.set = *opt.Rules
	} else {
		a.set = rules.NewSet()
		a.set.Decimals = t.Response.Decimals
	}
	a.codes = make([][]string, len(t.Dims))
	a.chains = make([][][2]int, len(t.Dims))
	a.stride = make([]int, len(t.Dims))
	s := 1
	for d := len(t.Dims) - 1; d >= 0; d-- {
		a.stride[d] = s
		s *= t.Dims[d].Len()
	}
	for d := range t.Dims {
		dim := &t.Dims[d]
		a.codes[d] = make([]string, dim.Len())
		for i, c := range dim.Codes {
			a.codes[d][i] = lex.Trim(c.Label)
		}
		a.chains[d] = trivialChains(dim)
	}
	return a
}

// trivialChains returns, for every code of d, the first and last code of the
// chain of codes that are equal to it through trivial levels
// (TableSet.getBogusMother, getBogusChild): up while the code is the only
// child of the code just before it, down while the next code is the only
// child of the code. Flat dimensions have no chains.
func trivialChains(d *table.Dimension) [][2]int {
	n := d.Len()
	out := make([][2]int, n)
	trivial := make([]bool, n)
	if d.Hierarchical() {
		kids := make([]int, n)
		for i := 1; i < n; i++ {
			if p := d.Codes[i].Parent; p >= 0 && p < n && !d.Codes[i].Missing {
				kids[p]++
			}
		}
		for i := 1; i < n; i++ {
			// Code i is the only child of code i-1.
			trivial[i] = d.Codes[i].Parent == i-1 && kids[i-1] == 1
		}
	}
	for i := range out {
		lo, hi := i, i
		for lo > 0 && trivial[lo] {
			lo--
		}
		for hi+1 < n && trivial[hi+1] {
			hi++
		}
		out[i] = [2]int{lo, hi}
	}
	return out
}

// line applies one line in three stages: its codes ([applier.lineCodes]),
// its action with its values ([applier.lineAction]), then the action on
// every cell the line names ([applier.lineCells]).
func (a *applier) line(sc *lex.Scanner, text string) error {
	n := len(a.t.Dims)
	ln := &Line{Line: sc.LineNumber(), Text: text, Codes: make([]string, n), Incorrect: make([]bool, n)}
	idx, err := a.lineCodes(sc, ln)
	if err != nil || idx == nil {
		return err
	}
	newStatus, done, err := a.lineAction(sc, ln)
	if err != nil || done {
		return err
	}
	sc.ClearLine()
	if err := a.lineCells(ln, idx, newStatus); err != nil {
		return err
	}
	a.res.Lines = append(a.res.Lines, *ln)
	return nil
}

// fatal records ln and returns the error that stops the run at it, with
// τ-Argus's message msg and our reason (see stopError).
func (a *applier) fatal(ln *Line, msg, reason string) error {
	a.res.Lines = append(a.res.Lines, *ln)
	return stopError(a.name, ln.Line, msg, reason)
}

// lineInfo is τ-Argus's "Line number <n>" ending its messages.
func lineInfo(ln *Line) string { return "Line number " + strconv.Itoa(ln.Line) }

// lineCodes reads the codes of the line and returns their indexes in the
// dimensions. A code that is not found stops the run, or with IgnoreError
// refuses the line: it is then recorded and lineCodes returns nil indexes.
func (a *applier) lineCodes(sc *lex.Scanner, ln *Line) ([]int, error) {
	t, opt := a.t, a.opt
	idx := make([]int, len(t.Dims))
	ok := true
	for d := range t.Dims {
		c := lex.Trim(sc.NextField(opt.Separator))
		ln.Codes[d] = c
		idx[d] = -1
		for i, code := range a.codes[d] {
			if code == c {
				idx[d] = i
				break
			}
		}
		if c == t.Dims[d].TotalCode {
			idx[d] = 0
		}
		if idx[d] < 0 {
			ln.Incorrect[d] = true
			msg := "Code number " + strconv.Itoa(d+1) + " code: " + c + " could not be found\nApriori file " + a.name + "\n"
			if !opt.IgnoreError {
				return nil, a.fatal(ln, msg+lineInfo(ln), fmt.Sprintf("code %q of dimension %d (%s) not found", c, d+1, t.Dims[d].Name))
			}
			if ok {
				ln.Err = msg + lineInfo(ln)
			}
			ok = false
		}
	}
	if !ok {
		a.res.Counts[CountLines][Refused]++
		a.res.Lines = append(a.res.Lines, *ln)
		return nil, nil
	}
	a.res.Counts[CountLines][OK]++
	return idx, nil
}

// lineAction reads the action of the line and its values into ln, and
// returns the new status of a status action. An unknown action stops the
// run, or with IgnoreError refuses the line: it is then recorded and done
// is true.
func (a *applier) lineAction(sc *lex.Scanner, ln *Line) (newStatus cellstatus.Status, done bool, err error) {
	opt := a.opt
	ln.Action = lex.UpperASCII(sc.NextField(opt.Separator))
	switch ln.Action {
	case "S":
		newStatus = cellstatus.SafeManual
	case "U":
		newStatus = cellstatus.UnsafeManual
	case "P":
		newStatus = cellstatus.Protected
	case "M":
		newStatus = cellstatus.SecondaryManual
	case "ML":
		newStatus = cellstatus.Secondary
	case "C", "W":
		ln.Value1, err = a.number(sc, ln, "cost")
	case "AB", "PL":
		what := map[string]string{"AB": "bound", "PL": "protection level"}[ln.Action]
		if ln.Value1, err = a.number(sc, ln, "lower "+what); err != nil {
			break
		}
		if ln.Action == "PL" && lex.Trim(sc.Line()) == "" {
			// One level (piargus writes "pl,<level>"): τ-Argus up to 4.2.4
			// swallowed the failed read of the upper level, which kept
			// its initial 0; τ-Argus 4.2.5 refuses the line.
			a.res.OneLevelPL = append(a.res.OneLevelPL, ln.Line)
			break
		}
		ln.Value2, err = a.number(sc, ln, "upper "+what)
	default:
		a.res.Counts[CountLines][OK]--
		a.res.Counts[CountLines][Refused]++
		if !opt.IgnoreError {
			return 0, true, a.fatal(ln, "Error in apriori type "+ln.Action,
				fmt.Sprintf("unknown action %q (S, U, P, M, ML, C, W, PL or AB)", ln.Action))
		}
		ln.Err = "Illegal apriori command(" + ln.Action + ") in line " + strconv.Itoa(ln.Line)
		a.res.Lines = append(a.res.Lines, *ln)
		return 0, true, nil
	}
	return newStatus, err != nil, err
}

// number reads the next field, the argument what of the line's action; a
// field that is not a number stops the run.
func (a *applier) number(sc *lex.Scanner, ln *Line, what string) (float64, error) {
	f := sc.NextField(a.opt.Separator)
	x, err := lex.ToDouble(f)
	if err != nil {
		why := "not numeric"
		switch {
		case lex.Trim(f) == "":
			why = "missing"
		case errors.Is(err, lex.ErrRange):
			why = "not a finite number"
		}
		reason := fmt.Sprintf("action %s: the %s is %s", ln.Action, what, why)
		if ln.Action == "PL" || ln.Action == "AB" {
			reason += " (" + ln.Action + " takes two values, lower and upper)"
		}
		return 0, a.fatal(ln, "Error in apriori type "+ln.Action, reason)
	}
	return x, nil
}

// lineCells applies the line's action to its cells: the cell of idx, or
// with ExpandTrivial the cartesian product of the trivial chains through
// it, the last dimension fastest. Each cell's change is recorded in ln.
func (a *applier) lineCells(ln *Line, idx []int, newStatus cellstatus.Status) error {
	lo := make([]int, len(idx))
	hi := make([]int, len(idx))
	for d, i := range idx {
		lo[d], hi[d] = i, i
		if a.opt.ExpandTrivial {
			lo[d], hi[d] = a.chains[d][i][0], a.chains[d][i][1]
		}
	}
	copy(idx, lo)
	plOK := true // τ-Argus carries a refused PL over to the next cells
	for {
		cell := 0
		for d, i := range idx {
			cell += i * a.stride[d]
		}
		ch := a.change(cell, idx)
		var err error
		switch ln.Action {
		case "S", "U", "P", "M", "ML":
			err = a.statusCell(ln, &ch, cell, &newStatus)
		case "C", "W":
			err = a.costCell(ln, &ch, cell)
		case "AB":
			ln.Cells = append(ln.Cells, a.after(ch, cell))
			return a.fatal(ln, "Change apriory bounds is not yet possible; was neither in the old TAU-Argus",
				"action AB (a-priori bounds) is not supported (neither by τ-Argus)")
		case "PL":
			err = a.plCell(ln, &ch, cell, &plOK)
		}
		if err != nil {
			return err
		}
		ln.Cells = append(ln.Cells, a.after(ch, cell))
		// Next cell of the product, the last dimension fastest.
		d := len(idx) - 1
		for ; d >= 0; d-- {
			if idx[d] < hi[d] {
				idx[d]++
				break
			}
			idx[d] = lo[d]
		}
		if d < 0 {
			return nil
		}
	}
}

// refuse records the refused change ch of cell and, without IgnoreError,
// returns the error that stops the run with ch's message.
func (a *applier) refuse(ln *Line, ch *CellChange, cell int) error {
	if a.opt.IgnoreError {
		return nil
	}
	ln.Cells = append(ln.Cells, a.after(*ch, cell))
	return a.fatal(ln, ch.Err+lineInfo(ln), strings.ReplaceAll(ch.Err, "\n", " "))
}

// statusCell sets the status of cell to *newStatus where τ-Argus allows the
// transition. Like τ-Argus, a secondary (ML) on a manually safe cell
// becomes a manual secondary for that cell and the cells after it.
func (a *applier) statusCell(ln *Line, ch *CellChange, cell int, newStatus *cellstatus.Status) error {
	var allowed bool
	ch.OldStatus = a.t.Cells[cell].Status
	old := ch.OldStatus
	switch *newStatus {
	case cellstatus.SafeManual:
		allowed = old >= cellstatus.Safe && old <= cellstatus.Protected
	case cellstatus.UnsafeManual:
		allowed = old >= cellstatus.Safe && old <= cellstatus.UnsafeManual
	default:
		allowed = old >= cellstatus.Safe && old <= cellstatus.SafeManual
	}
	if *newStatus == cellstatus.Secondary && old == cellstatus.SafeManual {
		*newStatus = cellstatus.SecondaryManual
	}
	ch.OK = allowed
	if allowed {
		a.setStatus(cell, *newStatus)
		a.res.Counts[CountStatus][OK]++
		return nil
	}
	a.res.Counts[CountStatus][Refused]++
	ch.Err = "Illegal status transition for cell (" + ch.Codes + ")\nLine " + strconv.Itoa(ln.Line)
	return a.refuse(ln, ch, cell)
}

// costCell sets the cost of cell to the line's value (0 meaning 1); a
// negative cost is refused.
func (a *applier) costCell(ln *Line, ch *CellChange, cell int) error {
	x := ln.Value1
	if x == 0 {
		x = 1
	}
	if x > 0 {
		if !a.derivedCost() {
			a.t.Cells[cell].Cost = x
		}
		a.res.Counts[CountCost][OK]++
		ch.OK = true
		return nil
	}
	a.res.Counts[CountCost][Refused]++
	ch.Err = "Illegal new cost value (" + numfmt.JavaDouble(x) + ") for cell (" + ch.Codes + ")\nLine " + strconv.Itoa(ln.Line)
	return a.refuse(ln, ch, cell)
}

// plCell sets the protection levels of cell to the line's values: refused
// for negative levels or a cell that is not unsafe, and, as in τ-Argus,
// for every cell after a refused one (*plOK).
func (a *applier) plCell(ln *Line, ch *CellChange, cell int, plOK *bool) error {
	x1, x2 := ln.Value1, ln.Value2
	if x1 < 0 || x2 < 0 {
		ch.Err = "Illegal values for the protection levels: " + numfmt.JavaDouble(x1) + ".. " + numfmt.JavaDouble(x2)
		*plOK = false
	}
	if *plOK && !a.t.Cells[cell].Status.IsPrimary() {
		ch.Err = "Protection levels can only be changed for unsafe cells"
		*plOK = false
	}
	if !*plOK && ch.Err == "" {
		ch.Err = ln.Cells[len(ln.Cells)-1].Err // the message carried over
	}
	if *plOK {
		c := &a.t.Cells[cell]
		c.LowerPL, c.UpperPL = x1, x2
		a.res.Counts[CountProtLevel][OK]++
		ch.OK = true
		return nil
	}
	if err := a.refuse(ln, ch, cell); err != nil {
		return err
	}
	a.res.Counts[CountProtLevel][Refused]++
	return nil
}

// change starts the record of a change to cell.
func (a *applier) change(cell int, idx []int) CellChange {
	c := &a.t.Cells[cell]
	parts := make([]string, len(idx))
	for d, i := range idx {
		code := a.t.Dims[d].Codes[i].Label
		if code == "" {
			code = "Total"
		}
		parts[d] = code
	}
	return CellChange{Cell: cell, Codes: strings.Join(parts, ";"), OldStatus: c.Status,
		OldCost: cost.Raw(a.t.Cost.Kind, c), OldLower: c.LowerPL, OldUpper: c.UpperPL}
}

// after completes the record with the cell's state after the change.
func (a *applier) after(ch CellChange, cell int) CellChange {
	c := &a.t.Cells[cell]
	ch.NewStatus, ch.NewCost, ch.NewLower, ch.NewUpper = c.Status, cost.Raw(a.t.Cost.Kind, c), c.LowerPL, c.UpperPL
	return ch
}

// derivedCost reports whether the table's cost does not come from a
// variable, so that the engine recomputes it and a cost change is void.
func (a *applier) derivedCost() bool {
	switch a.t.Cost.Kind {
	case table.CostFrequency, table.CostUnity, table.CostDistance:
		return true
	}
	return false
}

// ruleCell is what the rules see of cell i, without "missing = safe" (the
// engine's SetTableCellStatus does not apply it).
func (a *applier) ruleCell(i int) rules.Cell {
	var rc rules.Cell
	if a.opt.RuleCell != nil {
		rc = a.opt.RuleCell(i)
	} else {
		c := &a.t.Cells[i]
		rc = rules.Cell{Value: c.Value, Shadow: c.Shadow, Freq: c.Freq, HoldingFreq: c.HoldingFreq,
			WeightSum: c.Weight, Top: c.TopN, HoldingTop: c.HoldingTopN}
	}
	rc.Missing = false
	return rc
}

// setStatus is the engine's SetTableCellStatus.
func (a *applier) setStatus(i int, st cellstatus.Status) {
	c := &a.t.Cells[i]
	switch st {
	case cellstatus.UnsafeManual, cellstatus.SafeManual:
		rc := a.ruleCell(i)
		rule := a.set.Status(&rc)
		if st == cellstatus.UnsafeManual && rule >= cellstatus.UnsafeRule && rule <= cellstatus.UnsafeSingleton {
			st = rule
		}
		if st == cellstatus.SafeManual && rule == cellstatus.Safe {
			st = cellstatus.Safe
		}
		c.Status = st
		c.LowerPL, c.UpperPL = a.set.ProtectionLevels(&rc, st)
	default:
		c.Status = st
	}
}

// Skipped lists, one entry per line, the lines skipped and the changes
// refused under IgnoreError ("line 3: Code number 1 code: zz could not be
// found"), without the values of the line; nil when there were none.
// τ-Argus counts them only, and its logbook says the file "has been
// applied" even when no line was.
func (r *Result) Skipped() []string {
	var out []string
	for _, ln := range r.Lines {
		reason := ln.Err
		if reason == "" {
			for _, c := range ln.Cells {
				if !c.OK {
					reason = c.Err
					break
				}
			}
		}
		if reason == "" {
			continue
		}
		reason, _, _ = strings.Cut(reason, "\n")
		for _, p := range []string{"Illegal values for the protection levels", "Illegal new cost value"} {
			if strings.HasPrefix(reason, p) {
				reason = p // the values may be confidential
			}
		}
		out = append(out, "line "+strconv.Itoa(ln.Line)+": "+reason)
	}
	return out
}
