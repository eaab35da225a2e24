package scalebench

import "testing"

func TestSizeName(t *testing.T) {
	for n, want := range map[int]string{10000: "1e4", 100000: "1e5", 1000000: "1e6", 2500: "2.5e3", 3000: "3e3"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPeakRSS(t *testing.T) {
	resetPeakRSS()
	if p := peakRSS(); p < 0 {
		t.Errorf("peakRSS() = %d", p)
	}
}
