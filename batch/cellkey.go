package batch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// The cell key method (CKM) on the host: τ-Argus's checks of the table and
// the batch line, the p-tables (the batch line's names or the .rda's, found
// like input files, read and checked here so that a bad one is an error
// with file, line and field before anything runs), the CKM settings of the
// .rda passed to the method as parameters, the cell keys and top
// contributions of the cells put into the problem (with the smallest
// contributions for type D, the weights of the top contributions and the
// weight sums for weighted tables), and the perturbed values
// stored in the tables for every output.
//
// CKM has no audit in τ-Argus's sense: its protection is the noise itself,
// not intervals an intruder could narrow. What the host checks instead is
// that the method published what CKM promises: empty cells 0, protected
// cells unchanged, and, for frequency tables, for every cell exactly the
// noise the p-table gives its count and cell key (recomputed here
// independently of the plugin) — so the same cell has the same noise in
// every table. A result that fails is an error, never an output.

// The parameters of the CKM plugin the host sets.
const (
	ckmTable      = "table"
	ckmPTable     = "ptable"
	ckmPTableCont = "ptable_cont"
	ckmPTableSep  = "ptable_sep"
	ckmType       = "type"
	ckmTopK       = "top_k"
	ckmParity     = "parity"
	ckmSeparation = "separation"
	ckmScaling    = "scaling"
	ckmSigma0     = "sigma0"
	ckmSigma1     = "sigma1"
	ckmXStar      = "xstar"
	ckmQ          = "q"
	ckmEpsilon    = "epsilon"
	ckmMuC        = "mu_c"
	ckmKeyDec     = "key_decimals"
	ckmWeighted   = "weighted"
)

// cellKeyJob is what the host keeps of a CKM run: what to send and how to
// check its result.
type cellKeyJob struct {
	freq     *ptable.Table // the frequency p-table of a frequency table
	weighted bool          // the table's values are weighted
	// typ is the CKM type of a magnitude table (T, M, D or V).
	typ string
	// extra is the rule information of the table's cells (the weights of
	// the top contributions, the smallest contributions).
	extra []tabulate.Extra
}

// isCellKey reports whether method code runs the cell key method.
func isCellKey(code string) bool { return strings.EqualFold(code, "CKM") }

