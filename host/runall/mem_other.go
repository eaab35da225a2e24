//go:build !linux

package runall

// availableMemory is unknown here: the workers follow the CPUs.
func availableMemory() uint64 { return 0 }
