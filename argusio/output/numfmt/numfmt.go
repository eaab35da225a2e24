// Package numfmt formats numbers exactly as the two halves of τ-Argus do
// (its C++ engine and its Java program).
//
// The C++ engine writes numbers with printf("%.*f", dec, x): the binary value
// correctly rounded to dec decimals (ties to even on exactly representable
// halves), '.' as decimal point, no grouping. [C] reproduces that with
// strconv's 'f' formatting, which has the same semantics.
//
// The Java side (intermediate and CKM files, the JJ post-processing) uses
// java.text.DecimalFormat with minimum = maximum fraction digits = dec, no
// grouping and the default rounding mode HALF_EVEN. Since Java 8 that rounds
// the binary value correctly too, but it works from the shortest decimal
// representation of the double (the digits of Double.toString): when that
// representation has fewer digits than the requested precision, Java pads
// with zeros where printf prints the exact binary expansion. The two differ
// only for values beyond 2^53 and for precisions beyond about 17 significant
// digits (2^60 with 0 decimals: C "1152921504606846976", Java
// "1152921504606847000"; 0.1 with 20 decimals: C "0.10000000000000000555",
// Java "0.10000000000000000000"). [Java] implements the Java behaviour, with a
// selectable decimal separator for the JVM-locale dependence of τ-Argus's
// writers.
//
// τ-Argus on Windows links its engine against the Microsoft C runtime,
// whose printf rounds differently from the C standard's on ties (see
// [CWindows]); the SBS percentages, where ties are common, use
// [CWindows].
//
// Both keep the sign of negative values that round to zero ("-0.00"). Not
// reproduced: the rare cases where Java 8's Double.toString is not the
// shortest representation, and the NaN/infinity symbols of DecimalFormat
// (which τ-Argus never writes for valid tables); NaN and infinities are
// written as "nan", "inf", "-inf" by [C] (like C) and "NaN", "Infinity",
// "-Infinity" by [Java]. [Java] uses the shortest representation (that of
// Java 19 and later); Java 8's Double.toString sometimes produced one or two
// more digits (2^60 as "1.15292150460684698E18"), which only matters in the
// beyond-2^53 cases above.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// C formats x like C's printf("%.*f", dec, x). A negative dec means the
// default precision 6, as in C.
func C(x float64, dec int) string {
	if dec < 0 {
		dec = 6
	}
	if s, ok := nonFinite(x, "nan", "inf"); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', dec, 64)
}

// AppendC appends C(x, dec) to dst.
func AppendC(dst []byte, x float64, dec int) []byte {
	if dec < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return append(dst, C(x, dec)...)
	}
	return strconv.AppendFloat(dst, x, 'f', dec, 64)
}

// Java formats x like a java.text.DecimalFormat with dec fraction digits
// (minimum and maximum), no grouping, HALF_EVEN rounding and sep as the
// decimal separator. A negative dec is treated as 0.
func Java(x float64, dec int, sep byte) string {
	if dec < 0 {
		dec = 0
	}
	if s, ok := nonFinite(x, javaNaN, javaInf); ok {
		return s
	}
	neg := math.Signbit(x)
	ax := math.Abs(x)
	var s string
	if ax == 0 {
		s = "0"
		if dec > 0 {
			s += "." + strings.Repeat("0", dec)
		}
	} else {
		s = javaDigits(ax, dec)
	}
	if sep != '.' {
		s = strings.Replace(s, ".", string(sep), 1)
	}
	if neg {
		return "-" + s
	}
	return s
}

