package cli

// End-to-end jobs shaped exactly as the τ-Argus clients write them: the
// checkTauArgus and rtauargus jobs of the corpus and the sdcTable and piargus
// jobs of testdata/clients (see the README.txt of each). Every job runs from
// a copy of its directory through Main, with the command line of its client
// and the real method and audit plugins, and its output is read back the way
// that client reads it.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/internal/testcorpus"
)

// pkgDir is this package's directory (the working directory of the test
// binary when it starts; the tests below change it).
var pkgDir = func() string {
	d, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return d
}()

var (
	repoDir   = filepath.Join(pkgDir, "..", "..")
	clientDir = filepath.Join(repoDir, "testdata", "clients")
	corpusDir = testcorpus.Dir() // read before any test changes the working directory
)

var methodPlugins struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if methodPlugins.dir != "" {
		os.RemoveAll(methodPlugins.dir)
	}
	os.Exit(code)
}

// startTemp is the temporary directory when the test binary starts (tests
// point TMPDIR elsewhere for a while).
var startTemp = os.TempDir()

// realPlugins builds the OPT, MOD, GH, NET and AUDIT plugins once per test
// binary.
func realPlugins(t testing.TB) string {
	t.Helper()
	p := &methodPlugins
	p.once.Do(func() {
		if p.dir, p.err = os.MkdirTemp(startTemp, "argus-client-plugins-"); p.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", p.dir+string(filepath.Separator),
			"./plugins/optimal/argus-method-optimal", "./plugins/modular/argus-method-modular",
			"./plugins/hypercube/argus-method-hypercube", "./plugins/network/argus-method-network",
			"./plugins/audit/argus-method-audit", "./plugins/cta/argus-method-cta",
			"./plugins/rounding/argus-method-rounding", "./plugins/ckm/argus-method-ckm",
			"./plugins/ecta/argus-method-ecta",
			"./plugins/interval/argus-method-interval")
		cmd.Dir = repoDir
		if out, err := cmd.CombinedOutput(); err != nil {
			p.err = fmt.Errorf("building the plugins: %v\n%s", err, out)
		}
	})
	if p.err != nil {
		t.Fatal(p.err)
	}
	return p.dir
}

// clientJob is one job and the way its client runs it.
type clientJob struct {
	name string
	src  string // job directory (absolute), copied before the run
	// args is the command line after "argus"; {dir} is the copy.
	args []string
	// mkdir lists directories the client creates before the run.
	mkdir []string
	// startLog is the logbook the run starts in (the 2nd argument, else
	// τ-Argus's default logbook {tmp}/TauLogbook.txt); endLog the one it ends
	// in (different when the job selects one with <LOGBOOK>).
	startLog, endLog string
	report           string // run report, relative to the copy
	check            func(t *testing.T, dir string)
}

// jobRun is what a run left behind.
type jobRun struct {
	dir             string
	code            int
	stderr          string
	startLog, ended []string // logbook messages
	oneLog          bool     // the job keeps one logbook: startLog and ended are the same
	report          *batch.Report
}

// messages returns the messages of both logbooks, each once.
func (r *jobRun) messages() []string {
	if r.oneLog {
		return r.startLog
	}
	return slices.Concat(r.startLog, r.ended)
}

