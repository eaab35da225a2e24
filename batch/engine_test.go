package batch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

var corpus = testcorpus.Dir()

var (
	simpleIn  = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/Simple2D_InputData.unzipped")
	simpleOut = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/Simple2D_Expected_Output.unzipped/Simple2D.txt")
	tauRDA    = filepath.Join(corpus, "sdcTools/tauargus/data/Tau_TestW.rda")
)

// pairs is a test suppression method: for every primary it also suppresses
// the cheapest other suppressible cell of the same first-dimension code.
type pairs struct{}

func (pairs) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "PAIRS",
		Params:       []pluginsdk.ParamSpec{{Name: "factor", Type: pluginsdk.ParamInt, Default: "1", BatchPosition: 1, Help: "unused"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (pairs) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		best := -1
		for j := range st {
			if j != i && st[j].CanBeSecondary() && p.Coords(j)[0] == p.Coords(i)[0] && (best < 0 || p.Cells.Cost[j] < p.Cells.Cost[best]) {
				best = j
			}
		}
		if best >= 0 {
			st[best], _ = st[best].ToSecondary()
		}
	}
	return &pluginsdk.Result{Status: st}, nil
}

// fakeProtector serves methods in-process through the real wire path.
type fakeProtector struct {
	client  *pluginclient.Client
	methods map[string]pluginsdk.MethodInfo
}

// newFake serves methods in-process. Without an audit method among them it
// adds passAudit: a job whose pattern nobody audits is not published.
func newFake(t *testing.T, methods ...pluginsdk.Method) *fakeProtector {
	if !slices.ContainsFunc(methods, func(m pluginsdk.Method) bool { return m.Info().Code == AuditMethod }) {
		methods = append(methods, passAudit{})
	}
	f := &fakeProtector{client: plugintest.Serve(t, pluginsdk.Plugin{Name: "fake", Version: "1", Methods: methods}),
		methods: map[string]pluginsdk.MethodInfo{}}
	for _, m := range methods {
		f.methods[m.Info().Code] = m.Info()
	}
	return f
}

// passAudit is a test audit that finds every cell protected (an attacker
// interval of ±10¹² around its value), for tests about other things than
// the audit.
type passAudit struct{}

func (passAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (passAudit) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	v := req.Problem.Cells.Value
	res := &pluginsdk.Result{Lower: make([]float64, len(v)), Upper: make([]float64, len(v))}
	for i := range v {
		res.Lower[i], res.Upper[i] = v[i]-1e12, v[i]+1e12
	}
	return judged(req.Problem, res), nil
}

// judged completes a test audit's intervals with the verdicts the audit
// gives them (package verdict), as the audit plugin sends them.
func judged(p *pluginsdk.Problem, res *pluginsdk.Result) *pluginsdk.Result {
	c := &p.Cells
	level := func(x []float64, i int) float64 {
		if len(x) != len(c.Value) {
			return 0
		}
		return x[i]
	}
	tol := verdict.Tolerance(c.Value)
	res.Verdicts = make([]verdict.Verdict, len(c.Value))
	for i, s := range c.Status {
		if s.IsPrimary() {
			l := verdict.Levels{Lower: level(c.LowerPL, i), Upper: level(c.UpperPL, i), Sliding: level(c.SlidingPL, i)}
			res.Verdicts[i] = verdict.Interval(c.Value[i], l, res.Lower[i], res.Upper[i], tol)
		}
	}
	return res
}

func (f *fakeProtector) Method(code string) (MethodRef, bool) {
	info, ok := f.methods[strings.ToUpper(code)]
	return MethodRef{Info: info, Plugin: "fake", Version: "1"}, ok
}

func (f *fakeProtector) Protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	return f.client.Protect(ctx, job)
}

func needCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runJob writes the batch file into a fresh directory and runs it.
func runJob(t *testing.T, arb string, prot Protector) (dir string, code int, rep *Report, logbook string) {
	t.Helper()
	dir = t.TempDir()
	path := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
		t.Fatal(err)
	}
	lb := filepath.Join(dir, "log.txt")
	code, rep = Run(t.Context(), Config{BatchFile: path, Logbook: lb, TempDir: dir, Protector: prot,
		Log: zerolog.Nop(), Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }, Version: "test"})
	b, _ := os.ReadFile(lb)
	return dir, code, rep, string(b)
}

