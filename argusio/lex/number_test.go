package lex

import (
	"errors"
	"testing"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"15", 15, true}, {"+7", 7, true}, {"-3", -3, true}, {"007", 7, true},
		{"2147483647", 2147483647, true}, {"-2147483648", -2147483648, true},
		{"2147483648", 0, false}, {"", 0, false}, {" 1", 0, false}, {"1 ", 0, false},
		{"1.0", 0, false}, {"1_0", 0, false}, {"0x10", 0, false}, {"+-1", 0, false}, {"--1", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseInt(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseInt(%q): error %v does not wrap ErrSyntax", tt.in, err)
		}
	}
}

func TestParseDouble(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {" 2.5 ", 2.5, true}, {"-0.5", -0.5, true}, {"+.5", 0.5, true}, {"1.", 1, true},
		{"1e3", 1000, true}, {"1E-2", 0.01, true}, {"3f", 3, true}, {"3.5D", 3.5, true},
		{"Infinity", 0, false}, {"-Infinity", 0, false}, {"1e999", 0, false}, {"-1e400", 0, false}, {"NaN", 0, false},
		{"1e-400", 0, true},
		{"0x1p4", 16, true}, {"0x1p4d", 16, true},
		{"", 0, false}, {".", 0, false}, {"inf", 0, false}, {"nan", 0, false}, {"1,5", 0, false},
		{"1_000", 0, false}, {"1e", 0, false}, {"abc", 0, false}, {"--1", 0, false}, {"0x10", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseDouble(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDouble(%q) = %v, %v; want %v ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	// Not finite: Java reads NaN, ±Infinity; argus refuses them (ErrRange).
	for _, in := range []string{"NaN", "Infinity", "-Infinity", "1e400", "-1e999d", "0x1p2000"} {
		if _, err := ParseDouble(in); !errors.Is(err, ErrRange) {
			t.Errorf("ParseDouble(%q): error %v, want ErrRange", in, err)
		}
	}
}

func TestToDoubleToInteger(t *testing.T) {
	if v, err := ToDouble(" 1,5 "); err != nil || v != 1.5 {
		t.Errorf("ToDouble(1,5) = %v, %v", v, err)
	}
	if _, err := ToDouble("x"); err == nil || err.Error() != `"x" is not numeric.` || !errors.Is(err, ErrSyntax) {
		t.Errorf("ToDouble(x) error %v", err)
	}
	if _, err := ToDouble("1e400"); err == nil || err.Error() != `"1e400" is not a finite number.` || !errors.Is(err, ErrRange) {
		t.Errorf("ToDouble(1e400) error %v", err)
	}
	ints := []struct {
		in   string
		want int
		msg  string
	}{
		{"3", 3, ""}, {"3.0", 3, ""}, {"3,0", 3, ""}, {" -2 ", -2, ""}, {"2.0000000001", 2, ""},
		{"2.5", 0, `"2.5" is not an integer.`},
		{"3e10", 0, `"3e10" is too large to convert to integer.`},
		{"a", 0, `"a" is not numeric.`},
		{"NaN", 0, `"NaN" is not a finite number.`},
	}
	for _, tt := range ints {
		got, err := ToInteger(tt.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.msg {
			t.Errorf("ToInteger(%q) = %d, %q; want %d, %q", tt.in, got, msg, tt.want, tt.msg)
		}
	}
}