func runClientJob(t *testing.T, plugins string, j clientJob) *jobRun {
	t.Helper()
	r := &jobRun{dir: filepath.Join(t.TempDir(), filepath.Base(j.src))}
	if err := os.CopyFS(r.dir, os.DirFS(j.src)); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // τ-Argus's default logbook goes to the system's temporary directory
	t.Chdir(r.dir)          // relative <LOGBOOK> names and piargus's relative paths
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "{dir}", r.dir)
		return strings.ReplaceAll(s, "{tmp}", tmp)
	}
	for _, d := range j.mkdir {
		if err := os.MkdirAll(expand(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := make([]string, len(j.args))
	for i, a := range j.args {
		args[i] = expand(a)
	}
	r.code, _, r.stderr = run(t, plugins, args...)
	r.startLog = logMessages(t, expand(j.startLog))
	r.ended, r.oneLog = r.startLog, j.endLog == j.startLog
	if !r.oneLog {
		r.ended = logMessages(t, expand(j.endLog))
	}
	b, err := os.ReadFile(filepath.Join(r.dir, j.report))
	if err != nil {
		t.Fatalf("run report: %v\n%s", err, r.stderr)
	}
	r.report = new(batch.Report)
	if err := json.Unmarshal(b, r.report); err != nil {
		t.Fatalf("run report: %v", err)
	}
	return r
}

// stamp ends the timestamp of a logbook line ("24-Nov-2026 10:00:00 : ").
var stamp = regexp.MustCompile(`:[0-9]{2} : `)

// logMessages reads a logbook as rtauargus does: the text after the first
// ":ss : " of a line; continuation lines are trimmed.
func logMessages(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("logbook: %v", err)
	}
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		if loc := stamp.FindStringIndex(l); loc != nil {
			l = l[loc[1]:]
		}
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkLogbook checks the logbook of a successful run: after τ-Argus's
// header (piargus prints what follows the last "--------------------" line)
// it starts with the batch procedure, ends with the end of the run, holds no
// error, and reports a clean audit for every <SUPPRESS>.
func checkLogbook(t *testing.T, r *jobRun) {
	t.Helper()
	start := r.startLog
	for i, l := range start {
		if strings.Contains(l, "--------------------") {
			start = r.startLog[i+1:]
		}
	}
	if len(start) == 0 || !strings.HasPrefix(start[0], "Start of batch procedure; file:") {
		t.Errorf("the logbook does not start with the batch procedure:\n%s", strings.Join(r.startLog, "\n"))
	}
	if n := len(r.ended); n == 0 || r.ended[n-1] != "End of TauArgus run" {
		t.Errorf("the logbook does not end with the end of the run:\n%s", strings.Join(r.ended, "\n"))
	}
	audits := 0
	for _, l := range r.messages() {
		if strings.Contains(l, "Error") {
			t.Errorf("logbook line %q", l)
		}
		if strings.HasPrefix(l, "Audit: all ") && strings.HasSuffix(l, " primary cells are protected") {
			audits++
		}
	}
	methods := 0
	for _, s := range r.report.Steps {
		if s.Method != nil {
			methods++
		}
	}
	if audits != methods || methods == 0 {
		t.Errorf("%d <SUPPRESS> with a result, %d clean audits in the logbook", methods, audits)
	}
}

// checkReport checks the run report of a successful run: exit 0, no error,
// and the audit of every method found no primary under-protected.
func checkReport(t *testing.T, r *jobRun) {
	t.Helper()
	rep := r.report
	if rep.ExitCode != ExitOK || len(rep.Errors) > 0 {
		t.Errorf("report: exit %d, errors %v", rep.ExitCode, rep.Errors)
	}
	for _, s := range rep.Steps {
		if m := s.Method; m != nil {
			if a := m.Audit; a == nil || !a.Done || a.UnderProtected != 0 || a.Primaries == 0 {
				t.Errorf("%s: audit %+v, want done with 0 under-protected", s.Command, a)
			}
		}
	}
	// Every table of these jobs is protected and audited.
	for _, tr := range rep.Tables {
		if a := tr.Audit; a == nil || !a.Done || a.UnderProtected != 0 || tr.Method == "" {
			t.Errorf("table %d (%s): method %q, audit %+v", tr.Number, tr.Table, tr.Method, a)
		}
	}
	if len(rep.Tables) == 0 {
		t.Error("no tables in the run report")
	}
}

// readCSV reads a comma-separated output, quotes removed, ragged rows allowed.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("output: %v", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	var rows [][]string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, rec)
	}
}

// cellKey joins the codes of a cell.
func cellKey(codes ...string) string { return strings.Join(codes, "|") }

