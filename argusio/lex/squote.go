package lex

import "strings"

// NextQuotedToken is [Scanner.NextToken] for an argument τ-Argus takes as a
// quoted string, accepting single quotes as well: a remainder starting with a
// single quote yields the text up to the next one (the closing quote consumed and
// the rest stripped of white space), and single reports it. Clients that
// build metadata with a shell's quoting (sdcTable on Linux writes
// <TOTCODE> 'Total') mean a quoted string there, which τ-Argus, never having
// met them, would take with the quotes. Without a closing single quote the
// token is read as NextToken reads it.
func (s *Scanner) NextQuotedToken() (value string, single bool) {
	if strings.HasPrefix(s.line, "'") {
		if end := strings.IndexByte(s.line[1:], '\''); end >= 0 {
			s.tokOff = s.off
			value = s.line[1 : end+1]
			s.advance(end+2, IsJavaWhitespace)
			return value, true
		}
	}
	return s.NextToken(), false
}
