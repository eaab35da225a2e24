//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Used returns the user plus system CPU time of the process so far, every
// thread included.
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