// sdcTableResult reads a type-3 AS+FL+ output as sdcTable's combineInputs
// does: fread, exactly dims + 2 columns renamed (dims, "cellvalue",
// "sdcStatus_argus"), codes trimmed, numeric statuses recoded to s/u/x/z.
// It returns the status and the value of every cell, in file order.
func sdcTableResult(t *testing.T, path string, dims ...string) (status map[string]string, value map[string]float64, order []string) {
	t.Helper()
	rows := readCSV(t, path)
	if len(rows) < 2 {
		t.Fatalf("%s: no cells", path)
	}
	if len(rows[0]) != len(dims)+2 || !slices.Equal(rows[0][:len(dims)], dims) || rows[0][len(dims)+1] != "Status" {
		t.Fatalf("%s: header %q, want %v, the response and Status", path, rows[0], dims)
	}
	status, value = map[string]string{}, map[string]float64{}
	for _, rec := range rows[1:] {
		if len(rec) != len(dims)+2 {
			t.Fatalf("%s: row %q has %d columns, want %d", path, rec, len(rec), len(dims)+2)
		}
		codes := make([]string, len(dims))
		for i := range dims {
			codes[i] = strings.TrimSpace(rec[i])
		}
		n, err := strconv.Atoi(rec[len(dims)+1])
		if err != nil {
			t.Fatalf("%s: status %q is not numeric", path, rec[len(dims)+1])
		}
		var s string
		switch {
		case n == 1 || n == 2 || n == 10:
			s = "s"
		case n >= 3 && n <= 9:
			s = "u"
		case n == 11 || n == 12:
			s = "x"
		case n == 13 || n == 14:
			s = "z"
		default:
			t.Fatalf("%s: status %d", path, n)
		}
		k := cellKey(codes...)
		status[k] = s
		value[k], _ = strconv.ParseFloat(rec[len(dims)], 64)
		order = append(order, k)
	}
	return status, value, order
}

// pattern lists statuses in file order.
func pattern(status map[string]string, order []string) string {
	var b []string
	for _, k := range order {
		b = append(b, status[k])
	}
	return strings.Join(b, " ")
}

