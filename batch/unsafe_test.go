package batch

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// writeFiles writes name → text into a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// keepLinked adds no secondary and serves linked sets.
type keepLinked struct{ keep }

func (keepLinked) Info() pluginsdk.MethodInfo {
	i := keep{}.Info()
	i.Code, i.Capabilities.LinkedTables = "KEEPL", true
	return i
}

// TestLinkedUnsafe: when the audit of a linked set fails, every table of
// the set is unsafe, even one whose own primaries (none here) passed: none
// of their outputs is written and the job ends with exit code 2; the
// logbook names the failed cell by its codes.
func TestLinkedUnsafe(t *testing.T) {
	rda := "<SEPARATOR> \",\"\r\n%s\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n"
	data := writeFiles(t, map[string]string{
		"r.rda": strings.Replace(rda, "%s", "region", 1), "r.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n",
		"s.rda": strings.Replace(rda, "%s", "sector", 1), "s.tab": "Total,10.5,S\r\nX,3.5,S\r\nY,7,S\r\n",
	})
	arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "r.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "r.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
		"<OPENTABLEDATA> \"" + filepath.Join(data, "s.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "s.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"sector\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
		"<SUPPRESS> KEEPL(0)\r\n<WRITETABLE> (1, 2, AS+, \"r.csv\")\r\n<WRITETABLE> (2, 2, AS+, \"s.csv\")\r\n"
	dir, code, rep, lb := runJob(t, arb, newFake(t, keepLinked{}, exactAudit{}))
	if code != ExitError || rep.ExitCode != ExitError {
		t.Fatalf("exit %d, errors %v\n%s", code, rep.Errors, lb)
	}
	for _, f := range []string{"r.csv", "s.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written", f)
		}
	}
	if len(rep.Withheld) != 2 {
		t.Errorf("withheld %v, want both outputs", rep.Withheld)
	}
	if !strings.Contains(lb, "Error in the protection of the linked tables: the audit finds 1 of 1 primary cells under-protected or unverified: table 1: region=A") {
		t.Errorf("logbook:\n%s", lb)
	}
	if strings.Contains(lb, "4.25") {
		t.Errorf("the logbook shows a cell value:\n%s", lb)
	}
	if !strings.Contains(lb, "table 1 (region | val") || !strings.Contains(lb, "table 2 (sector | val") {
		t.Errorf("the end of the logbook does not name both tables:\n%s", lb)
	}
}

// singMethod declares a switch of GH's singleton protection (batch
// position 1) and a sliding ratio, by their roles; their names mean
// nothing to the host.
type singMethod struct{ keep }

func (singMethod) Info() pluginsdk.MethodInfo {
	i := keep{}.Info()
	i.Code = "SING"
	i.Params = []pluginsdk.ParamSpec{{Name: "sp", Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 1, Help: "singletons",
		Role: pluginsdk.RoleSingletonProtection},
		{Name: "sr", Type: pluginsdk.ParamFloat, Min: "0", Help: "sliding ratio", Role: pluginsdk.RoleSlidingRatio}}
	return i
}

// singAudit declares the singletons parameter and finds every primary
// disclosed when the singletons collude, protected otherwise.
type singAudit struct{}

func (singAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Params: []pluginsdk.ParamSpec{{Name: "singletons", Type: pluginsdk.ParamEnum, Default: "ignore",
			Allowed: []string{"ignore", "collude"}, Help: "attacker model", Role: pluginsdk.RoleSingletonProtection,
			Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonNone, pluginsdk.SingletonColluding}}},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (singAudit) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	v := req.Problem.Cells.Value
	res := &pluginsdk.Result{Lower: slices.Clone(v), Upper: slices.Clone(v)}
	if req.Params.String("singletons") != "collude" {
		for i := range v {
			res.Lower[i], res.Upper[i] = v[i]-1e7, v[i]+1e7
		}
	}
	return judged(req.Problem, res), nil
}

