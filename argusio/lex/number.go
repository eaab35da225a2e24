package lex

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/internal/numeric"
)

// ErrSyntax is wrapped by [ParseInt] and [ParseDouble] for text that is not
// a number.
var ErrSyntax = errors.New("invalid number")

// ErrRange is wrapped by [ParseDouble], [ToDouble] and [ToInteger] for a
// number that is not finite: NaN, Infinity, or too large for a float64
// ("1e400"). Java reads these as NaN and ±Infinity; no τ-Argus file has a
// use for them, and they would reach a method as a value it cannot protect.
var ErrRange = errors.New("number not finite")

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
// to blank are ignored; an optional sign; a decimal (or hexadecimal)
// floating-point literal with an optional type suffix f, F, d or D.
// Deviation: "NaN", "Infinity" and values too large for a float64 (which
// Java reads as NaN and ±Infinity) are errors wrapping [ErrRange].
func ParseDouble(s string) (float64, error) {
	t := Trim(s)
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	switch body {
	case "NaN", "Infinity":
		return 0, fmt.Errorf("%w: %q", ErrRange, s)
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
			if math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: %q", ErrRange, s)
			}
			return v, nil // underflow: 0 or a subnormal, as in Java
		}
		return 0, fmt.Errorf("%w: For input string: %q", ErrSyntax, s)
	}
	return v, nil
}

// ToDouble parses s like τ-Argus's StrUtils.toDouble: trimmed, every comma
// replaced by a point (so a decimal comma is accepted), then
// Double.parseDouble. The error message is τ-Argus's: "<s>" is not numeric
// (wrapping [ErrSyntax]); a number that is not finite gives "<s>" is not a
// finite number (wrapping [ErrRange]).
func ToDouble(s string) (float64, error) {
	t := strings.ReplaceAll(Trim(s), ",", ".")
	v, err := ParseDouble(t)
	if errors.Is(err, ErrRange) {
		return 0, Reason(ErrRange, `"`+t+`" is not a finite number.`)
	}
	if err != nil {
		return 0, Reason(ErrSyntax, `"`+t+`" is not numeric.`)
	}
	return v, nil
}

// ToInteger parses s like τ-Argus's StrUtils.toInteger: [ToDouble], then the
// value must be within the 32-bit range and integral (within [numeric.ToIntegerSlack]). So "2.0"
// and "2,0" are accepted. Messages are τ-Argus's.
func ToInteger(s string) (int, error) {
	d, err := ToDouble(s)
	if err != nil {
		return 0, err
	}
	if d > math.MaxInt32 || d < math.MinInt32 {
		return 0, errors.New(`"` + s + `" is too large to convert to integer.`)
	}
	r := math.Floor(d + 0.5) // Java Math.round rounds half up
	if math.Abs(d-r) > numeric.ToIntegerSlack {
		return 0, errors.New(`"` + s + `" is not an integer.`)
	}
	return int(r), nil
}
