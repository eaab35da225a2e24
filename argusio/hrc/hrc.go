// Package hrc reads and writes τ-Argus hierarchy files (.hrc), the files named
// by <HIERCODELIST> in a metadata file (format: the τ-ARGUS user's manual (de Wolf et al., version 4.2)).
//
// The reading contract is that of the τ-Argus engine (libtauargus
// CVariable::SetCodeList), which is the component that builds hierarchies:
//
//   - The input is 8-bit text; bytes are passed through unchanged.
//   - Trailing blanks, tabs, CR and LF are removed from every line; leading
//     blanks are kept. Lines that are then empty are skipped. There are no
//     comment lines.
//   - The depth of a line is the number of times the lead string (from
//     <HIERLEADSTRING>, any non-empty string, default ".") repeats at its
//     start; the level of the code is depth+1. The code is the rest of the
//     line, not trimmed on the left: with lead "@", the line "@ 1" holds the
//     code " 1" at level 2.
//   - The total is implicit (level 0) and never listed.
//   - A code is a leaf ("basic" code) if the next line's level is not deeper
//     than its own; the last code is always a leaf.
//   - A parent with exactly one child makes that child "bogus" (a trivial
//     level).
//
// Validation, with τ-Argus's messages: a code equal to a missing value of the
// variable ("Code is missing"), an empty code (a line made only of lead
// strings), and a line more than one level deeper than the previous one
// ("Level incorrect") are errors, as is an empty lead string ("level string
// empty"). τ-Argus reports the first two during reading and the level errors
// in a second pass; [Read] keeps that order. When [Options.TotalCode] is set,
// a code equal to the total code is rejected as τ-Argus's tabular reader does.
//
// Lines end at LF only, as in the engine; a CR inside a line stays part of
// the code. Deliberate deviation: lines are not cut into chunks of 199 bytes
// (τ-Argus's fgets buffer); lines longer than 64 KiB are an error.
//
// [Write] produces the hierarchy files τ-Argus writes next to intermediate
// output (Metadata.writeHrcFile): one code per line preceded by level-1 copies
// of the lead string.
package hrc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// DefaultLeadString is the lead string τ-Argus uses when the metadata has no
// <HIERLEADSTRING>.
const DefaultLeadString = "."

// Errors wrapped in the *poserr.Error values returned by [Read]. The texts
// are those τ-Argus shows for the engine's error codes (TauArgus.properties),
// except for ErrCodeEmpty, whose τ-Argus text is empty.
var (
	ErrLeadStringEmpty = errors.New("level string empty")
	ErrCodeIsMissing   = errors.New("Code is missing")
	ErrLevelIncorrect  = errors.New("Level incorrect")
	ErrCodeEmpty       = errors.New("Code is empty")
	ErrTotalCode       = errors.New("Total code found in hierarchy file; the total is added implicitly")
	ErrLineTooLong     = errors.New("line too long")
	// ErrCycle: a code under itself ("A" then "@A", or deeper). τ-Argus
	// reads it as two codes and the table cannot be additive.
	ErrCycle = errors.New("code is its own ancestor")
	// ErrDuplicateCode: a basic code listed twice (under two parents, or
	// twice under one; τ-Argus gives the second copy no data and publishes
	// it as a separate cell).
	ErrDuplicateCode = errors.New("code listed twice")
)

// Options control how a hierarchy file is read.
type Options struct {
	// LeadString is the indentation string (<HIERLEADSTRING>); empty means
	// DefaultLeadString.
	LeadString string
	// Missing lists the missing codes of the variable, as τ-Argus holds them
	// (left-padded to the variable length). A file code equal to one of them
	// is an error. Empty strings are ignored.
	Missing []string
	// TotalCode, when not empty, is the <TOTCODE> of the variable; a file
	// code equal to it is an error (τ-Argus checks this for tabular input).
	TotalCode string
}

// Node is one code of a hierarchy, in file order.
type Node struct {
	Code     string // the code as stored by τ-Argus (leading blanks kept)
	Level    int    // 1 for children of the total, 2 for their children, ...
	Parent   int    // index in Tree.Nodes of the parent; -1 for the total
	Children int    // number of direct children
	Leaf     bool   // basic code: has no children
	Bogus    bool   // only child of its parent (trivial level)
	Line     int    // 1-based physical line number
	Column   int    // 1-based byte column where the code starts
}

// Tree is a parsed hierarchy. The total (level 0) is implicit and not part of
// Nodes.
type Tree struct {
	File       string // file name given to Read
	LeadString string // lead string used for reading
	Nodes      []Node // codes in file order
	// Warnings are things accepted as τ-Argus does but worth telling the
	// user ("file:line: ..."): an aggregate listed twice under one parent.
	Warnings []string
	index    map[string]int
}

