package rda

import (
	"errors"
	"path/filepath"
	"strings"
)

// ResolveHierFile applies τ-Argus's rule for the file named by
// <HIERCODELIST> (Metadata.getFilePath, docs/formats.md §3.3): if name
// itself names an existing file (relative names against the working
// directory), it is used as given; otherwise the base name of name (after
// the last '/' or '\') is looked up in the directory of the data file
// dataFile (not of the .rda). If that does not exist either, the error is
// τ-Argus's "File with name <name> does not exist.".
//
// exists reports whether a path names an existing regular file; it is a
// parameter so that callers can use a virtual file system and tests need no
// files. A data file without a directory part is taken to be in the working
// directory.
func ResolveHierFile(name, dataFile string, exists func(path string) bool) (string, error) {
	if exists(name) {
		return name, nil
	}
	dir := dirOf(dataFile)
	base := name[lastSep(name)+1:]
	var candidate string
	if dir == "" {
		candidate = base
	} else {
		candidate = filepath.Join(dir, base)
	}
	if base != "" && exists(candidate) {
		return candidate, nil
	}
	return "", errors.New("File with name " + name + " does not exist.")
}

// lastSep returns the index of the last '/' or '\' in s, or -1.
func lastSep(s string) int { return strings.LastIndexAny(s, `/\`) }

// dirOf returns the directory part of p without the final separator,
// treating both '/' and '\' as separators (FilenameUtils semantics); "" if p
// has no directory part. The root directory is kept as "/" or "\".
func dirOf(p string) string {
	i := lastSep(p)
	switch {
	case i < 0:
		return ""
	case i == 0:
		return p[:1]
	}
	return p[:i]
}
