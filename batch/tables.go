package batch

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/recode"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/apriori"
	"github.com/sdcengine/argus/batch/recodetable"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/batch/tabulate"
)

// writeFile writes a file of the job atomically.
func (e *engine) writeFile(path string, fill func(w io.Writer) error) error {
	return e.files.Write(path, 0o644, fill)
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
		e.hierarchyWarnings(trees)
		var specs []tabulate.Spec
		for _, t := range ts {
			specs = append(specs, tabulate.Spec{Explanatory: t.cmd.Explanatory, Response: responseName(t.cmd),
				Shadow: t.cmd.Shadow, Cost: costOf(t.cmd), Rules: &t.set})
		}
		e.logf("Start computing tables")
		// Progress is the share of the file's bytes read in each pass.
		var size int64
		if st, err := os.Stat(file); err == nil {
			size = st.Size()
		}
		var read atomic.Int64
		src := tabulate.Source{Meta: meta, Name: file, Hierarchies: trees,
			Open: func() (io.ReadCloser, error) {
				f, err := infile.Open(file)
				if err != nil {
					return nil, err
				}
				read.Store(0)
				return &countingReader{ReadCloser: f, n: &read}, nil
			},
			Progress: func(pass, n int) {
				frac := -1.0
				if size > 0 {
					frac = min(1, float64(read.Load())/float64(size))
				}
				e.progress(fmt.Sprintf("reading microdata (pass %d of 2)", pass), frac)
			}}
		res, err := tabulate.Build(e.ctx, src, specs)
		if err != nil {
			return err
		}
		for i, t := range ts {
			tabulate.ApplyRules(res[i], &t.set)
			t.table, t.base, t.extra, t.tableExtra = res[i].Table, res[i].Table, res[i].Extra, res[i].Extra
			e.logf("Table: %s has been specified", describe(t))
		}
	}
	e.logf("Tables have been computed")
	e.logf("Micro data file read; processing time %d seconds", int(time.Since(start).Seconds()))
	e.logf("Tables from microdata have been read")
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	k, err := r.ReadCloser.Read(p)
	r.n.Add(int64(k))
	return k, err
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
		f, err := infile.Open(path)
		if err != nil {
			return nil, err
		}
		tree, err := hrc.Read(f, path, hrc.Options{LeadString: v.HierLeadString, Missing: v.Missing[:]})
		f.Close()
		if err != nil {
			return nil, err
		}
		trees[charset.UpperKey(v.Name)] = tree
	}
	return trees, nil
}