// piargusResult reads a type-2 output as piargus's Table.load_result does:
// pd.read_csv with the explanatory variables as index (codes exactly as
// written, blanks kept), the response column (Freq for <freq>) and Status,
// recoded as TableResult.status: 1–2 S, 3–6 and 9 U, 10 P, 11–12 M, 13–14 Z.
func piargusResult(t *testing.T, path, response string, explanatory ...string) (status map[string]string, value map[string]string) {
	t.Helper()
	rows := readCSV(t, path)
	if len(rows) < 2 {
		t.Fatalf("%s: no cells", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range append(slices.Clone(explanatory), response, "Status") {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s: header %q lacks %q", path, rows[0], h)
		}
	}
	status, value = map[string]string{}, map[string]string{}
	for _, rec := range rows[1:] {
		codes := make([]string, len(explanatory))
		for i, e := range explanatory {
			codes[i] = rec[col[e]]
		}
		n, err := strconv.Atoi(rec[col["Status"]])
		if err != nil {
			t.Fatalf("%s: status %q is not numeric", path, rec[col["Status"]])
		}
		s := "?"
		switch {
		case n == 1 || n == 2:
			s = "S"
		case n >= 3 && n <= 6 || n == 9:
			s = "U"
		case n == 10:
			s = "P"
		case n == 11 || n == 12:
			s = "M"
		case n == 13 || n == 14:
			s = "Z"
		}
		k := cellKey(codes...)
		status[k], value[k] = s, rec[col[response]]
	}
	return status, value
}

// rtauargusResult reads a type-4 (SBS) output as rtauargus's import does:
// no header, columns expl…, value, freq, Status[, Dom]; the '*' padding of
// short codes is removed. It returns the status letter of every cell.
func rtauargusResult(t *testing.T, path string, dims int) map[string]string {
	t.Helper()
	status := map[string]string{}
	for _, rec := range readCSV(t, path) {
		if len(rec) < dims+3 || len(rec) > dims+5 {
			t.Fatalf("%s: row %q", path, rec)
		}
		codes := make([]string, dims)
		for i := range codes {
			codes[i] = strings.TrimLeft(strings.TrimSpace(rec[i]), "*")
		}
		status[cellKey(codes...)] = rec[dims+2]
	}
	return status
}

func countValues(m map[string]string) map[string]int {
	n := map[string]int{}
	for _, v := range m {
		n[v]++
	}
	return n
}

// checkPrimaries checks that exactly the cells want have the primary
// status letter unsafe.
func checkPrimaries(t *testing.T, status map[string]string, unsafe string, want ...string) {
	t.Helper()
	var got []string
	for k, s := range status {
		if s == unsafe {
			got = append(got, k)
		}
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("primaries %v, want %v", got, want)
	}
}

// auditJJ runs "argus audit" on a JJ file of the primaries alone and checks
// that it finds cell exactly disclosed at value.
func auditJJ(t *testing.T, plugins, jj string, cell int, value string) {
	t.Helper()
	code, out, errOut := run(t, plugins, "audit", jj)
	exact := regexp.MustCompile(fmt.Sprintf(`(?m)^\s*%d\s+%s\s+%s\s+%s\s`, cell, value, value, value))
	if code != 1 || !exact.MatchString(out) {
		t.Errorf("argus audit %s: exit %d, want 1 with cell %d exactly %s\n%s%s", filepath.Base(jj), code, cell, value, out, errOut)
	}
}

func TestClientJobs(t *testing.T) {
	plugins := realPlugins(t)
	checkTauArgus := filepath.Join(corpusDir, "sdcTools", "checkTauArgus", "inst", "tests", "Batch")
	rtauargus := filepath.Join(corpusDir, "derived", "rtauargus", "fixtures")
	const tauLog = "{tmp}/TauLogbook.txt"
	// sdcTable: runArgusBatchFile runs "exe arb" or "exe arb - - batchDataDir";
	// the batch file selects its logbook with <LOGBOOK>.
	sdcTable := func(name, id string, check func(t *testing.T, dir string)) clientJob {
		return clientJob{name: name, src: filepath.Join(clientDir, name),
			args:     []string{"{dir}/batch_" + id + ".arb", "-", "-", "{dir}"},
			startLog: tauLog, endLog: "{dir}/arguslog_" + id + ".log", report: "batch_" + id + ".report.json", check: check}
	}
	// piargus: Job(directory="tau", name=...) writes tau/NAME.arb with
	// paths relative to the working directory, creates tau/output and
	// tau/work/NAME, and runs "exe abs.arb abs.logbook abs.workdir".
	piargus := func(name, job string, check func(t *testing.T, dir string)) clientJob {
		return clientJob{name: name, src: filepath.Join(clientDir, name),
			args:     []string{"{dir}/tau/" + job + ".arb", "{dir}/tau/" + job + "_logbook.txt", "{dir}/tau/work/" + job},
			mkdir:    []string{"{dir}/tau/output", "{dir}/tau/work/" + job},
			startLog: "{dir}/tau/" + job + "_logbook.txt", endLog: "{dir}/tau/" + job + "_logbook.txt",
			report: "tau/work/" + job + "/" + job + ".report.json", check: check}
	}
	// rtauargus: run_arb runs "exe abs.arb abs.logbook".
	rtau := func(name, arb string, check func(t *testing.T, dir string)) clientJob {
		return clientJob{name: "rtauargus/" + name, src: filepath.Join(rtauargus, name),
			args:     []string{"{dir}/" + arb + ".arb", "{dir}/logbook.txt"},
			startLog: "{dir}/logbook.txt", endLog: "{dir}/logbook.txt", report: arb + ".report.json", check: check}
	}
	regionGender := func(exact bool) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			out, _ := filepath.Glob(filepath.Join(dir, "tabout_*.txt"))
			if len(out) != 1 {
				t.Fatalf("outputs %v", out)
			}
			status, _, order := sdcTableResult(t, out[0], "region", "gender")
			checkPrimaries(t, status, "u", "A|female")
			// table_and_expected.csv, column expected_OPT_HITAS_HYPERCUBE_SIMPLEHEURISTIC:
			// ids 5, 11 and 12 are the secondaries of the optimal pattern.
			if want := "s s s s x u s s s s x x s s s"; exact && pattern(status, order) != want {
				t.Errorf("pattern %s, want %s", pattern(status, order), want)
			}
		}
	}
	jobs := []clientJob{
		{name: "checkTauArgus/ex1", src: filepath.Join(checkTauArgus, "ex1"), args: []string{"{dir}/batch_ex1.arb"},
			startLog: tauLog, endLog: "{dir}/arguslog_ex1.log", report: "batch_ex1.report.json",
			check: func(t *testing.T, dir string) {
				status, _, order := sdcTableResult(t, filepath.Join(dir, "tabout_ex1.txt"), "region", "gender")
				if got, want := pattern(status, order), "s s s s x u s s s s x x s s s"; got != want {
					t.Errorf("pattern %s, want %s", got, want)
				}
			}},
		{name: "checkTauArgus/ex2", src: filepath.Join(checkTauArgus, "ex2"), args: []string{"{dir}/batch_ex2.arb"},
			startLog: tauLog, endLog: "{dir}/arguslog_ex2.log", report: "batch_ex2.report.json",
			check: func(t *testing.T, dir string) {
				status, value, order := sdcTableResult(t, filepath.Join(dir, "tabout_ex2.txt"), "region", "gender")
				if got, want := pattern(status, order), "s s s s x u s s s s x x s s s"; got != want {
					t.Errorf("pattern %s, want %s", got, want)
				}
				if v := value[cellKey("Total", "Total")]; math.Abs(v-10484.95) > 1e-9 {
					t.Errorf("num1 total %v, want 10484.95", v)
				}
			}},
		rtau("ex1_act_size", "ex1", func(t *testing.T, dir string) {
			got := rtauargusResult(t, filepath.Join(dir, "ex1.csv"), 2)
			want := map[string]string{}
			for _, rec := range readCSV(t, filepath.Join(rtauargus, "ex1_act_size", "expected_status_tauargus423.csv"))[1:] {
				want[cellKey(rec[0], rec[1])] = rec[5]
			}
			if len(want) != 12 || !maps.Equal(got, want) {
				t.Errorf("statuses %v, want %v (τ-Argus 4.2.3)", got, want)
			}
		}),
		rtau("ex2_turnover_act_size_hrc_apriori", "ex2", func(t *testing.T, dir string) {
			got := countValues(rtauargusResult(t, filepath.Join(dir, "ex2.csv"), 2))
			if want := map[string]int{"B": 77, "D": 64, "V": 273}; !maps.Equal(got, want) {
				t.Errorf("status counts %v, want %v (τ-Argus 4.2.3)", got, want)
			}
		}),
		sdcTable("sdctable_region_gender_opt", "Qm7ZtOPT01", regionGender(true)),
		sdcTable("sdctable_region_gender_mod", "Qm7ZtMOD01", regionGender(true)),
		sdcTable("sdctable_region_gender_gh", "Qm7ZtGH001", regionGender(false)),
		sdcTable("sdctable_4x4_exact_disclosure", "Hx4x4EXACT", func(t *testing.T, dir string) {
			status, _, _ := sdcTableResult(t, filepath.Join(dir, "tabout_Hx4x4EXACT.txt"), "v1", "v2")
			checkPrimaries(t, status, "u", "w|a", "w|b", "w|c", "x|a", "x|c", "y|b", "y|d", "z|b", "z|d")
			if countValues(status)["x"] == 0 {
				t.Error("no secondary: the primaries alone disclose w|b")
			}
			// The primaries alone satisfy "two suppressions per line", yet w|b
			// (cell 7) is exactly recomputable.
			auditJJ(t, plugins, filepath.Join(dir, "primaries_only.jj"), 7, "47")
		}),
		{name: "linked_region_two_hierarchies", src: filepath.Join(clientDir, "linked_region_two_hierarchies"),
			args: []string{"{dir}/batch_linked.arb", "-", "-", "{dir}"}, startLog: tauLog, endLog: tauLog,
			report: "batch_linked.report.json", check: func(t *testing.T, dir string) {
				county, _, _ := sdcTableResult(t, filepath.Join(dir, "tabout_county.txt"), "region")
				size, _, _ := sdcTableResult(t, filepath.Join(dir, "tabout_size.txt"), "region")
				for _, st := range []map[string]string{county, size} {
					checkPrimaries(t, st, "u", "A", "B", "K", "L", "M")
				}
				for _, c := range []string{"Total", "A", "B", "I", "J", "K", "L", "M", "N"} {
					if county[c] != size[c] {
						t.Errorf("cell %s: %s in table 1, %s in table 2", c, county[c], size[c])
					}
				}
				// Each table alone is safe with its primaries, but together
				// they give K = small − county-1 − N: one of those must be hidden.
				if county["county-1"] != "x" && size["small"] != "x" && county["N"] != "x" {
					t.Error("K = small - county-1 - N is published")
				}
				auditJJ(t, plugins, filepath.Join(dir, "primaries_only.jj"), 9, "3")
			}},
		piargus("piargus_microdata", "basic-example", func(t *testing.T, dir string) {
			status, value := piargusResult(t, filepath.Join(dir, "tau/output/basic-example_table-1.csv"), "income", "symbol", "regio")
			// The piargus tutorial's τ-Argus run: the four inner cells U, the
			// four margins M ("Number of suppressions: 4"), the total S; the
			// free-format code ExampleDam is right-aligned to regio's length 11.
			want := map[string]string{
				cellKey("Total", "Total"): "S", cellKey("Total", " ExampleDam"): "M", cellKey("Total", "ExampleCity"): "M",
				cellKey("A", "Total"): "M", cellKey("A", " ExampleDam"): "U", cellKey("A", "ExampleCity"): "U",
				cellKey("C", "Total"): "M", cellKey("C", " ExampleDam"): "U", cellKey("C", "ExampleCity"): "U"}
			if !maps.Equal(status, want) {
				t.Errorf("statuses %v, want %v", status, want)
			}
			if v, _ := strconv.ParseFloat(value[cellKey("Total", "Total")], 64); math.Abs(v-264.43) > 1e-9 {
				t.Errorf("income total %v, want 264.43", v)
			}
		}),
		piargus("piargus_microdata_holding", "holding-example", func(t *testing.T, dir string) {
			status, _ := piargusResult(t, filepath.Join(dir, "tau/output/holding-example_table-1.csv"), "income", "symbol", "regio")
			checkPrimaries(t, status, "U", cellKey("A", " ExampleDam"), cellKey("A", "ExampleCity"), cellKey("C", " ExampleDam"),
				cellKey("C", "ExampleCity"), cellKey("Total", " ExampleDam"), cellKey("Total", "ExampleCity"), cellKey("A", "Total"))
			// A = Total − C: one of them must be hidden.
			if status[cellKey("C", "Total")] != "M" && status[cellKey("Total", "Total")] != "M" {
				t.Error("A = Total - C is published")
			}
		}),
		piargus("piargus_tabledata", "tabledata-example", func(t *testing.T, dir string) {
			status, _ := piargusResult(t, filepath.Join(dir, "tau/output/tabledata-example_table-1.csv"), "val", "activity", "size")
			checkPrimaries(t, status, "U", cellKey("02", "tr1"), cellKey("06", "tr2"))
		}),
	}
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			if _, err := os.Stat(j.src); err != nil {
				t.Skipf("%s not available", j.src)
			}
			r := runClientJob(t, plugins, j)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s\nlogbook:\n%s", r.code, r.stderr, strings.Join(r.messages(), "\n"))
			}
			checkLogbook(t, r)
			checkReport(t, r)
			j.check(t, r.dir)
		})
	}
}