// TestSingletonAudit: when the method is asked for singleton protection
// (GH's switch, on by default as in τ-Argus), the audit after <SUPPRESS>
// lets the single-respondent primaries collude; the configuration can
// still choose the audit's model. The switch is read by its role with the
// SDK's boolean parser, as the method reads it: a configured "yes" or "on"
// is on for both. The method also gets τ-Argus's sliding ratio of the
// table's rules (MAN(20): 0.4) in its parameter of that role.
func TestSingletonAudit(t *testing.T) {
	head := regionJob(t, "2", "MAN(20)")
	for _, tc := range []struct {
		name, suppress string
		params         map[string]map[string]string
		collude        bool
	}{
		{"default on", "SING(1)", nil, true},
		{"off", "SING(1,0)", nil, false},
		{"on", "SING(1,1)", nil, true},
		{"configured audit", "SING(1)", map[string]map[string]string{"AUDIT": {"singletons": "ignore"}}, false},
		{"configured yes", "SING(1)", map[string]map[string]string{"SING": {"sp": "yes"}}, true},
		{"configured On", "SING(1)", map[string]map[string]string{"SING": {"sp": " On "}}, true},
		{"configured no", "SING(1)", map[string]map[string]string{"SING": {"sp": "no"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(head+"<SUPPRESS> "+tc.suppress+"\r\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir,
				Protector: newFake(t, singMethod{}, singAudit{}), MethodParams: tc.params}
			code, rep := Run(t.Context(), cfg)
			lb, _ := os.ReadFile(cfg.Logbook)
			var m *MethodReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					m = s.Method
				}
			}
			if m == nil || m.Audit == nil {
				t.Fatalf("no audit:\n%s", lb)
			}
			if got := m.Audit.Singletons == "collude"; got != tc.collude {
				t.Errorf("audit singletons %q, want collude %v", m.Audit.Singletons, tc.collude)
			}
			if want := map[bool]int{true: ExitError, false: ExitOK}[tc.collude]; code != want {
				t.Errorf("exit %d, want %d\n%s", code, want, lb)
			}
			if m.Params["sr"] != "0.4" {
				t.Errorf("method params %v, want ratio 0.4", m.Params)
			}
		})
	}
}

// TestSlidingRatio: τ-Argus's ratio of GHMiter for a rule set.
func TestSlidingRatio(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  rules.Set
		want float64
	}{
		{"NK(3,75)", rules.Set{NK: [4]*rules.NK{{N: 3, K: 75}}}, 2.0 / 3},
		{"P(10)", rules.Set{P: [4]*rules.P{{P: 10, N: 1}}}, 0.2},
		{"NK and P", rules.Set{NK: [4]*rules.NK{{N: 3, K: 75}}, P: [4]*rules.P{{P: 40, N: 1}}}, 0.8},
		{"holding P", rules.Set{P: [4]*rules.P{2: {P: 15, N: 1}}}, 0.3},
		{"FREQ(3,10)", rules.Set{Freq: [2]*rules.Freq{{MinFreq: 3, Range: 10}}, ManualMargin: 20}, 0.2},
		{"REQ", rules.Set{Req: [2]*rules.Req{{Margin: 5}}, ManualMargin: 20}, 0.1},
		{"manual", rules.Set{ManualMargin: 20}, 0.4},
	} {
		if got := slidingRatio(&tc.set); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: ratio %v, want %v", tc.name, got, tc.want)
		}
	}
}

// withoutAudit hides the audit method: no audit plugin installed.
type withoutAudit struct{ *fakeProtector }

func (w withoutAudit) Method(code string) (MethodRef, bool) {
	if strings.EqualFold(code, AuditMethod) {
		return MethodRef{}, false
	}
	return w.fakeProtector.Method(code)
}

