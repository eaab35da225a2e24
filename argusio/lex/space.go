package lex

// IsJavaWhitespace reports whether b is white space for Java's
// Character.isWhitespace restricted to the bytes of an 8-bit charset: TAB,
// LF, VT, FF, CR, the separators 0x1C-0x1F and blank. This is the set that
// τ-Argus strips from whole lines and after tokens (StringUtils.strip).
func IsJavaWhitespace(b byte) bool {
	return b == ' ' || (b >= '\t' && b <= '\r') || (b >= 0x1c && b <= 0x1f)
}

// IsTrimSpace reports whether b is removed by Java's String.trim: every byte
// up to and including blank (all control characters). This is the set that
// τ-Argus trims in nextField, nextChar and its argument-list helpers.
func IsTrimSpace(b byte) bool { return b <= ' ' }

// Trim removes the bytes selected by [IsTrimSpace] from both ends of s, like
// Java's String.trim.
func Trim(s string) string {
	i, j := 0, len(s)
	for i < j && IsTrimSpace(s[i]) {
		i++
	}
	for j > i && IsTrimSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// Strip removes the bytes selected by [IsJavaWhitespace] from both ends of s,
// like Apache Commons StringUtils.strip.
func Strip(s string) string {
	i, j := 0, len(s)
	for i < j && IsJavaWhitespace(s[i]) {
		i++
	}
	for j > i && IsJavaWhitespace(s[j-1]) {
		j--
	}
	return s[i:j]
}
