// Package recode reads τ-Argus recode files and applies recodes to code
// lists, as <RECODE> does (docs/formats.md §9):
//
//   - global recode files (.grc) for non-hierarchical variables: [ReadGlobal]
//     and [Global.Apply] (J Variable.readRecodeFile, C DoRecode,
//     ParseRecodeString, ReadWord, SetCode2Recode);
//   - tree recode files (first line <TREERECODE>) for hierarchical
//     variables: [ReadTree] and [ApplyTree] (J applyRecodeTree, C SetActive,
//     SetHierarchicalRecode);
//   - digit truncation (<RECODE> t, var, k): [Truncate].
//
// A global recode file is read with the τ-Argus tokenizer (blank and "//"
// lines skipped, tabs are blanks, lines trimmed). "<MISSING> m1 [m2]" (a
// comma between is allowed when surrounded by blanks) gives the missing codes
// of the recoded variable, "<CODELIST> file" a label file; every other line
// is a rule
//
//	newcode : item , item , ...
//
// where an item is a code, "code1 - code2" (range), "- code" (everything up
// to) or "code -" (everything from). Codes may be double-quoted (then they
// may contain blanks, '-' and ','); blanks around '-', ',' and ':' are free.
// Syntax errors are reported as τ-Argus does, with its error names ("Hard
// error", "Length error", "Wrong range", ...), the number of the rule line
// and a 1-based position.
package recode

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Errors of recode files. The texts of the engine's errors are those of
// TauArgus.properties.
var (
	ErrNoMissing      = errors.New("No Missing Values found after <MISSING>")
	ErrHard           = errors.New("Hard error")
	ErrLength         = errors.New("Length error")
	ErrRange          = errors.New("Wrong range")
	ErrEmptySpec      = errors.New("Empty recode specification")
	ErrMissingToValid = errors.New("Cannot assign a missing to a valid code")
	ErrNoTreeHeader   = errors.New(`First line does not start with "<TREERECODE>"`)
	ErrCodeNotFound   = errors.New("Code not found")
)

// maxCodeWidth is τ-Argus's limit on the length of a code in a rule.
const maxCodeWidth = 100

// ItemKind is the form of one source item of a rule.
type ItemKind int

// Item kinds (τ-Argus FROMTO_*).
const (
	Single ItemKind = iota // code
	UpTo                   // - code
	From                   // code -
	Range                  // code1 - code2
)

// Item is one source item of a rule, codes as written (not padded).
type Item struct {
	Kind ItemKind
	From string // the code; for UpTo the upper end
	// To is the upper end of a Range. τ-Argus also keeps a second code after
	// "- code" (as in "- 5 7"), which it checks but does not use; it is
	// stored here too.
	To  string
	Pos int // 1-based position of the item in the rule line
}

// Rule is one rule line "newcode : items".
type Rule struct {
	Dest  string // the new code, as written
	Items []Item
	Index int    // 1-based number among the rule lines (τ-Argus's "line")
	Line  int    // 1-based physical line number
	Text  string // the line as read
}

// Global is a parsed global recode file.
type Global struct {
	File string
	// Missing1 and Missing2 come from <MISSING>; empty if not given.
	Missing1, Missing2 string
	CodeList           string // from <CODELIST>
	Rules              []Rule
}

// ruleError returns the error of kind at the 1-based byte pos of rule in
// file, the cause worded as τ-Argus: "<kind> in recoding; line <Index> pos
// <pos>"; errors.Is matches kind (ErrHard, ErrLength, ErrRange,
// ErrEmptySpec or ErrMissingToValid).
func ruleError(file string, kind error, rule *Rule, pos int) *poserr.Error {
	return &poserr.Error{Pos: poserr.Pos{File: file, Line: rule.Line, Column: pos},
		Err: lex.Reason(kind, kind.Error()+" in recoding; line "+strconv.Itoa(rule.Index)+" pos "+strconv.Itoa(pos))}
}

