package tablegen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/table"
)

// Table returns the instance as a τ-Argus table (the model of the argusio
// writers), with the current statuses of the problem. hrc names the
// hierarchy file of each hierarchical dimension (a dimension with a code
// deeper than 1), given its name; nil leaves the file names empty.
func (in *Instance) Table(hrc func(dim string) string) (*table.Table, error) {
	p := in.Problem
	if len(p.Tables) != 1 {
		return nil, errors.New("tablegen: the instance is not one table")
	}
	t := &table.Table{Response: table.Variable{Name: p.Response, Decimals: p.Decimals}, Frequency: table.Magnitude}
	switch in.Spec.Cost {
	case CostValue:
		t.Cost = table.NewCost(table.CostResponse, "")
	case CostUnit:
		t.Cost = table.NewCost(table.CostUnity, "")
	case CostFreq:
		t.Cost = table.NewCost(table.CostFrequency, "")
	case CostInverse: // the JJ writer scales the costs to whole numbers
		t.Cost = table.NewCost(table.CostVariable, p.Response+"_Cost")
	}
	t.Rules.TopN = p.TopN
	t.Rules.DominanceRule = in.Spec.Primary.Kind == RuleDominance
	t.Rules.PRule = in.Spec.Primary.Kind == RulePercent
	for _, d := range p.Tables[0].Dims {
		td := table.Dimension{Name: d.Name, Codes: make([]table.Code, len(d.Codes))}
		for i := range d.Codes {
			td.Codes[i] = table.Code{Label: d.Codes[i], Parent: int(d.Parent[i]), Level: int(d.Depth[i])}
			if d.Depth[i] > 1 {
				td.Hierarchy = table.HierFile
			}
		}
		td.Codes[0].Label = ""
		td.MarkTrivial()
		if td.Hierarchical() {
			td.LeadString = "@"
			if hrc != nil {
				td.HierFile = hrc(d.Name)
			}
		}
		t.Dims = append(t.Dims, td)
	}
	c := &p.Cells
	t.Cells = make([]table.Cell, p.NumCells())
	for i := range t.Cells {
		tc := &t.Cells[i]
		tc.Value, tc.Shadow, tc.Freq, tc.Weight = c.Value[i], c.Shadow[i], c.Freq[i], float64(c.Freq[i])
		tc.Cost = c.Cost[i]
		tc.Status = c.Status[i]
		tc.LowerPL, tc.UpperPL = c.LowerPL[i], c.UpperPL[i]
		if p.TopN > 0 {
			tc.TopN = c.Top[i*p.TopN : (i+1)*p.TopN]
		}
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("tablegen: %w", err)
	}
	return t, nil
}

// bounds returns the table-wide a-priori bounds of the instance (before the
// widening for the primaries, which the JJ writer does itself).
func (in *Instance) bounds() jj.Bounds {
	return jj.Bounds{Upper: largestValue(&in.Problem.Cells) * in.Spec.BoundFactor}
}

// WriteJJ writes the instance in JJ format (package argusio/jj, τ-Argus's
// layout: costs scaled to whole numbers up to 20000, "\n" line ends) and,
// when frq is not nil, the frequency side file.
func (in *Instance) WriteJJ(w, frq io.Writer) error {
	t, err := in.Table(nil)
	if err != nil {
		return err
	}
	b := in.bounds()
	if err := jj.Write(w, frq, t, jj.WriteOptions{Bounds: &b, Newline: "\n"}); err != nil {
		return fmt.Errorf("tablegen: %w", err)
	}
	return nil
}

// Job names the files of a τ-Argus job: Dir/Name.tab, .rda, .arb, one
// Name_<dimension>.hrc per hierarchical dimension, and the output the job
// writes, Name-protected.txt (code-value with statuses).
type Job struct {
	Dir, Name string
	// Suppress is the <SUPPRESS> command's method with its arguments but
	// without the table number, e.g. "GH(100)" or "MOD(5,1,1,0,0)"; the
	// empty string means "GH(100,0,1)".
	Suppress string
}

