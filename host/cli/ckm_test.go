package cli

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/ckm/ckm"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// splitmix64 is the generator of the test's record keys.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	z := x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// ckmDir sets up the CKM job of testdata/scenarios/ckm in a temporary
// directory: the τ-Argus tutorial microdata (corpus) with a record key in
// columns 100-116 (record n's key is splitmix64(n) modulo 10^15, in units
// of 10^-15, as τ-Argus's own Tau_TestW_CKM.rda lays it out), the hierarchy
// files and the job's .rda, p-tables and .arb. It returns the directory and
// the sum of all keys modulo 10^15 (the grand total's cell key).
func ckmDir(t *testing.T) (string, uint64) {
	t.Helper()
	doc := filepath.Join(corpusDir, "sdcTools", "checkTauArgus", "inst", "doc", "Simple2D_InputData.unzipped")
	in, err := os.Open(filepath.Join(doc, "tau_testW.asc"))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer in.Close()
	dir := t.TempDir()
	for _, f := range []string{"region2.hrc", "region.cdl"} {
		b, err := os.ReadFile(filepath.Join(doc, f))
		if err != nil {
			t.Skipf("corpus not available: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(repoDir, "testdata", "scenarios", "ckm")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := os.Create(filepath.Join(dir, "tau_testW_ckm.asc"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	sc := bufio.NewScanner(in)
	var sum uint64
	const unit = 1_000_000_000_000_000
	for n := uint64(1); sc.Scan(); n++ {
		k := splitmix64(n) % unit
		sum = (sum + k) % unit
		fmt.Fprintf(w, "%-99s0.%015d\r\n", strings.TrimRight(sc.Text(), "\r"), k)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, sum
}

// ckmRows reads a type-7 (CKM) file written with AO+AD+AC+: per cell (the
// codes joined by ";") its perturbed value, original, difference and cell
// key as written.
func ckmRows(t *testing.T, path string) map[string][4]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][4]string{}
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ";")
		if len(f) < 5 {
			t.Fatalf("%s: line %q", path, line)
		}
		n := len(f) - 4
		rows[strings.Join(f[:n], ";")] = [4]string{f[n], f[n+1], f[n+2], f[n+3]}
	}
	return rows
}