// Read parses a hierarchy file from r. The name is used in error messages.
// Errors for malformed content are *poserr.Error values wrapping one of the
// Err variables of this package; read errors are returned wrapped.
func Read(r io.Reader, name string, opt Options) (*Tree, error) {
	lead := opt.LeadString
	if lead == "" {
		return nil, &poserr.Error{Pos: poserr.Pos{File: name}, Err: ErrLeadStringEmpty}
	}
	t := &Tree{File: name, LeadString: lead, index: make(map[string]int)}
	var texts []string // offending text per node, for the second pass
	br := lex.SkipBOM(r, 0)
	lineNo := 0
	for {
		raw, err := readLine(br)
		if len(raw) > 0 || err == nil {
			lineNo++
			line := strings.TrimRight(string(raw), " \t\r\n")
			if line != "" {
				depth := 0
				for strings.HasPrefix(line[depth*len(lead):], lead) {
					depth++
				}
				code := line[depth*len(lead):]
				pos := poserr.Pos{File: name, Line: lineNo, Column: depth*len(lead) + 1}
				if code == "" {
					return nil, &poserr.Error{Pos: pos, Text: line, Err: ErrCodeEmpty}
				}
				for _, m := range opt.Missing {
					if m != "" && code == m {
						return nil, &poserr.Error{Pos: pos, Text: line, Err: ErrCodeIsMissing}
					}
				}
				if opt.TotalCode != "" && code == opt.TotalCode {
					return nil, &poserr.Error{Pos: pos, Text: line, Err: ErrTotalCode}
				}
				t.Nodes = append(t.Nodes, Node{Code: code, Level: depth + 1, Line: lineNo, Column: pos.Column})
				texts = append(texts, line)
			}
		}
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrLineTooLong) {
			return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: lineNo + 1}, Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("hrc: reading %s: %w", name, err)
		}
	}
	// Second pass, as in τ-Argus: levels may only increase by one.
	prev := 0
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Level > prev+1 {
			return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: n.Line, Column: 1}, Text: texts[i], Err: ErrLevelIncorrect}
		}
		prev = n.Level
	}
	t.link()
	if err := t.checkDuplicates(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkDuplicates refuses a code that is its own ancestor and a basic code
// listed twice, naming both lines. An aggregate listed twice is accepted
// with a warning, as τ-Argus does (NUTS.hrc of τ-Argus's own checkTauArgus
// tests has "11" under "1" and again under "2"): each copy totals its own
// children.
func (t *Tree) checkDuplicates() error {
	first := make(map[string]int, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		j, seen := first[n.Code]
		if !seen {
			first[n.Code] = i
			continue
		}
		pos := poserr.Pos{File: t.File, Line: n.Line, Column: n.Column}
		chain := []string{n.Code}
		for a := n.Parent; a >= 0; a = t.Nodes[a].Parent {
			chain = append(chain, t.Nodes[a].Code)
			if a == j {
				slices.Reverse(chain)
				return &poserr.Error{Pos: pos, Err: fmt.Errorf("%w: %q (%s; first on line %d)",
					ErrCycle, n.Code, strings.Join(quoteAll(chain), " > "), t.Nodes[j].Line)}
			}
		}
		if n.Leaf || t.Nodes[j].Leaf {
			return &poserr.Error{Pos: pos, Err: fmt.Errorf("%w: %q under %s, already on line %d under %s",
				ErrDuplicateCode, n.Code, t.parentName(i), t.Nodes[j].Line, t.parentName(j))}
		}
		where := "under the same parent"
		if n.Parent != t.Nodes[j].Parent {
			where = fmt.Sprintf("under %s, first under %s", t.parentName(i), t.parentName(j))
		}
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s: aggregate code %q listed again %s (first on line %d); the output has one line per copy, each the total of its own children",
			pos, n.Code, where, t.Nodes[j].Line))
	}
	return nil
}

// parentName names the parent of node i for messages.
func (t *Tree) parentName(i int) string {
	if p := t.Nodes[i].Parent; p >= 0 {
		return strconv.Quote(t.Nodes[p].Code)
	}
	return "the total"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// maxLine is the longest line accepted, in bytes. τ-Argus itself reads at
// most 199 bytes at a time.
const maxLine = 64 * 1024

// readLine returns the next line without its LF (like fgets, a CR stays and
// is trimmed by the caller). It returns io.EOF with the last, unterminated
// line.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxLine {
			return nil, ErrLineTooLong
		}
		switch {
		case err == nil:
			return out[:len(out)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return out, err
		}
	}
}

