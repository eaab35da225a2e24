// Package charset converts between Windows-1252 and UTF-8.
//
// argus keeps the text of τ-Argus files as their bytes, as τ-Argus does (it
// reads every file as Windows-1252, one byte per character): code lengths and
// fixed-width positions count bytes, and an output echoing a code writes the
// bytes of the input, whether the file was UTF-8 or Latin-1. Only where text
// must be UTF-8 (protobuf strings on the plugin contract, JSON) is it
// converted, with this package: a text that is valid UTF-8 is taken as
// UTF-8, another as Windows-1252.
//
// The mapping is the WHATWG one (used by browsers): the five bytes
// Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) decode to the
// C1 controls of the same number, so [Decode] is a bijection between bytes
// and 256 runes and two different byte strings never decode alike.
// golang.org/x/text's charmap.Windows1252 decodes those five bytes to U+FFFD,
// which would merge different codes; hence this table of 32 entries.
package charset

import (
	"strings"
	"unicode/utf8"
)

// high holds the runes of the bytes 0x80–0x9F; every other byte is the rune
// of the same number (ISO 8859-1).
var high = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// isASCII reports whether s has only bytes below 0x80.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Decode returns s, read as Windows-1252, as UTF-8.
func Decode(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x80:
			b.WriteByte(c)
		case c < 0xA0:
			b.WriteRune(high[c-0x80])
		default:
			b.WriteRune(rune(c))
		}
	}
	return b.String()
}

// Encode returns the UTF-8 text s encoded as Windows-1252. A rune
// Windows-1252 cannot encode, and a byte that is not UTF-8, become '?', as
// in Java's encoders.
func Encode(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 || (r >= 0xA0 && r <= 0xFF) {
			b.WriteByte(byte(r))
			continue
		}
		c := byte('?')
		for i, h := range high {
			if h == r && r != utf8.RuneError {
				c = byte(0x80 + i)
				break
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ToUTF8 returns s itself when it is valid UTF-8, else s read as
// Windows-1252.
func ToUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return Decode(s)
}

// EqualFold reports whether the names a and b are equal ignoring case, as
// τ-Argus compares variable names. Two UTF-8 texts are compared as UTF-8;
// otherwise both are read as Windows-1252 first, so that Latin-1 "R\xc9GION"
// equals "r\xe9gion" while "r\xe9gion" and "r\xe8gion" stay different
// (strings.EqualFold reads every invalid byte as U+FFFD and would call them
// equal).
func EqualFold(a, b string) bool {
	if isASCII(a) && isASCII(b) || utf8.ValidString(a) && utf8.ValidString(b) {
		return strings.EqualFold(a, b)
	}
	return strings.EqualFold(Decode(a), Decode(b))
}

// UpperKey returns a map key for the name s consistent with [EqualFold]
// between names of the same encoding: strings.ToUpper of s when s is valid
// UTF-8, else of its Windows-1252 reading, marked so that the two kinds of
// keys never collide. (strings.ToUpper maps every invalid byte to U+FFFD:
// different Latin-1 names would share a key.)
func UpperKey(s string) string {
	if utf8.ValidString(s) {
		return strings.ToUpper(s)
	}
	return "\xff" + strings.ToUpper(Decode(s))
}