// ReadGlobal reads a global recode file. Syntax errors of rules are returned
// as *poserr.Error (file, line, column and the line text, the cause in
// τ-Argus's words and matching the kind of error with errors.Is);
// checks that need the variable (code lengths, ranges, missing codes) are
// done by [Global.Apply].
func ReadGlobal(r io.Reader, name string) (*Global, error) {
	g := &Global{File: name}
	sc := lex.NewScanner(r, name)
	for sc.NextLine() {
		text := sc.Text()
		tok := sc.NextToken()
		switch tok {
		case "<MISSING>":
			m1 := sc.NextToken()
			if m1 == "" {
				return nil, &poserr.Error{Pos: sc.LinePos(), Text: text, Err: ErrNoMissing}
			}
			t := sc.NextToken()
			if t == "," {
				t = sc.NextToken()
			}
			g.Missing1, g.Missing2 = m1, t
		case "<CODELIST>":
			g.CodeList = sc.NextToken()
		case "":
		default:
			rule := Rule{Index: len(g.Rules) + 1, Line: sc.LineNumber(), Text: text}
			if err := parseRule(name, &rule, 0); err != nil {
				err.Text = text
				return nil, err
			}
			g.Rules = append(g.Rules, rule)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("recode: %w", err)
	}
	return g, nil
}

// parseRule parses rule.Text into rule (τ-Argus ParseRecodeStringLine in the
// CHECK phase). With length > 0 the source codes are also checked against
// the variable length and ranges are checked, both on codes left-padded to
// length. file names the file in errors.
func parseRule(file string, rule *Rule, length int) *poserr.Error {
	str := rule.Text
	rule.Items = rule.Items[:0]
	i := 0
	for i < len(str) && str[i] == ' ' {
		i++
	}
	// τ-Argus skips lines whose first non-blank byte is a control byte or,
	// through a signed-char comparison, a byte of 0x80 or more.
	if i == len(str) || str[i] < 32 || str[i] >= 0x80 {
		return nil
	}
	w, end, pos, ok := readWord(str, ':', false)
	if !ok || end >= len(str) || str[end] != ':' {
		return ruleError(file, ErrHard, rule, pos+i+1)
	}
	rule.Dest = w.from
	i += end
	for {
		i++
		w, n, pos, ok := readWord(str[i:], ',', true)
		if !ok {
			return ruleError(file, ErrHard, rule, pos+i+1)
		}
		errPos := pos + i + 1
		if length > 0 {
			if len(w.from) > length || len(w.to) > length {
				return ruleError(file, ErrLength, rule, errPos)
			}
			if w.kind == Range && lex.PadLeft(w.from, length) > lex.PadLeft(w.to, length) {
				return ruleError(file, ErrRange, rule, errPos)
			}
		}
		rule.Items = append(rule.Items, Item{Kind: w.kind, From: w.from, To: w.to, Pos: i + 1})
		i += n
		if i >= len(str) || str[i] == '\n' || str[i] == '\r' || str[i] == 0 {
			return nil
		}
	}
}

// word is what τ-Argus's ReadWord extracts.
type word struct {
	kind     ItemKind
	from, to string
}

// readWord ports τ-Argus's ReadWord: it reads one code, a range or an open
// range up to endCode. It returns the word, the index where it stopped, the
// position of an error and whether it succeeded. withTo says whether a
// second code may be stored (false for the new code of a rule, where
// τ-Argus would write through a null pointer).
func readWord(str string, endCode byte, withTo bool) (word, int, int, bool) {
	at := func(i int) byte {
		if i < len(str) {
			return str[i]
		}
		return 0
	}
	var w word
	w.kind = Single
	i := 0
	for pass := 1; ; pass++ {
		switch pass {
		case 1:
		case 2:
			if w.kind == Single || !withTo {
				return w, 0, i, false
			}
		default:
			return w, 0, i, false
		}
		for at(i) == ' ' {
			i++
		}
		if at(i) == '-' {
			if w.kind != Single || pass != 1 {
				return w, 0, i, false
			}
			w.kind = UpTo
			i++
			for at(i) == ' ' {
				i++
			}
		}
		if w.kind == From && pass == 2 {
			w.kind = Range
		}
		start := i
		var code string
		if at(i) == '"' {
			i++
			start = i
			for c := at(i); c != 0 && c != '\n' && c != '\r' && c != '"'; c = at(i) {
				if i-start >= maxCodeWidth {
					return w, 0, i, false
				}
				i++
			}
			code = str[start:i]
			if at(i) != '"' {
				return w, 0, i, false
			}
			i++
		} else {
			for c := at(i); c != 0 && c != endCode && c != ' ' && c != '-' && c != '\n' && c != '\r'; c = at(i) {
				if i-start >= maxCodeWidth {
					return w, 0, i, false
				}
				i++
			}
			code = str[start:i]
		}
		if code == "" {
			return w, 0, i, false
		}
		if pass == 1 {
			w.from = code
		} else {
			w.to = code
		}
		for at(i) == ' ' {
			i++
		}
		if at(i) == '-' {
			if w.kind != Single || pass != 1 {
				return w, 0, i, false
			}
			w.kind = From
			i++
		}
		for at(i) == ' ' {
			i++
		}
		if c := at(i); c == endCode || c == 0 || c == '\n' || c == '\r' {
			return w, i, 0, true
		}
	}
}