// hierarchyWarnings logs and reports the warnings of the hierarchy files.
func (e *engine) hierarchyWarnings(trees map[string]*hrc.Tree) {
	for _, name := range slices.Sorted(maps.Keys(trees)) {
		for _, w := range trees[name].Warnings {
			e.warn(w)
		}
	}
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

// readTable reads every specified tabular table from its .tab file.
func (e *engine) readTable(c *arb.ReadTable) error {
	n := 0
	for _, t := range e.tables {
		if !t.tabular || t.table != nil {
			continue
		}
		src, err := tabinput.FileSource(t.meta, t.dataFile)
		if err != nil {
			return err
		}
		e.hierarchyWarnings(src.Hierarchies)
		var set *rules.Set
		if t.rules != nil {
			set = &t.set
		}
		res, err := tabinput.Read(e.ctx, src, tabinput.SpecFromBatch(t.cmd), tabinput.OptionsFromBatch(c, t.rules, set))
		if res != nil {
			for _, l := range res.Log {
				e.logf("%s", l)
			}
			for _, w := range res.Warnings {
				e.warn(w)
			}
		}
		if err != nil {
			var ae *tabinput.AdditivityError
			if errors.As(err, &ae) {
				report := filepath.Join(e.cfg.TempDir, "AdditErr.txt")
				if gerr := e.guard.check(report, "the additivity report", false); gerr != nil {
					e.logf("The non-additive relations are not listed: %v", gerr)
				} else if werr := e.writeFile(report, func(w io.Writer) error {
					return ae.WriteReport(w, t.dataFile, t.metaFile, e.cfg.Now().Format(time.DateTime), "\r\n")
				}); werr == nil {
					e.logf("The non-additive relations are listed in %s", report)
				}
			}
			return err
		}
		t.table = res.Table
		if res.HasSecondary {
			t.method = "as read"
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no tabular table has been specified")
	}
	e.logf("Tables have been read")
	return nil
}

// apriori applies an a-priori file to a table.
func (e *engine) apriori(c *arb.Apriori) error {
	t, err := e.tableArg(c.Table)
	if err != nil {
		return err
	}
	path, err := e.findInput(c.File, aprioriFile)
	if err != nil {
		return err
	}
	if err := e.guard.input(path, inputWhat("a-priori file", &c.Header)); err != nil {
		return err
	}
	f, err := infile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := apriori.Apply(e.ctx, t.table, f, path, apriori.Options{Separator: c.Separator,
		IgnoreError: c.IgnoreError, ExpandTrivial: c.ExpandTrivial, Rules: &t.set})
	if err != nil {
		if pe, ok := errors.AsType[*poserr.Error](err); ok && errors.Is(err, apriori.ErrStop) {
			// τ-Argus's words first (clients search for them), then where
			// and why, which τ-Argus does not say.
			return errors.New(apriori.BatchMessage(pe.File) + "\n" + pe.Detail())
		}
		return err
	}
	e.logf("%s", res.LogMessage(describe(t)))
	for _, w := range res.Warnings() {
		e.warn(w)
	}
	e.logf("Apriori file %s has been read", c.File)
	if skipped := res.Skipped(); len(skipped) > 0 {
		e.warnSkipped(c, skipped, len(res.Lines))
	}
	return nil
}

// recode recodes one explanatory variable of a microdata table: the table is
// rebuilt from the table as first computed with every recode given so far,
// and its statuses and protection levels recomputed.
func (e *engine) recode(c *arb.Recode) error {
	t, err := e.tableArg(c.Table)
	if err != nil {
		return err
	}
	if t.tabular {
		return errors.New("Recode is not allowed for tabular input")
	}
	if t.method != "" {
		return fmt.Errorf("table %d has already been protected; recode it before <SUPPRESS>", c.Table)
	}
	dim := -1
	for d, v := range t.cmd.Explanatory {
		if charset.EqualFold(v, c.Variable) {
			dim = d
		}
	}
	if dim < 0 {
		return fmt.Errorf("Variable %s is not an explanatory variable of table %d", c.Variable, c.Table)
	}
	var rc recodetable.Recode
	hier := t.base.Dims[dim].Hierarchical()
	switch {
	case c.Level > 0:
		if !hier {
			return fmt.Errorf("Variable %s is not hierarchical; it cannot be recoded to a level", c.Variable)
		}
		rc.Level = c.Level
	default:
		path, err := e.findInput(c.File, givenFile)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("Recode file %s could not be found", c.File)
			}
			return err
		}
		if err := e.guard.input(path, inputWhat("recode file", &c.Header)); err != nil {
			return err
		}
		f, err := infile.Open(path)
		if errors.Is(err, infile.ErrNotRegular) {
			return err
		}
		if err != nil {
			return fmt.Errorf("Recode file %s could not be found", c.File)
		}
		defer f.Close()
		if hier {
			rc.Tree, err = recode.ReadTree(f, path)
		} else {
			rc.Global, err = recode.ReadGlobal(f, path)
		}
		if err != nil {
			return err
		}
	}
	if t.recodes == nil {
		t.recodes = map[int]recodetable.Recode{}
	}
	t.recodes[dim] = rc
	cur := &tabulate.Result{Table: t.base, Extra: t.extra}
	var warning string
	for d := range t.base.Dims {
		r, ok := t.recodes[d]
		if !ok {
			continue
		}
		res, err := recodetable.Apply(cur.Table, cur.Extra, d, r)
		if err != nil {
			return err
		}
		if d == dim {
			warning = res.Warning
		}
		cur = &res.Result
	}
	tabulate.ApplyRules(cur, &t.set)
	t.table, t.tableExtra = cur.Table, cur.Extra
	if warning != "" {
		e.logf("%s", strings.TrimRight(warning, "\r\n"))
	}
	e.logf("Variable %s has been recoded for table %d", c.Variable, c.Table)
	return nil
}
