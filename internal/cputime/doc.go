// Package cputime measures the CPU time of the process, the figure the
// benchmarks report beside wall time (on a loaded machine wall time says
// little).
package cputime