func simpleJob(t *testing.T, suppress string) string {
	return "<OPENMICRODATA> \"" + abs(t, filepath.Join(simpleIn, "tau_testW.asc")) + "\"\r\n" +
		"<OPENMETADATA> \"" + abs(t, tauRDA) + "\"\r\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2\"||\r\n" +
		"<SAFETYRULE> P(15,1)\r\n" +
		"<READMICRODATA>\r\n" +
		suppress +
		"<WRITETABLE> (1, 1, , \"out1.csv\")\r\n" +
		"<WRITETABLE> (1, 2, AS+, \"out2.csv\")\r\n" +
		"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n" +
		"<WRITETABLE> (1, 4, , \"out4.sbs\")\r\n" +
		"<WRITETABLE> (1, 5, AS+, \"out5.tab\")\r\n" +
		"<WRITETABLE> (1, 6, , \"out6.jj\")\r\n"
}

// TestSimple2DJob runs a Simple2D job end to end and compares every
// non-secondary line of the type-3 output with τ-Argus's Simple2D.txt.
func TestSimple2DJob(t *testing.T) {
	needCorpus(t)
	dir, code, rep, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), newFake(t, pairs{}))
	if code != ExitOK {
		t.Fatalf("exit %d, errors %v\nlogbook:\n%s", code, rep.Errors, lb)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(simpleOut)
	gl := strings.Split(string(got), "\r\n")
	wl := strings.Split(string(want), "\r\n")
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
	secondaries := 0
	for i := range wl {
		if strings.HasSuffix(gl[i], ",11") {
			secondaries++
		}
		if strings.HasSuffix(wl[i], ",11") || strings.HasSuffix(gl[i], ",11") {
			continue
		}
		if gl[i] != wl[i] {
			t.Errorf("line %d: %q, want %q", i+1, gl[i], wl[i])
		}
	}
	if secondaries == 0 {
		t.Error("no secondary suppressions in the output")
	}
	for _, f := range []string{"out1.csv", "out2.csv", "out4.sbs", "out5.tab", "out5.rda", "out6.jj", "out6.jj.frq", "out1.html", "out3.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("output %s missing or empty (%v)", f, err)
		}
	}
	for _, want := range []string{"Start of batch procedure; file: ", "<SUPPRESS> PAIRS(1,1)", "Number of suppressions: ",
		"has been written", "End of TauArgus run"} {
		if !strings.Contains(lb, want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	if len(rep.Tables) != 1 || rep.Tables[0].Primaries != 9 || len(rep.Outputs) != 6 {
		t.Errorf("report: %+v", rep)
	}
}

func TestJobErrors(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		name    string
		arb     string
		code    int
		logbook []string
	}{
		{"order", "<READMICRODATA>\r\n", ExitError,
			[]string{"This keyword (<READMICRODATA>) is not allowed in this position", "Error in batch file", "End of TauArgus run"}},
		{"unknown keyword", "<NOSUCH> x\r\n", ExitError, []string{"Error in batch file"}},
		{"interactive", "<GOINTERACTIVE>\r\n<READMICRODATA>\r\n", ExitInteractive, []string{"<GOINTERACTIVE>", "End of TauArgus run"}},
		{"missing file", "<OPENMICRODATA> \"nosuch.asc\"\r\n", ExitError, []string{"could not be found", "Error in batch file"}},
		{"unknown method", simpleJob(t, "<SUPPRESS> XYZ(1)\r\n"), ExitError, []string{"Unknown suppression method (XYZ) found"}},
		{"no plugin", simpleJob(t, "<SUPPRESS> GH(1,100)\r\n"), ExitError, []string{"no installed method plugin serves method GH"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, code, _, lb := runJob(t, tc.arb, newFake(t, pairs{}))
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, lb)
			}
			for _, w := range tc.logbook {
				if !strings.Contains(lb, w) {
					t.Errorf("logbook lacks %q:\n%s", w, lb)
				}
			}
			// A failing job leaves no half-written output behind.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

// TestConcurrentJobs runs two jobs at the same time in the same directory:
// each writes its own complete outputs and logbook.
func TestConcurrentJobs(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	prot := newFake(t, pairs{})
	job := func(name string) string {
		return strings.ReplaceAll(simpleJob(t, "<SUPPRESS> PAIRS(1)\r\n"), "\"out", "\""+name+"-out")
	}
	type result struct {
		code int
		rep  *Report
	}
	results := make(chan result, 2)
	for _, name := range []string{"a", "b"} {
		path := filepath.Join(dir, name+".arb")
		if err := os.WriteFile(path, []byte(job(name)), 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: filepath.Join(dir, name+".log"), TempDir: dir,
				Protector: prot, Log: zerolog.Nop(), Version: "test"})
			results <- result{code, rep}
		}()
	}
	for range 2 {
		r := <-results
		if r.code != ExitOK {
			t.Errorf("job %s: exit %d: %v", r.rep.BatchFile, r.code, r.rep.Errors)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a-out3.txt"))
	b, _ := os.ReadFile(filepath.Join(dir, "b-out3.txt"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("outputs differ or are empty: %d and %d bytes", len(a), len(b))
	}
}

// countStatuses counts the cells of each status in a type-3 AS+ output.
func countStatuses(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\r\n") {
		n[l[strings.LastIndexByte(l, ',')+1:]]++
	}
	return n
}

// TestTabularJobs runs checkTauArgus's ex1 and rtauargus's ex2 tabular jobs
// (the a-priori file of ex2 included) with the test method in place of OPT.
func TestTabularJobs(t *testing.T) {
	td := abs(t, filepath.Join("tabinput", "testdata"))
	for _, tc := range []struct {
		name string
		arb  string
		want map[string]int // statuses before protection: primaries by code
	}{
		{"ex1", "<OPENTABLEDATA> \"" + filepath.Join(td, "ex1", "tabdata_ex1.tab") + "\"\r\n" +
			"<OPENMETADATA> \"" + filepath.Join(td, "ex1", "metadata_ex1.rda") + "\"\r\n" +
			"<SPECIFYTABLE> \"region\"\"gender\"|\"freq\"|\"\"|\"\"\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
			"<SUPPRESS> PAIRS(1)\r\n<WRITETABLE> (1, 3, AS+, \"out.txt\")\r\n", map[string]int{"9": 1}},
		{"rtauargus ex2", "<OPENTABLEDATA> \"" + filepath.Join(td, "rtau2", "ex2.tab") + "\"\r\n" +
			"<OPENMETADATA> \"" + filepath.Join(td, "rtau2", "ex2.rda") + "\"\r\n" +
			"<SPECIFYTABLE> \"ACTIVITY\"\"SIZE\"|\"TOT\"||\r\n<SAFETYRULE> MAN(10)\r\n<READTABLE> 1\r\n" +
			"<APRIORI> \"" + filepath.Join(td, "rtau2", "ex2.hst") + "\",1,\",\",0,0\r\n" +
			"<SUPPRESS> PAIRS(1)\r\n<WRITETABLE> (1, 3, AS+, \"out.txt\")\r\n", map[string]int{"9": 77}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, code, rep, lb := runJob(t, tc.arb, newFake(t, pairs{}))
			if code != ExitOK {
				t.Fatalf("exit %d: %v\n%s", code, rep.Errors, lb)
			}
			got := countStatuses(t, filepath.Join(dir, "out.txt"))
			primaries := 0
			for _, s := range []string{"3", "4", "5", "6", "7", "8", "9"} {
				primaries += got[s]
			}
			wantP := 0
			for s, n := range tc.want {
				wantP += n
				if got[s] != n {
					t.Errorf("status %s: %d cells, want %d (all: %v)", s, got[s], n, got)
				}
			}
			if primaries != wantP {
				t.Errorf("%d primaries, want %d", primaries, wantP)
			}
			if !strings.Contains(lb, "Tables have been read") {
				t.Errorf("logbook lacks \"Tables have been read\":\n%s", lb)
			}
		})
	}
}

// TestRecodeJob runs τ-Argus's own TestRecode.arb (three recodes on two
// tables from the tutorial microdata), then writes the recoded tables.
func TestRecodeJob(t *testing.T) {
	needCorpus(t)
	data := abs(t, filepath.Join(corpus, "sdcTools/tauargus/data"))
	job := "<OPENMICRODATA> \"" + abs(t, filepath.Join(simpleIn, "tau_testW.asc")) + "\"\r\n" +
		"<OPENMETADATA> \"" + abs(t, tauRDA) + "\"\r\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2\"||\r\n<SAFETYRULE> NK(2,75)|NK(0,0)\r\n" +
		"<SPECIFYTABLE> \"Region\"\"IndustryCode\"|\"Var2\"||\r\n<SAFETYRULE> NK(2,75)|NK(0,0)\r\n" +
		"<READMICRODATA>\r\n" +
		"<RECODE> 1, Size, \"" + filepath.Join(data, "GK.GRC") + "\"\r\n" +
		"<RECODE> 1, Region, 2\r\n" +
		"<RECODE> 2, IndustryCode, \"" + filepath.Join(data, "IndCode2.grc") + "\"\r\n" +
		"<WRITETABLE> (1, 3, AS+, \"t1.txt\")\r\n<WRITETABLE> (2, 3, AS+, \"t2.txt\")\r\n"
	dir, code, rep, lb := runJob(t, job, newFake(t, pairs{}))
	if code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, rep.Errors, lb)
	}
	for _, want := range []string{"Variable Size has been recoded for table 1", "Variable IndustryCode has been recoded for table 2"} {
		if !strings.Contains(lb, want) {
			t.Errorf("logbook lacks %q", want)
		}
	}
	// GK.GRC maps Size classes 1–5 to one code: the recoded table has fewer
	// Size codes than the original 9 (total, 2, 4–9, missing 99).
	b, _ := os.ReadFile(filepath.Join(dir, "t1.txt"))
	sizes := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\r\n") {
		sizes[l[:strings.IndexByte(l, ',')]] = true
	}
	if len(sizes) >= 9 || len(sizes) < 2 {
		t.Errorf("recoded Size has %d codes: %v", len(sizes), sizes)
	}
}