// cellKeySetup checks that table t can be protected by CKM as c asks, reads
// the p-tables and sets the method's parameters in params.
func (e *engine) cellKeySetup(c *arb.Suppress, t *tableSpec, params map[string]string) (*cellKeyJob, error) {
	if t.tabular || t.meta == nil {
		return nil, errors.New("CKM is not possible: no recordkey available (cell keys need microdata with a <RECORDKEY> variable)")
	}
	keyVar := t.meta.FirstOfKind(rda.RecordKey)
	if keyVar == nil || t.table.CellKey.Name == "" {
		return nil, fmt.Errorf("CKM is not possible: no recordkey available (metadata %s has no <RECORDKEY> variable)", t.metaFile)
	}
	if t.table.Rules.Holding {
		return nil, errors.New(`Sorry, Cell Key Method not available when "holdings" are used`)
	}
	magnitude := t.table.Frequency == table.Magnitude
	files, err := (&arb.CKMArgs{Rest: c.Rest}).Parse(magnitude)
	if err != nil {
		return nil, argErr(c, c.EndPos, "%v", err)
	}
	open := func(param, given, fromRDA, what string, kind ptable.Kind) (*ptable.Table, error) {
		name := given
		if name == "" {
			name = fromRDA
		}
		if name == "" {
			return nil, fmt.Errorf("CKM: no %s p-table: give it after CKM(%d) or as %s of the record key %s in %s", what, c.Table,
				map[string]string{ckmPTable: "<PFILE>", ckmPTableCont: "<PFILE_CONT>", ckmPTableSep: "<PFILE_SEP>"}[param], keyVar.Name, t.metaFile)
		}
		path, err := e.resolver.Input(name)
		if err != nil {
			return nil, err
		}
		f, err := infile.Open(path)
		if err != nil {
			return nil, fmt.Errorf("ptable file (%s): %w", name, err)
		}
		defer f.Close()
		pt, err := ptable.Read(f, path, kind)
		if err != nil {
			return nil, err
		}
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		params[param] = path
		return pt, nil
	}
	job := &cellKeyJob{weighted: t.set.Weighted, extra: t.tableExtra}
	params[ckmWeighted] = strconv.FormatBool(job.weighted)
	if !magnitude {
		params[ckmTable] = "frequency"
		if job.freq, err = open(ckmPTable, files.PTable, keyVar.PTableFile, "frequency", ptable.Frequency); err != nil {
			return nil, err
		}
		e.logf("Using ptable file %s", params[ckmPTable])
		return job, nil
	}
	resp := t.meta.Find(t.cmd.Response)
	if resp == nil {
		return nil, fmt.Errorf("CKM: response variable %s not found in %s", t.cmd.Response, t.metaFile)
	}
	ck := resp.CKM
	switch ck.Type {
	case "T", "M", "D", "V":
	default:
		return nil, fmt.Errorf("CKM is not allowed for variable %s: its <CKM> in %s is N (or missing)", resp.Name, t.metaFile)
	}
	if keyVar.Decimals < 1 {
		return nil, fmt.Errorf("CKM on a magnitude table needs the decimals of the record key %s (<DECIMALS> in %s): its cell key digits are shifted between draws",
			keyVar.Name, t.metaFile)
	}
	cont, err := open(ckmPTableCont, files.PTableCont, keyVar.PTableFileCont, "magnitude", ptable.Magnitude)
	if err != nil {
		return nil, err
	}
	if ck.Parity && !(cont.Has(ptable.TypeEven) && cont.Has(ptable.TypeOdd)) {
		return nil, fmt.Errorf("No even and odd specified in ptable file %s, while asking for treating them differently (<PARITY> Y for %s)", params[ckmPTableCont], resp.Name)
	}
	if !ck.Parity && !cont.Has(ptable.TypeAll) {
		return nil, fmt.Errorf("No all specified in ptable file %s, while asking for not treating even and odd differently (<PARITY> N for %s)", params[ckmPTableCont], resp.Name)
	}
	if ck.Separation {
		sep, err := open(ckmPTableSep, files.PTableSep, keyVar.PTableFileSep, "separation", ptable.Magnitude)
		if err != nil {
			return nil, err
		}
		if !sep.Has(ptable.TypeAll) {
			return nil, fmt.Errorf("No all specified in the separation ptable file %s", params[ckmPTableSep])
		}
		e.logf("Using ptable files %s and %s", params[ckmPTableCont], params[ckmPTableSep])
	} else {
		e.logf("Using ptable file %s", params[ckmPTableCont])
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	params[ckmTable] = "magnitude"
	params[ckmType] = ck.Type
	job.typ = ck.Type
	params[ckmTopK] = strconv.Itoa(ck.TopK)
	params[ckmParity] = strconv.FormatBool(ck.Parity)
	params[ckmSeparation] = strconv.FormatBool(ck.Separation)
	params[ckmScaling] = ck.Scaling
	for name, x := range map[string]float64{ckmSigma0: ck.Sigma0, ckmSigma1: ck.Sigma1, ckmXStar: ck.XStar, ckmQ: ck.Q} {
		if x >= 0 { // -1: not given
			params[name] = f(x)
		}
	}
	eps := make([]string, len(ck.Epsilon))
	for i, x := range ck.Epsilon {
		eps[i] = f(x)
	}
	params[ckmEpsilon] = strings.Join(eps, ",")
	params[ckmKeyDec] = strconv.Itoa(min(keyVar.Decimals, 15))
	if files.HasMuC {
		params[ckmMuC] = f(files.MuC)
	}
	return job, nil
}

// addColumns puts the cell keys and the top contributions of the tables'
// cells into the problem, and what the magnitude CKM type needs beyond
// them: the smallest contributions (D), the weights of the top
// contributions (T) or the weight sums (M) of a weighted table. CKM
// protects one table (table 0 of the mapping), whose rule information
// job.extra is.
func (job *cellKeyJob) addColumns(p *pluginsdk.Problem, m *problem.Mapping) error {
	n := p.NumCells()
	p.Cells.CellKey = make([]float64, n)
	topN := 0
	for _, t := range m.Tables {
		topN = max(topN, t.Rules.TopN)
	}
	p.TopN = topN
	p.Cells.Top = make([]float64, n*topN)
	minimum := job.typ == "D"
	topWeight := job.weighted && job.typ == "T"
	weight := job.weighted && job.typ == "M"
	if minimum {
		p.Cells.MinContribution = make([]float64, n)
	}
	if topWeight {
		p.Cells.TopWeight = make([]float64, n*topN)
	}
	if weight {
		p.Cells.Weight = make([]float64, n)
	}
	if (minimum || topWeight) && (len(m.Tables) != 1 || len(job.extra) != len(m.Tables[0].Cells)) {
		return errors.New("CKM: the table's smallest contributions or weights of its top contributions are not available")
	}
	for ti, t := range m.Tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			p.Cells.CellKey[g] = t.Cells[i].CellKey
			copy(p.Cells.Top[g*topN:(g+1)*topN], t.Cells[i].TopN)
			if weight {
				p.Cells.Weight[g] = t.Cells[i].Weight
			}
			if minimum {
				p.Cells.MinContribution[g] = job.extra[i].MinContribution
			}
			if topWeight {
				copy(p.Cells.TopWeight[g*topN:(g+1)*topN], job.extra[i].TopWeight)
			}
		}
	}
	return nil
}

