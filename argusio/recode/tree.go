package recode

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// TreeHeader is the required first line of a tree recode file.
const TreeHeader = "<TREERECODE>"

// TreeLine is one code of a tree recode file.
type TreeLine struct {
	Code string // the line as written (not trimmed)
	Line int    // 1-based physical line number
}

// Tree is a parsed tree recode file: the parent codes to close.
type Tree struct {
	File  string
	Codes []TreeLine
}

// ReadTree reads a tree recode file the way τ-Argus does (not with the
// tokenizer): lines end at LF, CR or CRLF; the first line must be exactly
// "<TREERECODE>"; every later line that is not blank is a code, taken as
// written, blanks included, to be matched exactly with a code of the
// variable.
func ReadTree(r io.Reader, name string) (*Tree, error) {
	t := &Tree{File: name}
	sc := bufio.NewScanner(lex.SkipBOM(r, 0))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	sc.Split(lex.SplitLines)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			if line != TreeHeader {
				return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: 1}, Text: line, Err: ErrNoTreeHeader}
			}
			continue
		}
		if strings.TrimFunc(line, func(r rune) bool { return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f) }) == "" {
			continue
		}
		t.Codes = append(t.Codes, TreeLine{Code: line, Line: lineNo})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("recode: reading %s: %w", name, err)
	}
	if lineNo == 0 {
		return nil, &poserr.Error{Pos: poserr.Pos{File: name}, Err: ErrNoTreeHeader}
	}
	return t, nil
}

// HierCode is one code of a hierarchical code list, in code-list order
// (§5.3, §7): the total (level 0) is not included, missing codes are.
type HierCode struct {
	Code    string
	Level   int  // 1 = child of the total
	Missing bool // a missing code (at the end of the list, level 1)
}

// TreeCode is one code of a recoded hierarchical code list.
type TreeCode struct {
	HierCode
	Children int  // number of direct children after the recode
	Bogus    bool // only child of its parent
}

// TreeResult is a hierarchical code list after a tree recode or a
// truncation.
type TreeResult struct {
	Codes []TreeCode // the remaining codes in order, total not included
	// Map gives, for every source code, its index in Codes, or -1 for the
	// descendants of a closed node.
	Map   []int
	Width int // length of the longest remaining code
	// Closed lists the indices (in the source list) of the closed nodes.
	Closed []int
}

// ApplyTree closes the nodes named in t: each must equal a code of the list
// exactly (else "Code (x) not found"); closing a node removes all its
// descendants. Naming a code without children (or a missing code) has no
// effect, as in τ-Argus.
func ApplyTree(codes []HierCode, t *Tree) (*TreeResult, error) {
	active := make([]bool, len(codes))
	for i := range active {
		active[i] = true
	}
	var closed []int
	for _, tl := range t.Codes {
		idx := -1
		for i, c := range codes {
			if c.Code == tl.Code {
				idx = i
				break
			}
		}
		if idx < 0 {
			return nil, &poserr.Error{Pos: poserr.Pos{File: t.File, Line: tl.Line}, Text: tl.Code,
				Err: fmt.Errorf("%w: Code (%s) not found", ErrCodeNotFound, tl.Code)}
		}
		if closeNode(codes, active, idx) {
			closed = append(closed, idx)
		}
	}
	return build(codes, active, closed), nil
}

// Truncate closes every node at level k (1 = children of the total) that has
// children, as <RECODE> t, var, k does for a hierarchical variable.
func Truncate(codes []HierCode, k int) (*TreeResult, error) {
	if k < 1 || k > 9 {
		return nil, fmt.Errorf("recode: truncation level %d out of range 1-9", k)
	}
	active := make([]bool, len(codes))
	for i := range active {
		active[i] = true
	}
	var closed []int
	for i, c := range codes {
		if c.Level == k && active[i] && closeNode(codes, active, i) {
			closed = append(closed, i)
		}
	}
	return build(codes, active, closed), nil
}

// closeNode makes the descendants of node i inactive (τ-Argus SetActive);
// it reports false when the node has no children or is a missing code.
func closeNode(codes []HierCode, active []bool, i int) bool {
	if codes[i].Missing || i+1 >= len(codes) || codes[i+1].Missing || codes[i+1].Level <= codes[i].Level {
		return false
	}
	for j := i + 1; j < len(codes) && !codes[j].Missing && codes[j].Level > codes[i].Level; j++ {
		active[j] = false
	}
	return true
}

// build assembles the remaining codes and recomputes children and bogus
// flags (τ-Argus SetHierarchicalRecode).
func build(codes []HierCode, active []bool, closed []int) *TreeResult {
	res := &TreeResult{Map: make([]int, len(codes)), Closed: closed}
	for i, c := range codes {
		if !active[i] {
			res.Map[i] = -1
			continue
		}
		res.Map[i] = len(res.Codes)
		res.Codes = append(res.Codes, TreeCode{HierCode: c})
		res.Width = max(res.Width, len(c.Code))
	}
	rc := res.Codes
	for i := range rc {
		if rc[i].Missing {
			continue
		}
		n := 0
		for j := i + 1; j < len(rc) && !rc[j].Missing && rc[j].Level > rc[i].Level; j++ {
			if rc[j].Level == rc[i].Level+1 {
				n++
			}
		}
		rc[i].Children = n
		if n == 1 {
			rc[i+1].Bogus = true
		}
	}
	return res
}