// TestLogbookHeader checks τ-Argus's two logbooks: the start-of-run header
// goes to the default logbook; a logbook given to the job starts with
// "Start of batch procedure"; without one the job's lines follow the header
// in the default logbook.
func TestLogbookHeader(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	for _, own := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "job.arb")
		if err := os.WriteFile(path, []byte("<VERSIONINFO> \"v.txt\"\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Config{BatchFile: path, TempDir: dir, Protector: newFake(t, pairs{}), Log: zerolog.Nop(), Now: now,
			Version: "9.9", Components: []string{"plugin x version 1 (X)"}}
		if own {
			cfg.Logbook = filepath.Join(dir, "job.log")
		}
		if code, _ := Run(t.Context(), cfg); code != ExitOK {
			t.Fatalf("exit %d", code)
		}
		def, err := os.ReadFile(filepath.Join(dir, "TauLogbook.txt"))
		if err != nil {
			t.Fatal(err)
		}
		header := "22-Nov-2026 10:00:00 : --------------------------\r\n" +
			"22-Nov-2026 10:00:00 : Start of TauArgus run\r\n" +
			"22-Nov-2026 10:00:00 : argus version 9.9\r\n" +
			"22-Nov-2026 10:00:00 : plugin x version 1 (X)\r\n" +
			"22-Nov-2026 10:00:00 : --------------------------\r\n"
		start := "22-Nov-2026 10:00:00 : Start of batch procedure; file: " + path + "\r\n"
		if !own {
			if !strings.HasPrefix(string(def), header+start) || !strings.HasSuffix(string(def), "End of TauArgus run\r\n") {
				t.Errorf("default logbook:\n%s", def)
			}
			continue
		}
		if string(def) != header {
			t.Errorf("default logbook:\n%s\nwant\n%s", def, header)
		}
		job, err := os.ReadFile(cfg.Logbook)
		if err != nil || !strings.HasPrefix(string(job), start) {
			t.Errorf("job logbook (%v):\n%s", err, job)
		}
	}
}