// TestCKMJob runs the cell key method on the tutorial microdata with a
// record key through the real host and plugin: two frequency tables and a
// magnitude table (CKM T(3) with flex scaling, separation and μC), written
// with every output type τ-Argus allows after CKM (types 4 and 5 are
// refused with τ-Argus's message). The grand total's cell key is the sum of
// all record keys modulo 1, computed here from the keys generated; every
// frequency noise is within the p-table's range and the perturbed counts
// are what the other outputs write; the Region table's cells are the Size ×
// Region table's Size totals and get the same cell keys and noise.
func TestCKMJob(t *testing.T) {
	plugins := realPlugins(t)
	dir, sum := ckmDir(t)
	t.Setenv("TMPDIR", t.TempDir())
	job, logbook := filepath.Join(dir, "ckm.arb"), filepath.Join(dir, "logbook.txt")
	report := filepath.Join(dir, "report.json")
	code, out, errOut := run(t, plugins, job, logbook, "--report="+report)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	for _, want := range []string{"Using ptable file " + filepath.Join(dir, "ptable_freq.csv"),
		"Using ptable files " + filepath.Join(dir, "ptable_cont.csv") + " and " + filepath.Join(dir, "ptable_sep.csv"),
		"Number of perturbed cells: "} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	checkCKMPublished(t, dir)
	freq := ckmRows(t, filepath.Join(dir, "freq7.csv"))
	region := ckmRows(t, filepath.Join(dir, "region7.csv"))
	mag := ckmRows(t, filepath.Join(dir, "mag7.csv"))
	weighted := ckmRows(t, filepath.Join(dir, "weighted7.csv"))
	if len(freq) != 162 || len(region) != 18 || len(mag) != 162 || len(weighted) != 9 {
		t.Fatalf("%d, %d, %d and %d cells, want 162, 18, 162 and 9", len(freq), len(region), len(mag), len(weighted))
	}
	if want := fmt.Sprintf("0.%015d", sum); freq[`"Total";"Total"`][3] != want {
		t.Errorf("grand total's cell key %s, want %s (the sum of all record keys modulo 1)", freq[`"Total";"Total"`][3], want)
	}
	changed := 0
	for cell, r := range freq {
		pert, err1 := strconv.Atoi(r[0])
		orig, err2 := strconv.Atoi(r[1])
		diff, err3 := strconv.Atoi(r[2])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("cell %s: %v", cell, r)
		}
		if pert-orig != diff || diff < -2 || diff > 2 || pert < 0 || (orig == 0 && pert != 0) {
			t.Errorf("cell %s: perturbed %d, original %d, difference %d", cell, pert, orig, diff)
		}
		if diff != 0 {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no frequency cell perturbed")
	}
	// Same records, same cell: same key and noise in both tables.
	for code, r := range region {
		if f := freq[`"Total";`+code]; f != r {
			t.Errorf("Region %s: %v in the Region table, %v in Size x Region", code, r, f)
		}
	}
	// Weighted counts: the count n perturbed to n + d (the Size totals of
	// table 1: same records, same key) scaled by the mean weight W/n, as
	// τ-Argus; W from the microdata (Wgt, columns 15-18, one decimal).
	wsum := map[string]float64{}
	asc, err := os.ReadFile(filepath.Join(dir, "tau_testW_ckm.asc"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(asc)) {
		w, err := strconv.ParseFloat(strings.TrimSpace(line[14:18]), 64)
		if err != nil {
			t.Fatalf("weight %q", line[14:18])
		}
		wsum[`"`+line[8:10]+`"`] += w
		wsum[`"Total"`] += w
	}
	for code, w := range wsum {
		n, _ := strconv.Atoi(freq[code+`;"Total"`][1])
		pert, _ := strconv.Atoi(freq[code+`;"Total"`][0])
		got := weighted[code]
		if want := strconv.FormatFloat(math.RoundToEven(float64(pert)*w/float64(n)), 'f', 0, 64); got[0] != want || got[3] != freq[code+`;"Total"`][3] {
			t.Errorf("weighted Size %s: %v, want perturbed %s (count %d perturbed to %d, weight %g) and key %s", code, got, want, n, pert, w, freq[code+`;"Total"`][3])
		}
	}
	// The magnitude table leaves zero contributions out of its cell keys,
	// so its keys differ from the counts'; its noise is not an integer.
	fractional := false
	for cell, r := range mag {
		if r[0] != r[1] && !strings.HasSuffix(r[2], ".00") {
			fractional = true
		}
		if r[1] == "0.00" && r[0] != "0.00" {
			t.Errorf("cell %s: a zero cell perturbed to %s", cell, r[0])
		}
	}
	if !fractional {
		t.Error("magnitude noise is all integral")
	}
	// The other outputs write the perturbed values: the grand totals of
	// types 1, 2 and 3.
	for _, c := range []struct{ file, want string }{
		{"freq1.csv", `"Total",` + freq[`"Total";"Total"`][0] + ","},
		{"freq2.csv", `"Total","Total",` + freq[`"Total";"Total"`][0]},
		{"freq3.txt", `"Total","Total",` + freq[`"Total";"Total"`][0]},
		{"mag1.csv", `"Total",` + mag[`"Total";"Total"`][0] + ","},
		{"mag3.txt", `"Total","Total",` + mag[`"Total";"Total"`][0]},
	} {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.Contains(strings.ReplaceAll(string(b), " ", ""), strings.ReplaceAll(c.want, " ", "")) {
			t.Errorf("%s does not write the perturbed total (%s): %v\n%.300s", c.file, c.want, err, b)
		}
	}
	// The .rda of a CKM file describes its columns.
	if b, err := os.ReadFile(filepath.Join(dir, "freq7.rda")); err != nil || !strings.Contains(string(b), "CellKey") ||
		!strings.Contains(string(b), "OrigVar") || !strings.Contains(string(b), "Difference") {
		t.Errorf("freq7.rda: %v\n%s", err, b)
	}
	for _, f := range []string{"freq6.jj", "mag6.jj", "mag2.csv"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, len(b))
		}
	}
	rep, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(rep), `"noise_0"`) || !strings.Contains(string(rep), `"rel_noise_p50"`) {
		t.Errorf("report lacks the noise distribution: %v\n%.2000s", err, rep)
	}
	// τ-Argus refuses the SBS and intermediate outputs after CKM.
	arb, _ := os.ReadFile(job)
	for _, typ := range []string{"4", "5"} {
		bad := strings.Replace(string(arb), `<WRITETABLE> (1, 6, , "freq6.jj")`, `<WRITETABLE> (1, `+typ+`, , "bad`+typ+`.txt")`, 1)
		badJob := filepath.Join(dir, "bad"+typ+".arb")
		if err := os.WriteFile(badJob, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, _ = run(t, plugins, badJob, logbook)
		lb, _ = os.ReadFile(logbook)
		if code != ExitError || !strings.Contains(string(lb), "Chosen output type "+typ+" is not allowed for this type of protection") {
			t.Errorf("type %s after CKM: exit %d\n%s", typ, code, lb)
		}
	}
}

