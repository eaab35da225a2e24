package batch

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/tabulate"
)

// writeFile writes a file atomically.
func writeFile(path string, fill func(w io.Writer) error) error {
	return atomicfile.Write(path, 0o644, fill)
}

// readMicrodata builds every specified microdata table.
func (e *engine) readMicrodata() error {
	start := time.Now()
	byFile := map[string][]*tableSpec{}
	var files []string
	for _, t := range e.tables {
		if t.tabular || t.table != nil {
			continue
		}
		if _, ok := byFile[t.dataFile]; !ok {
			files = append(files, t.dataFile)
		}
		byFile[t.dataFile] = append(byFile[t.dataFile], t)
	}
	if len(files) == 0 {
		return fmt.Errorf("no microdata table has been specified")
	}
	for _, file := range files {
		ts := byFile[file]
		meta := ts[0].meta
		e.logf("Start explore file: %s", file)
		trees, err := loadHierarchies(meta, file)
		if err != nil {
			return err
		}
		var specs []tabulate.Spec
		for _, t := range ts {
			specs = append(specs, tabulate.Spec{Explanatory: t.cmd.Explanatory, Response: responseName(t.cmd),
				Shadow: t.cmd.Shadow, Cost: costOf(t.cmd), Rules: &t.set})
		}
		e.logf("Start computing tables")
		src := tabulate.Source{Meta: meta, Name: file, Hierarchies: trees,
			Open:     func() (io.ReadCloser, error) { return os.Open(file) },
			Progress: func(pass, n int) { e.progress(fmt.Sprintf("reading microdata (pass %d)", pass), -1) }}
		res, err := tabulate.Build(e.ctx, src, specs)
		if err != nil {
			return err
		}
		for i, t := range ts {
			tabulate.ApplyRules(res[i], &t.set)
			t.table = res[i].Table
			e.logf("Table: %s has been specified", describe(t))
		}
	}
	e.logf("Tables have been computed")
	e.logf("Micro data file read; processing time %d seconds", int(time.Since(start).Seconds()))
	e.logf("Tables from microdata have been read")
	for _, t := range e.tables {
		e.report.addTable(t)
	}
	return nil
}

func (e *engine) progress(step string, fraction float64) {
	if e.cfg.Progress != nil {
		e.cfg.Progress(step, fraction)
	}
}

func responseName(c *arb.SpecifyTable) string {
	if c.FreqTable {
		return tabulate.FreqResponse
	}
	return c.Response
}

func costOf(c *arb.SpecifyTable) table.Cost {
	var cost table.Cost
	switch c.Cost {
	case arb.CostVariable:
		cost = table.NewCost(table.CostVariable, c.CostVar)
	case arb.CostFrequency:
		cost = table.NewCost(table.CostFrequency, "")
	case arb.CostUnity:
		cost = table.NewCost(table.CostUnity, "")
	case arb.CostDistance:
		cost = table.NewCost(table.CostDistance, "")
	default:
		if c.FreqTable {
			cost = table.NewCost(table.CostFrequency, "")
		} else {
			cost = table.NewCost(table.CostResponse, "")
		}
	}
	if c.HasLambda {
		cost.Lambda = c.Lambda
	}
	return cost
}

// describe is τ-Argus's table description "V1 x V2 | resp".
func describe(t *tableSpec) string {
	resp := t.cmd.Response
	if t.cmd.FreqTable {
		resp = "<freq>"
	}
	return strings.Join(t.cmd.Explanatory, " x ") + " | " + resp
}

// loadHierarchies reads the .hrc file of every explanatory variable with a
// <HIERCODELIST>, found by τ-Argus's rule (as given, else next to the data).
func loadHierarchies(meta *rda.Metadata, dataFile string) (map[string]*hrc.Tree, error) {
	trees := map[string]*hrc.Tree{}
	for _, v := range meta.Variables {
		if v.Hierarchy != rda.HierFile {
			continue
		}
		path, err := rda.ResolveHierFile(v.HierFile, dataFile, fileExists)
		if err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		tree, err := hrc.Read(f, path, hrc.Options{LeadString: v.HierLeadString, Missing: v.Missing[:]})
		f.Close()
		if err != nil {
			return nil, err
		}
		trees[strings.ToUpper(v.Name)] = tree
	}
	return trees, nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// readTable reads tabular input (not yet wired to the tabular reader).
func (e *engine) readTable(c *arb.ReadTable) error {
	_ = c
	return fmt.Errorf("reading tabular input is not supported yet")
}

func (e *engine) apriori(c *arb.Apriori) error {
	return fmt.Errorf("a-priori files are not supported yet")
}

func (e *engine) recode(c *arb.Recode) error {
	return fmt.Errorf("<RECODE> is not supported yet")
}