// TestHints: the logbook keeps τ-Argus's words; the run report adds advice.
func TestHints(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		name, arb, err, hint string
	}{
		{"variable", strings.Replace(simpleJob(t, ""), `"Size""Region"`, `"Size""Regio"`, 1),
			"Explanatory variable (Regio) not found", "Tau_TestW.rda declares Year, IndustryCode, Size, Region,"},
		{"file", "<OPENMICRODATA> \"nosuch.asc\"\r\n", "file: nosuch.asc could not be found.",
			"a plain file name is looked up next to the batch file, then in the data directory"},
		{"safetyrule", strings.Replace(simpleJob(t, ""), "P(15,1)", "P(15,1) | NK(3,70)", 1),
			`A "|" is expected here`, `write P(15,1)|NK(3,70), without blanks`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, code, rep, lb := runJob(t, tc.arb, newFake(t, pairs{}))
			if code != ExitError || !strings.Contains(lb, tc.err) {
				t.Fatalf("exit %d, logbook:\n%s", code, lb)
			}
			if strings.Contains(lb, tc.hint) {
				t.Errorf("the hint went to the logbook:\n%s", lb)
			}
			if len(rep.Hints) != 1 || !strings.Contains(rep.Hints[0], tc.hint) {
				t.Errorf("hints %q, want one containing %q", rep.Hints, tc.hint)
			}
			if tc.name == "file" && !strings.Contains(rep.Hints[0], filepath.Join(dir, "nosuch.asc")) {
				t.Errorf("hint does not name the place looked at: %q", rep.Hints[0])
			}
		})
	}
}