// TestCKMBadInput: a missing record key variable, a key outside [0,1), a
// p-table that does not cover a value and malformed p-tables stop the job
// with exit 2 and a message naming the file, line and field.
func TestCKMBadInput(t *testing.T) {
	plugins := realPlugins(t)
	base, _ := ckmDir(t)
	t.Setenv("TMPDIR", t.TempDir())
	edit := func(t *testing.T, dir, file string, fn func(string) string) {
		t.Helper()
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fn(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		file string
		fn   func(string) string
		want []string
	}{
		{"no record key", "tau_testW_ckm.rda", func(s string) string {
			s = s[:strings.Index(s, "Key 100 17")]
			for _, kw := range []string{"<CKM>", "<INCLUDEZEROS>", "<PARITY>", "<SEPARATION>", "<SCALING>"} {
				for strings.Contains(s, kw) {
					i := strings.Index(s, kw)
					s = s[:i] + s[i+strings.Index(s[i:], "\n")+1:]
				}
			}
			return s
		}, []string{"CKM is not possible: no recordkey available", "tau_testW_ckm.rda has no <RECORDKEY>"}},
		{"key outside [0,1)", "tau_testW_ckm.asc", func(s string) string {
			lines := strings.SplitAfter(s, "\n")
			lines[9] = lines[9][:99] + "1.000000000000000\r\n"
			return strings.Join(lines, "")
		}, []string{"tau_testW_ckm.asc record 10 (line 10): record key Key: the record key is outside [0,1)"}},
		{"p-table gap", "ptable_freq.csv", func(s string) string {
			return strings.Replace(s, "\n2;", "\n4;", -1)
		}, []string{"ptable_freq.csv:6:1: ", "field i: ", "needs a row for every value"}},
		{"malformed p-table", "ptable_freq.csv", func(s string) string {
			return strings.Replace(s, "1;1;0.50000000", "1;1;0.5O000000", 1)
		}, []string{"ptable_freq.csv:4:5: ", "field p: ", "not a number"}},
		{"p-table without header", "ptable_freq.csv", func(s string) string {
			return s[strings.Index(s, "\n")+1:]
		}, []string{"ptable_freq.csv:1:1: ", "not the header line"}},
		{"magnitude p-table without type", "ptable_cont.csv", func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, ";type", ""), ";all ", "")
		}, []string{"ptable_cont.csv:1: ", "header has 5 columns, a magnitude p-table needs 6"}},
		{"parity without even and odd rows", "tau_testW_ckm.rda", func(s string) string {
			return strings.Replace(s, "<PARITY> N", "<PARITY> Y", 1)
		}, []string{"No even and odd specified in ptable file " + "PTCONT"}},
		{"p-table not found", "ckm.arb", func(s string) string {
			return strings.Replace(s, `CKM(2) "ptable_freq.csv"`, `CKM(2) "nosuch.csv"`, 1)
		}, []string{"file: nosuch.csv could not be found"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ents, _ := os.ReadDir(base)
			for _, e := range ents {
				b, err := os.ReadFile(filepath.Join(base, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			edit(t, dir, c.file, c.fn)
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, filepath.Join(dir, "ckm.arb"), logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitError {
				t.Fatalf("exit %d, want %d\n%s%s\n%s", code, ExitError, out, errOut, lb)
			}
			for _, w := range c.want {
				w = strings.ReplaceAll(w, "PTCONT", filepath.Join(dir, "ptable_cont.csv"))
				if !strings.Contains(string(lb), w) {
					t.Errorf("logbook lacks %q:\n%s", w, lb)
				}
			}
			for _, f := range []string{"freq1.csv", "mag7.csv"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written by a failed job", f)
				}
			}
		})
	}
}

