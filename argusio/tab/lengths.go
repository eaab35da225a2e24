package tab

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// CodeLengths computes the code length of every column the way τ-Argus does
// before reading a table (Metadata.setVariableLengthFromData, §6.2): for each
// column, the longest value, other than the column's total code, over all
// lines of the file. The result has one entry per layout column; the caller
// copies the entries of non-hierarchical Code columns into [Column.Length]
// (for .hrc variables τ-Argus takes the longest code of the hierarchy file
// instead).
//
// This pass is not the tokenizer's: lines end at LF, CR or CRLF and are
// trimmed, empty lines are skipped, but comment lines are not, and every
// other line must contain the separator ("Separator:x not found in table
// file"). Lines are split with Java's String.split, whose argument is a
// regular expression: a literal separator splits as expected, "|" splits
// between every character, "." yields no values, "^" and "$" do not split,
// and separators that are not valid expressions on their own (such as "+",
// "*", "?", "(", "[", "{", "\") make τ-Argus fail; they give
// ErrBadSeparator here. Each value is trimmed and one pair of quotes is
// removed before its length is taken; the comparison with the total code is
// exact.
func CodeLengths(r io.Reader, name string, layout Layout) ([]int, error) {
	l := layout.withDefaults()
	sep := l.Separator
	split, ok := lex.JavaSplitter(sep)
	if !ok {
		return nil, &poserr.Error{Pos: poserr.Pos{File: name}, Text: sep, Err: ErrBadSeparator}
	}
	lengths := make([]int, len(l.Columns))
	sc := bufio.NewScanner(lex.SkipBOM(r, 64*1024))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	sc.Split(lex.SplitLines)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := lex.Trim(sc.Text())
		if line == "" {
			continue
		}
		if !strings.Contains(line, sep) {
			return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: lineNo},
				Err: lex.Reason(ErrSeparatorMissing, "Separator:"+sep+" not found in table file")}
		}
		for j, v := range split(line) {
			if j >= len(l.Columns) {
				break
			}
			v = lex.UnquoteField(lex.Trim(v))
			if v != l.Columns[j].TotalCode {
				lengths[j] = max(lengths[j], len(v))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tab: reading %s: %w", name, err)
	}
	return lengths, nil
}
