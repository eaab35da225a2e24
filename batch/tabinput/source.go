package tabinput

import (
	"fmt"
	"io"
	"os"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/rda"
)

// FileSource returns the Source of the .tab file dataFile described by meta:
// the file is opened from disk for every pass, and the .hrc file of every
// explanatory variable with a <HIERCODELIST> is found by τ-Argus's rule
// (rda.ResolveHierFile: as given, else next to the data file) and read with
// [ReadHierarchy].
func FileSource(meta *rda.Metadata, dataFile string) (Source, error) {
	src := Source{Meta: meta, Name: dataFile, Hierarchies: map[string]*hrc.Tree{},
		Open: func() (io.ReadCloser, error) { return infile.Open(dataFile) }}
	if meta == nil {
		return src, fmt.Errorf("tabinput: no metadata for %s", dataFile)
	}
	exists := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && !st.IsDir()
	}
	for _, v := range meta.Explanatory() {
		if v.Hierarchy != rda.HierFile {
			continue
		}
		path, err := rda.ResolveHierFile(v.HierFile, dataFile, exists)
		if err != nil {
			return src, err
		}
		f, err := infile.Open(path)
		if err != nil {
			return src, err
		}
		tree, err := ReadHierarchy(f, path, v)
		f.Close()
		if err != nil {
			return src, err
		}
		src.Hierarchies[charset.UpperKey(v.Name)] = tree
	}
	return src, nil
}