// WriteJob writes the instance as a τ-Argus table-input job: the
// intermediate .tab and .rda of <WRITETABLE> type 5 (statuses S and U and the
// protection levels are read back as they are; empty cells are left out,
// which the reader takes as empty), the hierarchy files and a batch file that reads the table with a MAN(0) rule (so the statuses of the
// file stay), protects it with Suppress and writes the code-value file.
// Every file is written atomically; on an error none of them is left
// behind. The job carries τ-Argus's a-priori bounds, so the spec's bound
// factor must be 1.5, and whole-number costs, so not CostInverse.
func (in *Instance) WriteJob(j Job) error {
	if in.Spec.BoundFactor != 1.5 {
		return fmt.Errorf("tablegen: a τ-Argus job has τ-Argus's bounds (1.5 × the largest value); bound factor %g cannot be written", in.Spec.BoundFactor)
	}
	if in.Spec.Cost == CostInverse {
		return errors.New("tablegen: a τ-Argus job writes costs with the response's decimals (none here), so 1/value cannot be written; use the JJ file or the problem")
	}
	if j.Name == "" || strings.ContainsAny(j.Name, `/\"`) {
		return fmt.Errorf("tablegen: job name %q: want a file name without quotes or separators", j.Name)
	}
	sup := j.Suppress
	if sup == "" {
		sup = "GH(100,0,1)"
	}
	open := strings.IndexByte(sup, '(')
	if open < 1 || !strings.HasSuffix(sup, ")") || strings.ContainsAny(sup, "\r\n<>\"") {
		return fmt.Errorf("tablegen: method %q: want NAME(args…), e.g. GH(100,0,1)", sup)
	}
	if args := sup[open+1 : len(sup)-1]; args == "" {
		sup = sup[:open] + "(1)"
	} else {
		sup = sup[:open] + "(1," + args + ")"
	}
	hrcName := func(dim string) string { return j.Name + "_" + dim + ".hrc" }
	t, err := in.Table(hrcName)
	if err != nil {
		return err
	}
	type file struct {
		name string
		b    bytes.Buffer
	}
	var files []*file
	add := func(name string) *bytes.Buffer {
		f := &file{name: name}
		files = append(files, f)
		return &f.b
	}
	o := output.DefaultOptions(output.TypeIntermediate)
	o.SuppressEmpty = true
	o.Newline = "\n"
	if err := output.WriteIntermediate(add(j.Name+".tab"), t, o); err != nil {
		return fmt.Errorf("tablegen: %w", err)
	}
	if err := output.WriteIntermediateMetadata(add(j.Name+".rda"), t, o, j.Name+".rda"); err != nil {
		return fmt.Errorf("tablegen: %w", err)
	}
	var dims []string
	for d := range t.Dims {
		td := &t.Dims[d]
		dims = append(dims, `"`+td.Name+`"`)
		if td.Hierarchical() {
			if err := output.WriteHRC(add(td.HierFile), td, td.LeadString, o); err != nil {
				return fmt.Errorf("tablegen: %w", err)
			}
		}
	}
	arb := add(j.Name + ".arb")
	cost := map[CostKind]string{CostUnit: "-2", CostFreq: "-1"}[in.Spec.Cost]
	fmt.Fprintf(arb, "// Generated by argus generate: %s\n", in.Describe())
	fmt.Fprintf(arb, "<OPENTABLEDATA> %q\n<OPENMETADATA> %q\n", j.Name+".tab", j.Name+".rda")
	fmt.Fprintf(arb, "<SPECIFYTABLE> %s|%q|%q|%s\n", strings.Join(dims, ""), t.Response.Name, t.Response.Name+"_Shadow", quoteCost(cost, t))
	fmt.Fprintf(arb, "<SAFETYRULE> MAN(0)\n<READTABLE> 0\n<SUPPRESS> %s\n", sup)
	fmt.Fprintf(arb, "<WRITETABLE> (1,3,AS+,%q)\n", j.Name+"-protected.txt")

	var aw atomicfile.Writer // one sweep of the directory for all the files
	var written []string
	for _, f := range files {
		path := filepath.Join(j.Dir, f.name)
		if err := aw.Write(path, 0o644, func(w io.Writer) error { _, err := f.b.WriteTo(w); return err }); err != nil {
			for _, p := range written {
				os.Remove(p)
			}
			return fmt.Errorf("tablegen: %w", err)
		}
		written = append(written, path)
	}
	return nil
}

// quoteCost returns the cost field of <SPECIFYTABLE>: the cost variable the
// intermediate metadata declares, or τ-Argus's −1 / −2.
func quoteCost(code string, t *table.Table) string {
	if code != "" {
		return code
	}
	return fmt.Sprintf("%q", t.Response.Name+"_Cost")
}

// Describe returns a one-line description of the instance: shape, seed,
// model, rule, levels, cost, cells, relations and primaries.
func (in *Instance) Describe() string {
	s := in.Spec
	p := in.Problem
	prim := 0
	for _, st := range p.Cells.Status {
		if st.IsPrimary() {
			prim++
		}
	}
	return fmt.Sprintf("shape %s, seed %d, values %s, primary %s, protection %s, cost %s: %d cells, %d relations, %d primaries",
		s.Shape, s.Seed, s.Values, s.Primary, s.Protection, s.Cost, p.NumCells(), p.NumRelations(), prim)
}
