package batch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/batch/pathmap"
)

// mapPath maps a file name of the batch file or of a metadata file with
// the job's path mapping (Windows drive and share paths; see package
// pathmap).
func (e *engine) mapPath(name string) (string, error) {
	return e.cfg.PathMap.Apply(name)
}

// foldExists reports whether p names a file when case is ignored (also
// when several do: the lookup then reports the ambiguity).
func foldExists(p string) bool {
	_, err := pathmap.FindFold(p)
	var amb *pathmap.AmbiguousError
	return err == nil || errors.As(err, &amb)
}

// findInput resolves an input file named in the batch file: the name is
// mapped, then resolve applies τ-Argus's rule for the command. When that
// finds nothing, the rule is applied again ignoring case, as on Windows
// file systems; a unique match is used with a warning, several are an
// error listing them.
func (e *engine) findInput(name string, resolve func(r arb.Resolver, name string) (string, error)) (string, error) {
	path, folded, err := e.lookupInput(name, resolve)
	if err != nil {
		return "", err
	}
	if folded {
		e.warnCase(name, path)
	}
	return path, nil
}

// lookupInput is findInput without the warning; folded tells that the file
// was found ignoring case.
func (e *engine) lookupInput(name string, resolve func(r arb.Resolver, name string) (string, error)) (path string, folded bool, err error) {
	mapped, err := e.mapPath(name)
	if err != nil {
		return "", false, err
	}
	path, err = resolve(e.resolver, mapped)
	if err == nil {
		return path, false, nil
	}
	fold := e.resolver
	fold.Exists = foldExists
	p, ferr := resolve(fold, mapped)
	if ferr != nil {
		return "", false, err
	}
	real, ferr := pathmap.FindFold(p)
	if ferr != nil {
		return "", false, ferr
	}
	return real, true, nil
}

// inputErr is the error for an input file name that could not be found:
// err with the places it was looked for as hint, or with the path a
// mapped Windows path was read as, or err alone for an unmapped Windows
// path, which was not looked for at all.
func (e *engine) inputErr(name string, err error) error {
	if errors.Is(err, pathmap.ErrUnmapped) {
		return err
	}
	if mapped, merr := e.mapPath(name); merr == nil && pathmap.IsWindowsPath(name) && mapped != name {
		return withHint(err, "%s is read as %s (path mapping); check the path and the mapping", name, mapped)
	}
	return withHint(err, "%s", inputHint(e.resolver, name))
}

// warnCase records that a file was found ignoring case.
func (e *engine) warnCase(name, real string) {
	msg := fmt.Sprintf("file %s not found as written; using %s, whose name differs only in case (Windows ignores case)", name, real)
	e.warn(msg)
}

// foldDir returns path with its folder found ignoring case when the folder
// does not exist as written (Windows ignores case); changed reports it.
func foldDir(path string) (string, bool) {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err == nil {
		return path, false
	}
	real, err := pathmap.FindFold(dir)
	if err != nil {
		return path, false
	}
	return filepath.Join(real, filepath.Base(path)), true
}

// outputPath maps the file name of an output (<WRITETABLE>, <VERSIONINFO>,
// <LOGBOOK>) and finds its folder ignoring case, with a warning, when it
// does not exist as written.
func (e *engine) outputPath(name string, resolve func(string) string) (string, error) {
	mapped, err := e.mapPath(name)
	if err != nil {
		return "", err
	}
	path := resolve(mapped)
	if folded, changed := foldDir(path); changed {
		e.warnCase(filepath.Dir(path), filepath.Dir(folded))
		path = folded
	}
	return path, nil
}

// inputFile resolves the file of <OPENMICRODATA>, <OPENTABLEDATA> and
// <OPENMETADATA>.
func inputFile(r arb.Resolver, name string) (string, error) { return r.Input(name) }

// aprioriFile resolves the file of <APRIORI>.
func aprioriFile(r arb.Resolver, name string) (string, error) { return r.Apriori(name) }

// givenFile resolves a file used as given (the recode file of <RECODE>).
func givenFile(r arb.Resolver, name string) (string, error) {
	if r.Exists != nil {
		if r.Exists(name) {
			return name, nil
		}
		return "", os.ErrNotExist
	}
	if fileExists(name) {
		return name, nil
	}
	return "", os.ErrNotExist
}

// mapMetadataPaths maps the files a metadata file names: the hierarchy
// file of <HIERCODELIST> (also found ignoring case), the code list and the
// p-table files. An unmapped Windows hierarchy path is an error naming the
// .rda line unless τ-Argus's own rule finds its base name next to the data
// file; the code list and p-table files are never read by batch jobs and
// stay as written when unmapped.
//
// warn is told of a file found ignoring case.
func (e *engine) mapMetadataPaths(m *rda.Metadata, dataFile string, warn func(name, real string)) error {
	for _, v := range m.Variables {
		if v.Hierarchy == rda.HierFile && v.HierFile != "" {
			mapped, err := e.mapPath(v.HierFile)
			if err != nil {
				if _, rerr := rda.ResolveHierFile(v.HierFile, dataFile, fileExists); rerr == nil {
					continue
				}
				pos := v.KeywordPos["<HIERCODELIST>"]
				return &poserr.Error{Pos: poserr.Pos{File: pos.File, Line: pos.Line}, Field: "<HIERCODELIST>", Err: fmt.Errorf("<HIERCODELIST> %w", err)}
			}
			if _, err := rda.ResolveHierFile(mapped, dataFile, fileExists); err != nil {
				if p, ferr := rda.ResolveHierFile(mapped, dataFile, foldExists); ferr == nil {
					real, ferr := pathmap.FindFold(p)
					if ferr != nil {
						return ferr
					}
					warn(v.HierFile, real)
					mapped = real
				}
			}
			v.HierFile = mapped
		}
		for _, p := range []*string{&v.CodeList, &v.PTableFile, &v.PTableFileCont} {
			if mapped, err := e.mapPath(*p); err == nil {
				*p = mapped
			}
		}
	}
	return nil
}
