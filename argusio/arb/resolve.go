package arb

import (
	"errors"
	"os"
	"strings"
)

// Resolver applies τ-Argus's rules for the file names of batch commands
// (docs/formats.md §3.3). A name is "plain" when it contains none of
// ':', '\' and '/'; only plain names are combined with a directory.
type Resolver struct {
	// ArbDir is the absolute directory of the batch file.
	ArbDir string
	// DataDir is the batch data directory (4th command-line argument), or
	// "" when none was given.
	DataDir string
	// Exists reports whether a path names an existing file. If nil, the
	// operating system is asked.
	Exists func(path string) bool
}

// IsPlain reports whether name contains none of ':', '\' and '/'.
func IsPlain(name string) bool { return !strings.ContainsAny(name, `:\/`) }

// join appends name to dir, adding the platform separator when dir does not
// already end in '/' or '\'. (τ-Argus always uses '\' for the data
// directory; here the separator of the running platform is used.)
func join(dir, name string) string {
	if dir == "" || strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`) {
		return dir + name
	}
	return dir + string(os.PathSeparator) + name
}

func (r Resolver) exists(p string) bool {
	if r.Exists != nil {
		return r.Exists(p)
	}
	_, err := os.Stat(p)
	return err == nil
}

// Input resolves the file of <OPENMICRODATA>, <OPENTABLEDATA>,
// <OPENMETADATA> and the p-tables of CKM: a plain name is looked up in
// ArbDir, then in DataDir; other names are used as given. The file must
// exist, else the error is "file: <name> could not be found.".
func (r Resolver) Input(name string) (string, error) {
	p := name
	if IsPlain(name) {
		p = join(r.ArbDir, name)
		if !r.exists(p) {
			p = join(r.DataDir, name)
		}
	}
	if !r.exists(p) {
		return "", errors.New("file: " + name + " could not be found.")
	}
	return p, nil
}

// Output resolves the file of <WRITETABLE> and <VERSIONINFO>: a plain name
// goes to DataDir if one was given, else to ArbDir; other names are used as
// given. Nothing is checked.
func (r Resolver) Output(name string) string {
	if !IsPlain(name) {
		return name
	}
	if r.DataDir != "" {
		return join(r.DataDir, name)
	}
	return join(r.ArbDir, name)
}

// Apriori resolves the file of <APRIORI>: the name as given if that file
// exists, else ArbDir+name if that exists (DataDir is not used), else the
// error "Apriori file: <name> could not be found".
func (r Resolver) Apriori(name string) (string, error) {
	if r.exists(name) {
		return name, nil
	}
	if p := join(r.ArbDir, name); r.exists(p) {
		return p, nil
	}
	return "", errors.New("Apriori file: " + name + " could not be found")
}