// TestCKMTauArgusExample runs τ-Argus 4.2's own magnitude CKM example
// (data/cellkey/Magnitude: free-format microdata with 8-decimal record keys,
// CKM T(3) with flex scaling and separation, its three p-tables named in
// the .rda) for a magnitude and a frequency table. The frequency table's
// grand total key is the sum of all record keys modulo 1, the magnitude
// table's the sum over records with non-zero savings (<INCLUDEZEROS> N).
func TestCKMTauArgusExample(t *testing.T) {
	plugins := realPlugins(t)
	src := filepath.Join(corpusDir, "sdcTools", "tauargus", "data", "cellkey", "Magnitude")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	dir := t.TempDir()
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const arb = `<OPENMICRODATA> "microdata.csv"
<OPENMETADATA> "microdata.rda"
<SPECIFYTABLE> "Sex""Age"|"Savings"||
<SAFETYRULE> P(15,1)
<SPECIFYTABLE> "Sex""Age"|"<freq>"||
<SAFETYRULE> FREQ(3,10)
<READMICRODATA>
<SUPPRESS> CKM(1) | | 1.5
<SUPPRESS> CKM(2)
<WRITETABLE> (1, 7, AO+AD+AC+, "savings7.csv")
<WRITETABLE> (2, 7, AO+AD+AC+, "count7.csv")
`
	job := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(job, []byte(arb), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	code, out, errOut := run(t, plugins, job, logbook)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	// Fields: Sex;Age;HighIncome;Savings;Weigt;Key (8 decimals).
	b, err := os.ReadFile(filepath.Join(dir, "microdata.csv"))
	if err != nil {
		t.Fatal(err)
	}
	const unit = 100_000_000
	var all, nonZero int64
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ";")
		frac, ok := strings.CutPrefix(f[5], "0.")
		key, err := strconv.ParseInt((frac + "00000000")[:8], 10, 64)
		if !ok || err != nil || len(frac) > 8 {
			t.Fatalf("record key %q", f[5])
		}
		all = (all + key) % unit
		if s, _ := strconv.ParseFloat(f[3], 64); s != 0 {
			nonZero = (nonZero + key) % unit
		}
	}
	count := ckmRows(t, filepath.Join(dir, "count7.csv"))
	savings := ckmRows(t, filepath.Join(dir, "savings7.csv"))
	if got, want := count[`"Total";"Total"`][3], fmt.Sprintf("0.%08d", all); got != want {
		t.Errorf("frequency table: grand total key %s, want %s", got, want)
	}
	if got, want := savings[`"Total";"Total"`][3], fmt.Sprintf("0.%08d", nonZero); got != want {
		t.Errorf("magnitude table: grand total key %s, want %s", got, want)
	}
	if all == nonZero {
		t.Error("the example has no zero savings: the test cannot tell the two keys apart")
	}
	for _, r := range savings {
		if r[0] != r[1] {
			return // some cell perturbed
		}
	}
	t.Error("no magnitude cell perturbed")
}

// ckmSizeCells aggregates, per Size code (as the type-7 file writes it) and
// for the total, the records of the tutorial microdata for a magnitude
// table of the variable in columns [from, to): the (weighted) value, the
// count, the weight sum, the smallest absolute contribution and the k
// largest with their weights (inserted in record order, a later equal
// contribution after the earlier, as τ-Argus).
type ckmSizeCell struct {
	value, weight, min float64
	freq               int64
	top, topW          []float64
}

func ckmSizeCells(t *testing.T, dir string, from, to, k int, weighted bool) map[string]*ckmSizeCell {
	t.Helper()
	asc, err := os.ReadFile(filepath.Join(dir, "tau_testW_ckm.asc"))
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]*ckmSizeCell{}
	for line := range strings.Lines(string(asc)) {
		w, err1 := strconv.ParseFloat(strings.TrimSpace(line[14:18]), 64)
		x, err2 := strconv.ParseFloat(strings.TrimSpace(line[from:to]), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("record %q: %v %v", line, err1, err2)
		}
		for _, code := range []string{`"` + line[8:10] + `"`, `"Total"`} {
			c := cells[code]
			if c == nil {
				c = &ckmSizeCell{min: math.Inf(1), top: make([]float64, k), topW: make([]float64, k)}
				cells[code] = c
			}
			if weighted {
				c.value += x * w
			} else {
				c.value += x
			}
			c.weight += w
			c.freq++
			a := math.Abs(x)
			c.min = min(c.min, a)
			for i := range k {
				if a > c.top[i] {
					copy(c.top[i+1:], c.top[i:k-1])
					copy(c.topW[i+1:], c.topW[i:k-1])
					c.top[i], c.topW[i] = a, w
					break
				}
			}
		}
	}
	return cells
}