// TestNoAuditPlugin: a pattern nobody can audit is not published as if it
// were safe: without an audit plugin the table's outputs are withheld and
// the job ends with exit code 2, unless --publish-unsafe.
func TestNoAuditPlugin(t *testing.T) {
	arb := regionJob(t, "2", "MAN(20)") +
		"<SUPPRESS> KEEP(1)\r\n<WRITETABLE> (1, 2, AS+, \"t.csv\")\r\n"
	dir, code, rep, lb := runJob(t, arb, withoutAudit{newFake(t, keep{})})
	if code != ExitError {
		t.Fatalf("exit %d\n%s", code, lb)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.csv")); err == nil {
		t.Error("t.csv written")
	}
	if !strings.Contains(lb, "no audit plugin is installed") || !strings.Contains(lb, "could not be audited") || len(rep.Withheld) != 1 {
		t.Errorf("withheld %v, logbook:\n%s", rep.Withheld, lb)
	}
}

// ssMethod declares MOD's and OPT's τ-Argus single-respondent rules.
type ssMethod struct{ keep }

func (ssMethod) Info() pluginsdk.MethodInfo {
	i := keep{}.Info()
	i.Code = "SS"
	i.Params = []pluginsdk.ParamSpec{{Name: "ss", Type: pluginsdk.ParamBool, Default: "true", Help: "single-single rule",
		Role: pluginsdk.RoleSingletonRule}}
	return i
}

// countAudit declares the singletons parameter, counts its runs and ends
// every one as an audit stopped by its time limit (every primary
// unverified).
type countAudit struct{ runs *atomic.Int64 }

func (countAudit) Info() pluginsdk.MethodInfo { return singAudit{}.Info() }

func (a countAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	a.runs.Add(1)
	res, err := verdictAudit{verdicts: true, v: verdict.Verdict{Kind: verdict.Unverified, Reason: verdict.Unsolved}}.Protect(ctx, req)
	res.Outcome = pluginsdk.OutcomeTimeLimit
	return res, err
}

// TestColludingCheckAfterTimeLimit: when the audit of a pattern stops at
// its time limit, the check against colluding single respondents (of a
// method asked for τ-Argus's single-respondent rules) is skipped, said so:
// the pattern has failed, and the same problem would take the whole audit
// limit a second time.
func TestColludingCheckAfterTimeLimit(t *testing.T) {
	arb := singletonJob(t)
	var runs atomic.Int64
	_, code, rep, lb := runJob(t, arb, newFake(t, ssMethod{}, countAudit{&runs}))
	if code != ExitError {
		t.Errorf("exit %d, want %d; errors %v\n%s", code, ExitError, rep.Errors, lb)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the audit ran %d times, want once (no colluding check after the time limit)\n%s", n, lb)
	}
	if !strings.Contains(lb, "colluding single respondents is skipped") {
		t.Errorf("the logbook does not say the colluding check was skipped:\n%s", lb)
	}
}

// TestBadBooleanBeforeWork: a configured boolean the SDK's parser does
// not read ("maybe") stops the job before any command runs, with the
// configured parameter named; so does one of the audit's. Before, the host
// read it as off and the method refused it only when the table was built.
func TestBadBooleanBeforeWork(t *testing.T) {
	data := writeFiles(t, map[string]string{
		"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n",
		"t.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n",
	})
	job := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> SING(1)\r\n"
	for _, tc := range []struct {
		name   string
		params map[string]map[string]string
		want   string
	}{
		{"method", map[string]map[string]string{"SING": {"sp": "maybe"}}, `configured parameter SING.sp: "maybe" is not a boolean`},
		{"audit", map[string]map[string]string{"AUDIT": {"singletons": "all"}}, `configured parameter AUDIT.singletons: "all" is not one of ignore, collude`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir,
				Protector: newFake(t, singMethod{}, singAudit{}), MethodParams: tc.params}
			code, rep := Run(t.Context(), cfg)
			lb, _ := os.ReadFile(cfg.Logbook)
			if code != ExitError || !strings.Contains(string(lb), tc.want) || !slices.ContainsFunc(rep.Errors, func(e string) bool {
				return strings.Contains(e, tc.want)
			}) {
				t.Fatalf("exit %d, errors %v, want %q\n%s", code, rep.Errors, tc.want, lb)
			}
			if len(rep.Steps) != 0 || strings.Contains(string(lb), "READTABLE") {
				t.Errorf("commands ran before the error: %d steps\n%s", len(rep.Steps), lb)
			}
		})
	}
}