// javaDigits formats the positive finite ax with dec decimals the way
// DecimalFormat does.
func javaDigits(ax float64, dec int) string {
	// Shortest representation: d.ddddde±XX.
	e := strconv.FormatFloat(ax, 'e', -1, 64)
	mant, expPart, _ := strings.Cut(e, "e")
	exp, err := strconv.Atoi(expPart)
	if err != nil {
		return strconv.FormatFloat(ax, 'f', dec, 64)
	}
	digits := strings.Replace(mant, ".", "", 1)
	// value = 0.digits × 10^(exp+1); digits after the decimal point:
	frac := len(digits) - (exp + 1)
	if frac > dec {
		// Rounding needed. Rounding the shortest digits half-even, with
		// Java 8's correction for digit strings that end in an inexact 5,
		// is the correct rounding of the binary value.
		return strconv.FormatFloat(ax, 'f', dec, 64)
	}
	// The shortest digits fit: print them, padded with zeros.
	var b strings.Builder
	intLen := exp + 1
	switch {
	case intLen <= 0:
		b.WriteString("0")
	case intLen >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", intLen-len(digits)))
	default:
		b.WriteString(digits[:intLen])
	}
	if dec == 0 {
		return b.String()
	}
	b.WriteByte('.')
	var fd string
	switch {
	case intLen <= 0:
		fd = strings.Repeat("0", -intLen) + digits
	case intLen < len(digits):
		fd = digits[intLen:]
	}
	b.WriteString(fd)
	b.WriteString(strings.Repeat("0", dec-len(fd)))
	return b.String()
}

// windowsDigits is the number of significant digits the Microsoft C
// runtime's printf computes before it rounds to the requested precision.
const windowsDigits = 17

// CWindows formats x like printf("%.*f", dec, x) of the Microsoft C runtime
// (msvcrt.dll), which τ-Argus's engine is linked against on Windows. That
// printf does not round the binary value: it first takes the value to 17
// significant digits and then rounds that digit string half away from
// zero, looking at the first dropped digit only. So an exact tie rounds
// up (91.25 → "91.3", where [C] gives "91.2"), and so does a binary value
// just below a tie whose 17-digit form is the tie (1.45, stored as
// 1.4499999999999999556, → "1.5"); digits beyond the 17th are printed as
// zeros. A negative dec means 6, as in C; NaN and infinities as in [C].
func CWindows(x float64, dec int) string {
	if dec < 0 {
		dec = 6
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return C(x, dec)
	}
	neg := math.Signbit(x)
	// d.dddddddddddddddde±XX: 17 significant digits, correctly rounded.
	e := strconv.FormatFloat(math.Abs(x), 'e', windowsDigits-1, 64)
	mant, expPart, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expPart)
	digits := []byte(strings.Replace(mant, ".", "", 1))
	if x == 0 {
		exp = 0
	}
	// value = 0.digits × 10^(exp+1); keep exp+1+dec digits.
	keep := exp + 1 + dec
	switch {
	case keep < 0:
		digits = digits[:0]
	case keep < len(digits):
		up := digits[keep] >= '5'
		digits = digits[:keep]
		if up {
			i := len(digits) - 1
			for ; i >= 0 && digits[i] == '9'; i-- {
				digits[i] = '0'
			}
			if i >= 0 {
				digits[i]++
			} else {
				digits = append([]byte{'1'}, digits...)
				exp++
			}
		}
	}
	// digits now hold the value's digits from 10^exp down to at most
	// 10^-dec; lay them out in fixed notation.
	intLen := exp + 1
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	digit := func(pos int) byte { // pos 0 is the 10^exp digit
		if pos >= 0 && pos < len(digits) {
			return digits[pos]
		}
		return '0'
	}
	if intLen <= 0 {
		b.WriteByte('0')
	} else {
		for i := 0; i < intLen; i++ {
			b.WriteByte(digit(i))
		}
	}
	if dec > 0 {
		b.WriteByte('.')
		for i := 0; i < dec; i++ {
			b.WriteByte(digit(intLen + i))
		}
	}
	return b.String()
}

// JavaDouble formats x like Java's Double.toString, as τ-Argus's messages
// show numbers: plain notation with at least one decimal between 10^-3 and
// 10^7, else computerised scientific notation ("1.0E7").
func JavaDouble(x float64) string {
	if s, ok := nonFinite(x, javaNaN, javaInf); ok {
		return s
	}
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(x); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// Java's names of NaN and infinity (Double.toString).
const (
	javaNaN = "NaN"
	javaInf = "Infinity"
)

// nonFinite returns nan for a NaN x, inf for +Inf and "-" followed by inf
// for -Inf, with ok true; ok is false for a finite x.
func nonFinite(x float64, nan, inf string) (s string, ok bool) {
	switch {
	case math.IsNaN(x):
		return nan, true
	case math.IsInf(x, 1):
		return inf, true
	case math.IsInf(x, -1):
		return "-" + inf, true
	}
	return "", false
}