// TestProgress: reading microdata reports the share of the file read in
// each pass.
func TestProgress(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(path, []byte(simpleJob(t, "<SUPPRESS> PAIRS(1)\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	last := map[string]float64{}
	cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: newFake(t, pairs{}),
		Log: zerolog.Nop(), Progress: func(step string, f float64) {
			mu.Lock()
			defer mu.Unlock()
			if f < last[step] {
				t.Errorf("%s: progress went back from %v to %v", step, last[step], f)
			}
			last[step] = f
		}}
	if code, _ := Run(t.Context(), cfg); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, step := range []string{"reading microdata (pass 1 of 2)", "reading microdata (pass 2 of 2)"} {
		if f, ok := last[step]; !ok || f <= 0.5 || f > 1 {
			t.Errorf("%s: last fraction %v (reported %v), want near 1", step, f, ok)
		}
	}
}

// TestMethodNotInstalled: a τ-Argus method whose plugin is not installed
// says which plugin in the logbook and the report (rtauargus ignores exit
// codes).
func TestMethodNotInstalled(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct{ suppress, want string }{
		{"<SUPPRESS> NET(1)\r\n", "the plugin argus-method-network is not installed"},
		{"<SUPPRESS> CTA(1)\r\n", "the plugin argus-method-cta is not installed"},
		{"<SUPPRESS> RND(1,5000)\r\n", "the plugin argus-method-rounding is not installed"},
		{"<SUPPRESS> GH(1,100)\r\n", "the plugin argus-method-hypercube is not installed"},
		{"<SUPPRESS> OPT(1)\r\n", "the plugin argus-method-optimal is not installed"},
	} {
		t.Run(tc.suppress, func(t *testing.T) {
			_, code, rep, lb := runJob(t, simpleJob(t, tc.suppress), newFake(t, pairs{}))
			if code != ExitError {
				t.Errorf("exit %d", code)
			}
			if !strings.Contains(lb, tc.want) {
				t.Errorf("logbook lacks %q:\n%s", tc.want, lb)
			}
			if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], tc.want) || len(rep.Hints) != 1 {
				t.Errorf("report errors %q hints %q", rep.Errors, rep.Hints)
			}
		})
	}
}

