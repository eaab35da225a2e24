package scalebench

import (
	"runtime"
	"testing"
)

func TestSizeName(t *testing.T) {
	for n, want := range map[int]string{10000: "1e4", 100000: "1e5", 1000000: "1e6", 2500: "2.5e3", 3000: "3e3"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	resetPeakRSS()
	before := peakRSS()
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 1
	}
	if after := peakRSS(); before <= 0 || after < before+32<<20 {
		t.Errorf("peak RSS %d before and %d after touching 64 MiB", before, after)
	}
	runtime.KeepAlive(big)
}
