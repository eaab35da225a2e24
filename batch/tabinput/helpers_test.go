package tabinput_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// job is what a batch file says about its (single) tabular table.
type job struct {
	src  tabinput.Source
	spec tabinput.Spec
	opt  tabinput.Options
}

// loadJob reads a batch file of testdata and returns the source, spec and
// options of its table, as the batch engine would derive them.
func loadJob(t *testing.T, arbPath string) job {
	t.Helper()
	f, err := os.Open(arbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j, err := arb.Parse(f, arbPath)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Dir(arbPath))
	if err != nil {
		t.Fatal(err)
	}
	res := arb.Resolver{ArbDir: abs + string(filepath.Separator)}
	var (
		dataFile, metaFile string
		spec               *arb.SpecifyTable
		sr                 *arb.SafetyRule
		rt                 *arb.ReadTable
	)
	for _, c := range j.Commands {
		switch c := c.(type) {
		case *arb.OpenTableData:
			if dataFile, err = res.Input(c.File); err != nil {
				t.Fatal(err)
			}
		case *arb.OpenMetadata:
			if metaFile, err = res.Input(c.File); err != nil {
				t.Fatal(err)
			}
		case *arb.SpecifyTable:
			spec = c
		case *arb.SafetyRule:
			sr = c
		case *arb.ReadTable:
			rt = c
		}
	}
	mf, err := os.Open(metaFile)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	meta, err := rda.Parse(mf, metaFile, rda.Tabular)
	if err != nil {
		t.Fatal(err)
	}
	src, err := tabinput.FileSource(meta, dataFile)
	if err != nil {
		t.Fatal(err)
	}
	s := tabinput.SpecFromBatch(spec)
	dec := 0
	if v := meta.Find(spec.Response); v != nil && !spec.FreqTable {
		dec = v.Decimals
	}
	var set *rules.Set
	if sr != nil {
		rs, err := rules.FromBatch(sr, dec)
		if err != nil {
			t.Fatal(err)
		}
		set = &rs
	}
	return job{src: src, spec: s, opt: tabinput.OptionsFromBatch(rt, sr, set)}
}

// memSource is a source held in memory: metadata text, .tab text and the
// .hrc texts by variable name.
func memSource(t *testing.T, rdaText, tabText string, hrcs map[string]string) tabinput.Source {
	t.Helper()
	meta, err := rda.Parse(strings.NewReader(rdaText), "t.rda", rda.Tabular)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	src := tabinput.Source{Meta: meta, Name: "t.tab", Hierarchies: map[string]*hrc.Tree{},
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tabText)), nil }}
	for name, text := range hrcs {
		v := meta.Find(name)
		if v == nil {
			t.Fatalf("no variable %s", name)
		}
		tree, err := tabinput.ReadHierarchy(strings.NewReader(text), name+".hrc", v)
		if err != nil {
			t.Fatalf("hierarchy %s: %v", name, err)
		}
		src.Hierarchies[strings.ToUpper(name)] = tree
	}
	return src
}

// read reads a table and fails the test on error.
func read(t *testing.T, src tabinput.Source, spec tabinput.Spec, opt tabinput.Options) *tabinput.Result {
	t.Helper()
	res, err := tabinput.Read(context.Background(), src, spec, opt)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if err := res.Table.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return res
}

// cellAt returns the cell with the given labels (the total as "").
func cellAt(t *testing.T, tab *table.Table, labels ...string) *table.Cell {
	t.Helper()
	idx := make([]int, len(labels))
	for d, l := range labels {
		idx[d] = -1
		for i, c := range tab.Dims[d].Codes {
			if c.Label == l {
				idx[d] = i
				break
			}
		}
		if idx[d] < 0 {
			t.Fatalf("dimension %d has no code %q", d, l)
		}
	}
	return tab.Cell(idx)
}

// codes returns the labels of a dimension with their levels, "label/level".
func codes(d *table.Dimension) []string {
	var out []string
	for _, c := range d.Codes {
		s := c.Label + "/" + string(rune('0'+c.Level))
		if c.Missing {
			s += "m"
		}
		out = append(out, s)
	}
	return out
}

// statusCounts counts the cells per status.
func statusCounts(tab *table.Table) map[cellstatus.Status]int {
	m := map[cellstatus.Status]int{}
	for i := range tab.Cells {
		m[tab.Cells[i].Status]++
	}
	return m
}

func approx(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d < 1e-9*(1+max(a, -a, b, -b))
}