// refusing is a protector whose catalog refused a plugin (checksum pins).
type refusing struct{ Protector }

func (refusing) Unavailable(code string) string {
	return "plugins not used (they may serve it): argus-method-hypercube"
}

// TestMethodRefused: a method whose plugin was found but refused says why,
// not only that it is not installed.
func TestMethodRefused(t *testing.T) {
	needCorpus(t)
	_, code, rep, lb := runJob(t, simpleJob(t, "<SUPPRESS> GH(1,100)\r\n"), refusing{newFake(t, pairs{})})
	if code != ExitError {
		t.Errorf("exit %d", code)
	}
	want := "plugins not used (they may serve it): argus-method-hypercube"
	if !strings.Contains(lb, want) || len(rep.Hints) != 1 || !strings.Contains(rep.Hints[0], "argus plugins") {
		t.Errorf("logbook lacks %q, hints %q:\n%s", want, rep.Hints, lb)
	}
}

// TestTableNamesAsDeclared: the logbook and the outputs name a table's
// variables as the metadata declares them, whatever the case the batch file
// uses (τ-Argus looks them up and uses the metadata's), and "FREQ", τ-Argus
// 3.5's frequency count, makes a frequency table with a warning.
func TestTableNamesAsDeclared(t *testing.T) {
	needCorpus(t)
	job := "<OPENMICRODATA> \"" + abs(t, filepath.Join(simpleIn, "tau_testW.asc")) + "\"\r\n" +
		"<OPENMETADATA> \"" + abs(t, tauRDA) + "\"\r\n" +
		"<SPECIFYTABLE> \"size\"\"REGION\"|\"var2\"||\"var3\"\r\n" +
		"<SAFETYRULE> P(15,1)\r\n" +
		"<SPECIFYTABLE> \"Size\"|\"Freq\"||\r\n" +
		"<SAFETYRULE> FREQ(3,10)\r\n" +
		"<READMICRODATA>\r\n" +
		"<SUPPRESS> PAIRS(1)\r\n" +
		"<WRITETABLE> (1, 5, , \"out5.tab\")\r\n" +
		"<WRITETABLE> (2, 3, AS+, \"freq.txt\")\r\n"
	dir, code, rep, lb := runJob(t, job, newFake(t, pairs{}))
	if code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, rep.Errors, lb)
	}
	for _, want := range []string{"Table: Size x Region | Var2 has been specified", "for table Size x Region | Var2",
		"Table: Size x Region | Var2 has been written", "Table: Size | <freq> has been written",
		`WARNING: response variable "Freq" read as "<freq>"`} {
		if !strings.Contains(lb, want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "job.arb:5") {
		t.Errorf("report warnings %q", rep.Warnings)
	}
	rda, err := os.ReadFile(filepath.Join(dir, "out5.rda"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\r\nSize \"99\"\r\n", "\r\nRegion \"99\"\r\n", "\r\nVar2\r\n", "\r\nVar3\r\n    <NUMERIC> <COSTVAR>"} {
		if !strings.Contains(string(rda), want) {
			t.Errorf("out5.rda lacks %q:\n%s", want, rda)
		}
	}
}

// regionJob writes the one-dimensional test table (region Total = A + B,
// A unsafe, values with two decimals in the table file, decimals as given
// in the metadata) and returns the head of a job that reads it with the
// safety rule rule; the caller adds <SUPPRESS> and <WRITETABLE> lines.
func regionJob(t *testing.T, decimals, rule string) string {
	t.Helper()
	data := writeFiles(t, map[string]string{
		"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\n" +
			"val\r\n  <NUMERIC>\r\n  <DECIMALS> " + decimals + "\r\nst\r\n  <STATUS>\r\n",
		"t.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n",
	})
	return "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n" +
		"<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> " + rule + "\r\n<READTABLE>\r\n"
}
