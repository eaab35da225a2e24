package lex

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by [ParseInt] and [ParseDouble] for text that is not
// a number.
var ErrSyntax = errors.New("invalid number")

// ParseInt parses s like Java's Integer.parseInt: an optional sign followed
// by decimal digits, nothing else (no blanks, no decimal point), within the
// 32-bit range. τ-Argus uses it for most integer arguments; a failure there
// is an uncaught runtime error in τ-Argus.
func ParseInt(s string) (int, error) {
	if s == "" || strings.ContainsAny(s, "_") {
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	return int(v), nil
}

// ParseDouble parses s like Java's Double.parseDouble: surrounding bytes up
// to blank are ignored; an optional sign; "NaN", "Infinity", or a decimal
// (or hexadecimal) floating-point literal with an optional type suffix
// f, F, d or D. Values too large for a float64 become ±Inf as in Java.
func ParseDouble(s string) (float64, error) {
	t := Trim(s)
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	switch body {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if n := len(t); n > 0 && strings.IndexByte("fFdD", t[n-1]) >= 0 {
		hex := strings.HasPrefix(body, "0x") || strings.HasPrefix(body, "0X")
		if !hex || strings.ContainsAny(body, "pP") {
			t = t[:n-1]
		}
	}
	// Reject what Go accepts but Java does not.
	for i := 0; i < len(t); i++ {
		c := t[i]
		isHexDigit := (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
		if !(c >= '0' && c <= '9') && !isHexDigit && !strings.ContainsRune("+-.xXpP", rune(c)) {
			return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return v, nil
		}
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	return v, nil
}

// ToDouble parses s like τ-Argus's StrUtils.toDouble: trimmed, every comma
// replaced by a point (so a decimal comma is accepted), then
// Double.parseDouble. The error message is τ-Argus's: "<s>" is not numeric.
func ToDouble(s string) (float64, error) {
	t := strings.ReplaceAll(Trim(s), ",", ".")
	v, err := ParseDouble(t)
	if err != nil {
		return 0, errors.New(`"` + t + `" is not numeric.`)
	}
	return v, nil
}

// ToInteger parses s like τ-Argus's StrUtils.toInteger: [ToDouble], then the
// value must be within the 32-bit range and integral (within 1e-9). So "2.0"
// and "2,0" are accepted. Messages are τ-Argus's.
func ToInteger(s string) (int, error) {
	d, err := ToDouble(s)
	if err != nil {
		return 0, err
	}
	if d > math.MaxInt32 || d < math.MinInt32 {
		return 0, errors.New(`"` + s + `" is too large to convert to integer.`)
	}
	if math.IsNaN(d) {
		return 0, nil // Java: Math.round(NaN) is 0 and the check passes
	}
	r := math.Floor(d + 0.5) // Java Math.round rounds half up
	if math.Abs(d-r) > 0.000000001 {
		return 0, errors.New(`"` + s + `" is not an integer.`)
	}
	return int(r), nil
}
