//go:build !unix

package main

import "os"

// peakMB is not measured on this system.
func peakMB(*os.ProcessState) float64 { return 0 }
