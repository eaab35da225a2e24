//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakMB is the largest resident set, in MB, of the process and the
// descendants it waited for.
func peakMB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) / (1 << 20) // bytes
	}
	return float64(ru.Maxrss) / (1 << 10) // kilobytes
}
