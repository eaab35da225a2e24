// Package pidalive tells whether a process still exists, for the files and
// directories argus names after the process that made them (temporary
// output files, plugin socket directories): those of a dead process are
// left over from a killed run and may be removed.
package pidalive
