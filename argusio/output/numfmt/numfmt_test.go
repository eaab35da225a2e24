package numfmt

import (
	"math"
	"strconv"
	"testing"
)

func TestC(t *testing.T) {
	tests := []struct {
		x    float64
		dec  int
		want string
	}{
		{16847646.84, 2, "16847646.84"},
		{20, 2, "20.00"},
		{0.125, 2, "0.12"}, // exact tie: to even
		{0.375, 2, "0.38"}, // exact tie: to even
		{1.005, 2, "1.00"}, // binary value below the tie
		{2.675, 2, "2.67"},
		{0.135, 2, "0.14"}, // binary value above the tie
		{-0.001, 2, "-0.00"},
		{math.Copysign(0, -1), 1, "-0.0"},
		{0, 0, "0"},
		{2.5, 0, "2"},
		{3.5, 0, "4"},
		{95.95, 1, "96.0"},
		{1 << 60, 0, "1152921504606846976"},
		{0.1, 20, "0.10000000000000000555"},
		{1, -1, "1.000000"},
		{math.NaN(), 2, "nan"},
		{math.Inf(1), 2, "inf"},
		{math.Inf(-1), 2, "-inf"},
	}
	for _, tt := range tests {
		if got := C(tt.x, tt.dec); got != tt.want {
			t.Errorf("C(%v, %d) = %q, want %q", tt.x, tt.dec, got, tt.want)
		}
		if got := string(AppendC([]byte("x"), tt.x, tt.dec)); got != "x"+tt.want {
			t.Errorf("AppendC(%v, %d) = %q, want %q", tt.x, tt.dec, got, "x"+tt.want)
		}
	}
}

func TestJava(t *testing.T) {
	tests := []struct {
		x    float64
		dec  int
		sep  byte
		want string
	}{
		{16847646.84, 2, ',', "16847646,84"},
		{0.01, 2, ',', "0,01"},
		{0.75, 2, ',', "0,75"},
		{1288.15, 2, ',', "1288,15"},
		{5, 2, '.', "5.00"},
		{0, 2, '.', "0.00"},
		{0, 0, '.', "0"},
		{math.Copysign(0, -1), 2, '.', "-0.00"},
		{-0.001, 2, '.', "-0.00"},
		{-12.5, 0, '.', "-12"}, // HALF_EVEN on an exact tie
		{13.5, 0, '.', "14"},
		{0.125, 2, '.', "0.12"},
		{1.005, 2, '.', "1.00"}, // shortest digits "1005" were rounded up from the binary value
		{0.135, 2, '.', "0.14"},
		{1 << 60, 0, '.', "1152921504606847000"}, // differs from C
		{1 << 60, 2, ',', "1152921504606847000,00"},
		{0.1, 20, '.', "0.10000000000000000000"}, // differs from C
		{1e-7, 9, '.', "0.000000100"},
		{1e-7, 3, '.', "0.000"},
		{123.456, 5, '.', "123.45600"},
		{1e22, 1, '.', "10000000000000000000000.0"},
		{25271470.26, 3, '.', "25271470.260"},
		{math.NaN(), 2, '.', "NaN"},
		{math.Inf(-1), 2, '.', "-Infinity"},
		{3, -2, '.', "3"},
	}
	for _, tt := range tests {
		if got := Java(tt.x, tt.dec, tt.sep); got != tt.want {
			t.Errorf("Java(%v, %d, %q) = %q, want %q", tt.x, tt.dec, tt.sep, got, tt.want)
		}
	}
}

// TestJavaMatchesCBelow2p53 checks the documented claim that both formats
// agree for ordinary values: integers below 2^53 and few decimals.
func TestJavaMatchesCBelow2p53(t *testing.T) {
	xs := []float64{0.5, 1.25, 99.995, 12345.6789, 1e15 + 0.5, 4503599627370495.5, 7.0000001, 1.0 / 3}
	for _, x := range xs {
		for dec := 0; dec <= 6; dec++ {
			for _, v := range []float64{x, -x} {
				if c, j := C(v, dec), Java(v, dec, '.'); c != j {
					t.Errorf("%v with %d decimals: C %q, Java %q", v, dec, c, j)
				}
			}
		}
	}
}

func FuzzJava(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-2.675", "1e300", "5e-324", "1152921504606846976"} {
		x, _ := strconv.ParseFloat(s, 64)
		f.Add(x, 2)
	}
	f.Fuzz(func(t *testing.T, x float64, dec int) {
		dec %= 40
		s := Java(x, dec, '.')
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		if dec < 0 {
			dec = 0
		}
		y, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("Java(%v, %d) = %q: not a number", x, dec, s)
		}
		// The result is within half a unit of the last place of x (or of the
		// shortest representation's precision, whichever is coarser).
		if tol := 0.5*math.Pow(10, -float64(dec)) + math.Abs(x)*1e-15; math.Abs(y-x) > tol {
			t.Fatalf("Java(%v, %d) = %q, off by %g", x, dec, s, y-x)
		}
	})
}

func TestCWindows(t *testing.T) {
	tests := []struct {
		x    float64
		dec  int
		want string
	}{
		{91.25, 1, "91.3"},   // exact tie: up (C gives 91.2)
		{1.45, 1, "1.5"},     // 1.4499999999999999556: 17 digits 1.4500000000000000
		{1.15, 1, "1.1"},     // 1.1499999999999999112: 17 digits 1.1499999999999999
		{0.125, 2, "0.13"},   // exact tie: up
		{2.675, 2, "2.67"},   // below the tie even at 17 digits
		{2.5, 0, "3"},        // C gives 2
		{-2.5, 0, "-3"},      // half away from zero
		{99.95, 1, "100.0"},  // carry into a new digit
		{9.96, 1, "10.0"},    // carry
		{0.04, 1, "0.0"},     //
		{0.05, 1, "0.1"},     // 0.05000000000000000277
		{0.0004, 2, "0.00"},  // below the precision
		{0.006, 2, "0.01"},   // first digit at the rounding place
		{0.0005, 3, "0.001"}, //
		{0, 1, "0.0"},
		{math.Copysign(0, -1), 1, "-0.0"},
		{-0.01, 1, "-0.0"},
		{100, 1, "100.0"},
		{16847646.84, 2, "16847646.84"},
		{0.1, 20, "0.10000000000000001000"}, // 17 digits, then zeros
		{1 << 60, 0, "1152921504606847000"},
		{33.333333333333336, 1, "33.3"},
		{66.66666666666667, 1, "66.7"},
		{1, -1, "1.000000"},
		{math.NaN(), 1, "nan"},
	}
	for _, tt := range tests {
		if got := CWindows(tt.x, tt.dec); got != tt.want {
			t.Errorf("CWindows(%v, %d) = %q, want %q", tt.x, tt.dec, got, tt.want)
		}
	}
}

// TestCWindowsAgreesWithCAwayFromTies: away from ties (and within 17
// significant digits) both printf implementations give the same digits.
func TestCWindowsAgreesWithCAwayFromTies(t *testing.T) {
	for i := 0; i < 100000; i++ {
		x := float64(i)*0.0137 - 300
		for _, dec := range []int{0, 1, 2, 4} {
			c, w := C(x, dec), CWindows(x, dec)
			if c == w {
				continue
			}
			// They may differ only where the value is within a few ulps of
			// a tie at dec decimals.
			scaled := math.Abs(x) * math.Pow(10, float64(dec))
			if frac := scaled - math.Floor(scaled); math.Abs(frac-0.5) > 1e-9 {
				t.Fatalf("%v with %d decimals: C %q, CWindows %q", x, dec, c, w)
			}
		}
	}
}
