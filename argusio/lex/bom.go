package lex

import (
	"bufio"
	"io"
)

// bom is the UTF-8 byte order mark.
const bom = "\xef\xbb\xbf"

// SkipBOM returns a reader of r without a leading UTF-8 byte order mark.
// Editors on Windows (Notepad, Excel's "CSV UTF-8") put one at the start of
// files; τ-Argus reads it as three characters of the first line, which
// breaks the first keyword, name or record, so every reader of argus skips
// it. The result is r itself when r is a *bufio.Reader; size is the buffer
// size of a new one (0 = default).
func SkipBOM(r io.Reader, size int) *bufio.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		if size <= 0 {
			size = 4096
		}
		br = bufio.NewReaderSize(r, size)
	}
	if b, _ := br.Peek(len(bom)); string(b) == bom {
		_, _ = br.Discard(len(bom))
	}
	return br
}