// link computes parents, child counts, leaves, bogus flags and the index.
func (t *Tree) link() {
	stack := []int{} // stack[l-1] = index of the last node seen at level l
	for i := range t.Nodes {
		n := &t.Nodes[i]
		stack = stack[:n.Level-1]
		n.Parent = -1
		if n.Level > 1 {
			n.Parent = stack[n.Level-2]
			t.Nodes[n.Parent].Children++
		}
		stack = append(stack, i)
		if _, dup := t.index[n.Code]; !dup {
			t.index[n.Code] = i
		}
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.Leaf = n.Children == 0
		if n.Parent >= 0 && t.Nodes[n.Parent].Children == 1 {
			n.Bogus = true
		}
	}
}

// Width returns the length of the longest code; τ-Argus uses it as the code
// length of a variable whose hierarchy comes from a file.
func (t *Tree) Width() int {
	w := 0
	for _, n := range t.Nodes {
		w = max(w, len(n.Code))
	}
	return w
}

// Depth returns the deepest level of the tree (0 for an empty tree).
func (t *Tree) Depth() int {
	d := 0
	for _, n := range t.Nodes {
		d = max(d, n.Level)
	}
	return d
}

// Find returns the index of the first node whose code equals code exactly.
func (t *Tree) Find(code string) (int, bool) {
	i, ok := t.index[code]
	return i, ok
}

// FindLeaf returns the index of the first leaf whose code equals code
// exactly; microdata codes must match a leaf this way (§5.3).
func (t *Tree) FindLeaf(code string) (int, bool) {
	if i, ok := t.index[code]; ok && t.Nodes[i].Leaf {
		return i, true
	}
	for i, n := range t.Nodes {
		if n.Leaf && n.Code == code {
			return i, true
		}
	}
	return -1, false
}

// FindPadded looks code up the way τ-Argus's tabular reader does: as written
// first, then left-padded with blanks to [Tree.Width] (§6.2).
func (t *Tree) FindPadded(code string) (int, bool) {
	if i, ok := t.Find(code); ok {
		return i, true
	}
	if w := t.Width(); len(code) < w {
		return t.Find(strings.Repeat(" ", w-len(code)) + code)
	}
	return -1, false
}

// ChildIndices returns the indices of the direct children of node i, or of
// the top-level codes when i is -1.
func (t *Tree) ChildIndices(i int) []int {
	var out []int
	for j := range t.Nodes {
		if t.Nodes[j].Parent == i {
			out = append(out, j)
		}
	}
	return out
}

// Ancestors returns the indices of the ancestors of node i, nearest first
// (the implicit total is not included).
func (t *Tree) Ancestors(i int) []int {
	var out []int
	for p := t.Nodes[i].Parent; p >= 0; p = t.Nodes[p].Parent {
		out = append(out, p)
	}
	return out
}

// WriteOptions control [Write].
type WriteOptions struct {
	// LeadString is written level-1 times before each code; empty means
	// DefaultLeadString.
	LeadString string
	// LineEnding ends every line; empty means "\r\n", what τ-Argus writes on
	// Windows.
	LineEnding string
}

// Write writes codes with their levels as a hierarchy file: for each entry,
// Level-1 copies of the lead string followed by the code. Only Code and Level
// of the nodes are used; levels must be at least 1 and may increase by at
// most one from one node to the next (the first node must be at level 1).
// Codes that would not read back unchanged (empty, starting with the lead
// string, containing a LF or ending in a blank, tab or CR) are rejected.
func Write(w io.Writer, nodes []Node, opt WriteOptions) error {
	lead := opt.LeadString
	if lead == "" {
		lead = DefaultLeadString
	}
	eol := opt.LineEnding
	if eol == "" {
		eol = "\r\n"
	}
	var buf bytes.Buffer
	prev := 0
	for i, n := range nodes {
		if n.Level < 1 || n.Level > prev+1 {
			return fmt.Errorf("hrc: writing node %d (%q): level %d after level %d", i+1, n.Code, n.Level, prev)
		}
		if n.Code == "" {
			return fmt.Errorf("hrc: writing node %d: empty code", i+1)
		}
		if strings.HasPrefix(n.Code, lead) || strings.Contains(n.Code, "\n") ||
			strings.TrimRight(n.Code, " \t\r") != n.Code {
			return fmt.Errorf("hrc: writing node %d: code %q cannot be written with lead string %q", i+1, n.Code, lead)
		}
		prev = n.Level
		buf.WriteString(strings.Repeat(lead, n.Level-1))
		buf.WriteString(n.Code)
		buf.WriteString(eol)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("hrc: writing: %w", err)
	}
	return nil
}