// perturbed checks the result of CKM, stores the perturbed values in the
// tables and logs the run.
func (e *engine) perturbed(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, job *cellKeyJob, res *pluginsdk.Result,
	mr *MethodReport, name string, took time.Duration) error {
	if job == nil {
		job = &cellKeyJob{}
	}
	if len(res.Values) != p.NumCells() {
		return fmt.Errorf("the cell key method returned %d values for %d cells", len(res.Values), p.NumCells())
	}
	for ti, t := range m.Tables {
		for i := range t.Cells {
			t.Cells[i].Perturbed = res.Values[m.Cell[ti][i]]
		}
		t.Method = table.MethodCKM
	}
	printed, err := printedValues(m, p.NumCells(), printedValue)
	if err == nil {
		err = checkPerturbed(p, job, printed)
	}
	if err != nil {
		return fmt.Errorf("the cell key method's result fails the host's check, nothing is published: %w", err)
	}
	changed := 0
	for i, v := range res.Values {
		if v != p.Cells.Value[i] {
			changed++
		}
	}
	e.logf("End of %s protection. Time used %d seconds\nNumber of perturbed cells: %d of %d", name, int(took.Seconds()), changed, p.NumCells())
	for _, t := range specs {
		t.protected, t.method = took, name
	}
	mr.Secondaries = 0
	return nil
}

// checkPerturbed is the host's check of a CKM result (see the top of this
// file) on the perturbed values as the outputs print them: each is
// compared with what the outputs print of the value it must equal.
func checkPerturbed(p *pluginsdk.Problem, job *cellKeyJob, values []float64) error {
	f := output.FormatOf(auditedOutput, output.Options{})
	printed := func(x float64) float64 { return f.Number(x, p.Decimals).Value }
	for i, v := range values {
		s, x := p.Cells.Status[i], p.Cells.Value[i]
		switch {
		case s == cellstatus.Empty && v != 0:
			return fmt.Errorf("cell %d: empty cell published as non-zero", i)
		case s == cellstatus.Protected && v != printed(x):
			return fmt.Errorf("cell %d: protected cell changed", i)
		case s == cellstatus.Empty || s == cellstatus.Protected:
		case job.freq != nil:
			if want := job.freq.PerturbedCount(p.Cells.Freq[i], x, p.Cells.CellKey[i], job.weighted); v != printed(want) {
				return fmt.Errorf("cell %d: perturbed count is not the p-table's for its count and cell key", i)
			}
		}
	}
	return nil
}