// legacy serves the fake's methods as a plugin before contract 1.2 does:
// without parameter roles (the catalog marks them RolesUndeclared).
type legacy struct{ *fakeProtector }

func (l legacy) Method(code string) (MethodRef, bool) {
	ref, ok := l.fakeProtector.Method(code)
	if !strings.EqualFold(code, AuditMethod) {
		ref.Info.RolesUndeclared = true
	}
	return ref, ok
}

// TestLegacyPlugin: of a method whose plugin declares no parameter roles
// the host knows nothing: its pattern is audited with the single-respondent
// primaries colluding, whatever its parameters' names and values say, and
// the logbook says why (the configured audit can still choose the weaker
// audit, with a warning); a rounding method without a declared base is
// refused before it runs, since its table could not be checked.
func TestLegacyPlugin(t *testing.T) {
	data := writeFiles(t, map[string]string{
		"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n",
		"t.tab": "Total,105,S\r\nA,42.5,U\r\nB,62.5,S\r\n",
	})
	head := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n"
	for _, tc := range []struct {
		name, suppress string
		params         map[string]map[string]string
		code           int
		collude        bool
		logbook        string
	}{
		{"switch off", "SING(1,0)", nil, ExitError, true, "predates contract 1.2 and declares no parameter roles"},
		{"configured audit", "SING(1,0)", map[string]map[string]string{"AUDIT": {"singletons": "ignore"}}, ExitOK, false,
			"the audit's configured parameters choose a weaker audit"},
		{"rounding", "RND(1,20)", nil, ExitError, false, "declares no parameter of role rounding base"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(head+"<SUPPRESS> "+tc.suppress+"\r\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir,
				Protector: legacy{newFake(t, singMethod{}, nearest{}, singAudit{})}, MethodParams: tc.params}
			code, rep := Run(t.Context(), cfg)
			lb, _ := os.ReadFile(cfg.Logbook)
			if code != tc.code || !strings.Contains(string(lb), tc.logbook) {
				t.Fatalf("exit %d (want %d), logbook lacks %q:\n%s", code, tc.code, tc.logbook, lb)
			}
			var m *MethodReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					m = s.Method
				}
			}
			if tc.suppress == "RND(1,20)" {
				if m != nil {
					t.Errorf("the rounding ran: %+v", m)
				}
				return
			}
			if m == nil || m.Audit == nil || (m.Audit.Singletons == reportColluding) != tc.collude {
				t.Errorf("audit %+v, want colluding %v\n%s", m, tc.collude, lb)
			}
		})
	}
}

// oneRunAudit is singAudit with the parameter colluding_check: asked for
// it, one run returns the audit (every primary protected) and the check
// against the singletons colluding (every primary fails) as the audit
// plugin does. It records its runs and their time limits.
type oneRunAudit struct {
	runs   *atomic.Int64
	limits chan time.Duration
	// check names the parameter of the colluding check, "" for none (an
	// audit plugin of an earlier release); role declares it with its role
	// (contract 1.5), else the host finds it by its name before 1.5.
	check string
	role  bool
	// timedOut reports the check stopped at its time limit
	// (colluding_timed_out).
	timedOut bool
}

func (a oneRunAudit) Info() pluginsdk.MethodInfo {
	i := singAudit{}.Info()
	if a.check == "" {
		return i
	}
	s := pluginsdk.ParamSpec{Name: a.check, Type: pluginsdk.ParamBool, Default: "false", Help: "check"}
	if a.role {
		s.Role = pluginsdk.RoleAuditColludingCheck
	}
	i.Params = append(i.Params, s)
	return i
}