// TestClientSyntaxError: a malformed line ends the job with exit 2; the
// commands before it ran, and the logbook says why.
func TestClientSyntaxError(t *testing.T) {
	r := runClientJob(t, realPlugins(t), clientJob{src: filepath.Join(clientDir, "syntax_error"),
		args:     []string{"{dir}/batch_Qm7ZtSYNTX.arb", "-", "-", "{dir}"},
		startLog: "{tmp}/TauLogbook.txt", endLog: "{dir}/arguslog_Qm7ZtSYNTX.log", report: "batch_Qm7ZtSYNTX.report.json"})
	if r.code != ExitError {
		t.Errorf("exit %d, want %d", r.code, ExitError)
	}
	n := len(r.ended)
	// τ-Argus read the table before it reached the bad line; argus refuses
	// the job before any work, in the logbook the batch file names (which
	// sdcTable reads).
	if n < 3 || r.ended[n-2] != "Error in batch file" || r.ended[n-1] != "End of TauArgus run" ||
		slices.Contains(r.ended, "Tables have been read") || !strings.Contains(r.ended[n-3], "(refused before the job started)") {
		t.Errorf("logbook:\n%s", strings.Join(r.ended, "\n"))
	}
	if r.report.ExitCode != ExitError || len(r.report.Errors) != 1 {
		t.Errorf("report: exit %d, errors %v", r.report.ExitCode, r.report.Errors)
	}
	// The error reaches stderr once, as the "argus: " line (no JSON log
	// line repeating it).
	if len(r.report.Errors) == 1 {
		first, _, _ := strings.Cut(r.report.Errors[0], "\n")
		key := first // up to the first character JSON would escape
		if i := strings.IndexAny(first, `"\`); i > 0 {
			key = first[:i]
		}
		if n := strings.Count(r.stderr, key); n != 1 || !strings.Contains(r.stderr, "argus: "+first) {
			t.Errorf("stderr has the error %d times:\n%s", n, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, "tabout_Qm7ZtSYNTX.txt")); err == nil {
		t.Error("the job wrote its output")
	}
}
