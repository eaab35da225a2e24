package lex

// PadLeft left-pads s with blanks to n bytes, as τ-Argus's AddSpacesBefore
// does; s is returned as it is when it has n bytes or more.
func PadLeft(s string, n int) string {
	if len(s) >= n {
		return s
	}
	b := make([]byte, n)
	for i := range n - len(s) {
		b[i] = ' '
	}
	copy(b[n-len(s):], s)
	return string(b)
}