func (a oneRunAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	a.runs.Add(1)
	a.limits <- req.Limits.TimeLimit
	res, err := singAudit{}.Protect(ctx, req)
	if err != nil || a.check == "" || !req.Params.Bool(a.check) {
		return res, err
	}
	var failed []int
	for i, s := range req.Problem.Cells.Status {
		if s.IsPrimary() {
			failed = append(failed, i)
		}
	}
	res.Stats.Extra = map[string]float64{"colluding_checked": 1, "colluding_failed": float64(len(failed))}
	if a.timedOut {
		res.Stats.Extra["colluding_timed_out"] = 1
	}
	res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityInfo, Code: auditColludingCode,
		Summary: "fail", Cells: failed})
	return res, nil
}

// TestColludingCheckInOneAudit: the audit of a pattern made under
// τ-Argus's single-respondent rules and its check against the singletons
// colluding are one run of an audit plugin that can do both
// (colluding_check), with the time of two audits; the check's failures
// are reported as before (a warning naming the cells, the table published).
// The host finds the parameter by its role (contract 1.5), or by its name
// for an audit plugin that declares no audit role (before 1.5). An audit
// plugin without the parameter still runs twice.
func TestColludingCheckInOneAudit(t *testing.T) {
	arb := singletonJob(t)
	for _, tc := range []struct {
		name  string
		check string
		role  bool
		runs  int64
		limit time.Duration
	}{
		{"one run, by role", "also_colluding", true, 1, 2 * DefaultAuditLimit},
		{"one run, plugin before 1.5", "colluding_check", false, 1, 2 * DefaultAuditLimit},
		{"plugin without the check", "", false, 2, DefaultAuditLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := oneRunAudit{runs: new(atomic.Int64), limits: make(chan time.Duration, 2), check: tc.check, role: tc.role}
			_, code, rep, lb := runJob(t, arb, newFake(t, ssMethod{}, a))
			if code != ExitOK {
				t.Fatalf("exit %d; errors %v\n%s", code, rep.Errors, lb)
			}
			if !strings.Contains(lb, "do not protect against the single respondents colluding: 1 primary cells can be narrowed") ||
				strings.Contains(lb, "not proven safe") ||
				!strings.Contains(lb, "region=A") {
				t.Errorf("the logbook does not name the cell failing the colluding check:\n%s", lb)
			}
			if n := a.runs.Load(); n != tc.runs {
				t.Errorf("the audit ran %d times, want %d\n%s", n, tc.runs, lb)
			}
			if l := <-a.limits; l != tc.limit {
				t.Errorf("the audit's time limit is %s, want %s", l, tc.limit)
			}
		})
	}
}

// TestColludingCheckTimedOut: when the check against the singletons
// colluding stops at its time limit, the cells it names include primaries
// it did not get to prove, so the warning does not call them all
// narrowed.
func TestColludingCheckTimedOut(t *testing.T) {
	arb := singletonJob(t)
	a := oneRunAudit{runs: new(atomic.Int64), limits: make(chan time.Duration, 2), check: "also_colluding", role: true, timedOut: true}
	_, code, rep, lb := runJob(t, arb, newFake(t, ssMethod{}, a))
	if code != ExitOK {
		t.Fatalf("exit %d; errors %v\n%s", code, rep.Errors, lb)
	}
	if !strings.Contains(lb, "1 primary cells can be narrowed below their protection levels by colluding respondents or were not proven safe against them before the check's time limit ran out") {
		t.Errorf("the warning does not say the check stopped at its time limit:\n%s", lb)
	}
}

// singletonJob writes a one-dimensional table whose primary A has a single
// respondent, protected by SS(1), and returns its batch job: the colluding
// check's tests.
func singletonJob(t *testing.T) string {
	t.Helper()
	data := writeFiles(t, map[string]string{
		"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\n" +
			"freq\r\n  <FREQUENCY>\r\nst\r\n  <STATUS>\r\n",
		"t.tab": "Total,10.5,3,S\r\nA,4.25,1,U\r\nB,6.25,2,S\r\n",
	})
	arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> SS(1)\r\n"
	return arb
}