// TestCKMJobRangeAndWeights checks the tables of the CKM job that need more
// than the cell keys and top contributions: Var3 by Size with CKM D (the
// largest minus the smallest contribution, zeros included), Var2 by Size
// with weights and CKM T(3) (each top contribution times its record's
// weight; flex scaling, separation), Var4 by Size with weights and CKM M
// (the weighted mean). Each cell's perturbed value must be what package ckm
// computes from the cell's value, contributions and weights aggregated here
// from the microdata and the cell key the file writes; the same cells
// without the smallest contribution or without weights would publish other
// values in some cells (the check can tell).
func TestCKMJobRangeAndWeights(t *testing.T) {
	plugins := realPlugins(t)
	dir, _ := ckmDir(t)
	t.Setenv("TMPDIR", t.TempDir())
	job, logbook := filepath.Join(dir, "ckm.arb"), filepath.Join(dir, "logbook.txt")
	code, out, errOut := run(t, plugins, job, logbook)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	readPT := func(name string) *ptable.Table {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pt, err := ptable.Read(f, name, ptable.Magnitude)
		if err != nil {
			t.Fatal(err)
		}
		return pt
	}
	cont, sep := readPT("ptable_cont.csv"), readPT("ptable_sep.csv")
	for _, c := range []struct {
		file     string
		from, to int // the variable's columns
		decimals int
		weighted bool
		m        ckm.Magnitude
		// alt changes the cells as a host that lost the smallest
		// contributions or the weights would send them.
		alt func(p *pluginsdk.Problem, m *ckm.Magnitude)
	}{
		{"range7.csv", 37, 47, 0, false,
			ckm.Magnitude{Type: ckm.TypeRange, TopK: 1, Sigma1: 0.1, Epsilon: []float64{1}, KeyDecimals: 15, Cont: cont},
			func(p *pluginsdk.Problem, _ *ckm.Magnitude) { clear(p.Cells.MinContribution) }},
		{"wtop7.csv", 27, 37, 2, true,
			ckm.Magnitude{Type: ckm.TypeTopK, TopK: 3, Separation: true, FlexScaling: true, Sigma0: 0.05, Sigma1: 0.1,
				XStar: 10000, Q: 2, Epsilon: []float64{1, 0.5, 0.25}, KeyDecimals: 15, Cont: cont, Sep: sep},
			func(_ *pluginsdk.Problem, m *ckm.Magnitude) { m.Weighted = false }},
		{"wmean7.csv", 47, 57, 0, true,
			ckm.Magnitude{Type: ckm.TypeMean, TopK: 1, Sigma1: 0.1, Epsilon: []float64{1}, KeyDecimals: 15, Cont: cont},
			func(_ *pluginsdk.Problem, m *ckm.Magnitude) { m.Weighted = false }},
	} {
		t.Run(c.file, func(t *testing.T) {
			rows := ckmRows(t, filepath.Join(dir, c.file))
			cells := ckmSizeCells(t, dir, c.from, c.to, c.m.TopK, c.weighted)
			p := &pluginsdk.Problem{TopN: c.m.TopK}
			var codes []string
			var got []float64
			half := 0.5 * math.Pow(10, -float64(c.decimals))
			for code, cell := range cells {
				r, ok := rows[code]
				if !ok {
					t.Fatalf("no row for Size %s in %s", code, c.file)
				}
				pert, err1 := strconv.ParseFloat(r[0], 64)
				orig, err2 := strconv.ParseFloat(r[1], 64)
				key, err3 := strconv.ParseFloat(r[3], 64)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatalf("Size %s: row %v", code, r)
				}
				if math.Abs(orig-cell.value) > half*1.001 {
					t.Fatalf("Size %s: original %s, the microdata give %g", code, r[1], cell.value)
				}
				codes, got = append(codes, code), append(got, pert)
				p.Cells.Value = append(p.Cells.Value, cell.value)
				p.Cells.Freq = append(p.Cells.Freq, cell.freq)
				p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
				p.Cells.CellKey = append(p.Cells.CellKey, key)
				p.Cells.Top = append(p.Cells.Top, cell.top...)
				p.Cells.TopWeight = append(p.Cells.TopWeight, cell.topW...)
				p.Cells.MinContribution = append(p.Cells.MinContribution, cell.min)
				p.Cells.Weight = append(p.Cells.Weight, cell.weight)
			}
			m := c.m
			m.Weighted = c.weighted
			want, err := m.Perturb(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			c.alt(p, &m)
			alt, err := m.Perturb(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			differ := 0
			for i, code := range codes {
				tol := half*1.001 + numeric.Slack(want.Values[i])
				if math.Abs(got[i]-want.Values[i]) > tol {
					t.Errorf("Size %s: perturbed %g, want %g", code, got[i], want.Values[i])
				}
				if math.Abs(alt.Values[i]-want.Values[i]) > 2*tol {
					differ++
				}
			}
			if differ == 0 {
				t.Error("no cell would publish another value without the smallest contributions or the weights: the check cannot tell")
			}
		})
	}
}
