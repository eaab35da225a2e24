package jobqueue

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/rda"
)

// JobFiles reads a batch file and lists the files it reads (inputs: data,
// metadata, and what the metadata names: hierarchies, code lists,
// p-tables; a-priori, recode and CKM p-table files) relative to its
// folder, the job directory. Every file the job reads or writes
// (including outputs, logbooks and version files) must be a local name in
// that directory: relative, without "..", drive, share or backslash. A
// name that is not is an error naming the batch line: a queued job may
// not reach outside its directory on the worker. Metadata files are read
// from the job directory to list their files.
func JobFiles(batchFile string) (inputs []string, err error) {
	f, err := infile.Open(batchFile)
	if err != nil {
		return nil, err
	}
	job, err := arb.Parse(f, batchFile)
	f.Close()
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(batchFile)
	add := func(list *[]string, name string) {
		if !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	var outside []string
	check := func(h *arb.Header, name string) bool {
		if !isLocal(name) {
			outside = append(outside, fmt.Sprintf("%s:%d: %q is outside the job directory", filepath.Base(batchFile), h.Pos.Line, name))
			return false
		}
		return true
	}
	tabular := false
	for _, cmd := range job.Commands {
		h := cmd.Head()
		switch c := cmd.(type) {
		case *arb.OpenMicrodata:
			tabular = false
			if check(h, c.File) {
				add(&inputs, c.File)
			}
		case *arb.OpenTableData:
			tabular = true
			if check(h, c.File) {
				add(&inputs, c.File)
			}
		case *arb.OpenMetadata:
			if !check(h, c.File) {
				continue
			}
			add(&inputs, c.File)
			names, err := metadataFiles(filepath.Join(dir, c.File), tabular)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", filepath.Base(batchFile), h.Pos.Line, err)
			}
			for _, n := range names {
				if check(h, n) {
					if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
						add(&inputs, n)
					}
				}
			}
		case *arb.Apriori:
			if check(h, c.File) {
				add(&inputs, c.File)
			}
		case *arb.Recode:
			if c.File != "" && check(h, c.File) {
				add(&inputs, c.File)
			}
		case *arb.Solver:
			if c.Licence != "" && check(h, c.Licence) {
				add(&inputs, c.Licence)
			}
		case *arb.Suppress:
			if c.Method == "CKM" {
				for _, magnitude := range []bool{false, true} {
					a := arb.CKMArgs{Rest: c.Rest}
					if fs, err := a.Parse(magnitude); err == nil {
						for _, n := range []string{fs.PTable, fs.PTableCont, fs.PTableSep} {
							if n != "" && check(h, n) {
								add(&inputs, n)
							}
						}
					}
				}
			}
		case *arb.WriteTable:
			check(h, c.File)
		case *arb.Logbook:
			check(h, strings.TrimSpace(c.File))
		case *arb.VersionInfo:
			check(h, c.File)
		}
	}
	if len(outside) > 0 {
		return nil, fmt.Errorf("refused: %s", strings.Join(outside, "; "))
	}
	return inputs, nil
}

// isLocal reports whether a file name of a job stays in the job directory
// on every system: relative, no "..", no drive letter, share or
// backslash.
func isLocal(name string) bool {
	if name == "" || strings.ContainsAny(name, `\:`) {
		return false
	}
	return filepath.IsLocal(name)
}

// metadataFiles lists the files a metadata file names (hierarchy and code
// list files, p-tables) as written.
func metadataFiles(path string, tabular bool) ([]string, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	origin := rda.Microdata
	if tabular {
		origin = rda.Tabular
	}
	m, err := rda.Parse(f, path, origin)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, v := range m.Variables {
		hier := v.HierFile
		if strings.ContainsAny(hier, `\:`) {
			// A Windows path (τ-Argus's metadata often has one) is not a
			// file here: the hierarchy is read by its base name next to
			// the data file, τ-Argus's rule.
			hier = hier[strings.LastIndexAny(hier, `\/:`)+1:]
		}
		codes := v.CodeList
		if strings.ContainsAny(codes, `\:`) {
			codes = "" // never read by a batch job, nor found here
		}
		for _, n := range []string{hier, codes, v.PTableFile, v.PTableFileCont, v.PTableFileSep} {
			if n != "" {
				names = append(names, n)
			}
		}
	}
	return names, nil
}
