// Package cdl reads τ-Argus code list files (.cdl), the label files named by
// <CODELIST> in a metadata file (format: the τ-ARGUS user's manual (de Wolf et al., version 4.2)).
//
// A code list gives a label to codes: one "code,label" pair per line, the
// first comma separating the two. The code is written as it appears in the
// data, including leading blanks (" 1,Groningen" labels the two-byte code
// " 1"). Labels are purely cosmetic; τ-Argus 4.2 never opens a .cdl in batch
// mode, so a re-implementation may ignore the files, and this reader is
// tolerant:
//
//   - The input is 8-bit text; bytes are passed through unchanged.
//   - Lines end at LF, CRLF or a lone CR. Lines that are empty after removing
//     trailing blanks and tabs are skipped.
//   - The code keeps its leading blanks; trailing blanks and tabs of the code
//     are removed. The label is trimmed of blanks and tabs on both sides.
//   - A line without a comma is a code without a label.
//   - A line whose code is empty (it starts with a comma) is an error.
//
// Duplicate codes are kept; lookups return the first entry.
package cdl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// ErrEmptyCode is wrapped in the *poserr.Error returned for a line whose
// code is empty.
var ErrEmptyCode = errors.New("empty code in code list")

// Entry is one line of a code list.
type Entry struct {
	Code  string // as in the data, leading blanks kept
	Label string // may be empty
	Line  int    // 1-based physical line number
}

// List is a parsed code list.
type List struct {
	File    string  // file name given to Read
	Entries []Entry // in file order
	index   map[string]int
}

// Read parses a code list from r. The name is used in error messages.
func Read(r io.Reader, name string) (*List, error) {
	l := &List{File: name, index: make(map[string]int)}
	sc := bufio.NewScanner(lex.SkipBOM(r, 0))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	sc.Split(lex.SplitLines)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), " \t")
		if line == "" {
			continue
		}
		code, label, _ := strings.Cut(line, ",")
		code = strings.TrimRight(code, " \t")
		if code == "" {
			return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: lineNo, Column: 1}, Text: line, Err: ErrEmptyCode}
		}
		label = strings.Trim(label, " \t")
		if _, dup := l.index[code]; !dup {
			l.index[code] = len(l.Entries)
		}
		l.Entries = append(l.Entries, Entry{Code: code, Label: label, Line: lineNo})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cdl: reading %s: %w", name, err)
	}
	return l, nil
}

// Label returns the label of code. The code is looked up as given first and
// then with surrounding blanks removed on both sides (so "1" finds the entry
// " 1" and vice versa).
func (l *List) Label(code string) (string, bool) {
	if i, ok := l.index[code]; ok {
		return l.Entries[i].Label, true
	}
	want := strings.TrimSpace(code)
	for _, e := range l.Entries {
		if strings.TrimSpace(e.Code) == want {
			return e.Label, true
		}
	}
	return "", false
}

// Len returns the number of entries.
func (l *List) Len() int { return len(l.Entries) }
