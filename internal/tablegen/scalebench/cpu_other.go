//go:build !unix

package scalebench

import "time"

// cpuTime returns 0: the process CPU time is not measured here.
func cpuTime() time.Duration { return 0 }
