package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// keep is a test suppression method that adds no secondary.
type keep struct{}

func (keep) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "KEEP", Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (keep) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	return &pluginsdk.Result{Status: append([]cellstatus.Status(nil), req.Problem.Cells.Status...)}, nil
}

// exactAudit is a test audit that finds every cell exactly disclosed.
type exactAudit struct{}

func (exactAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (exactAudit) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	v := req.Problem.Cells.Value
	return judged(req.Problem, &pluginsdk.Result{Lower: append([]float64(nil), v...), Upper: append([]float64(nil), v...)}), nil
}

// TestAuditToleranceIgnoresDecimals: an exactly disclosed primary is
// under-protected whatever the response's decimals. The tolerance used to
// be 1e-9·10^decimals, 10^6 for the <DECIMALS> 15 piargus writes for float
// columns, which passed every pattern.
func TestAuditToleranceIgnoresDecimals(t *testing.T) {
	for _, decimals := range []string{"0", "2", "15"} {
		t.Run(decimals, func(t *testing.T) {
			arb := regionJob(t, decimals, "MAN(20)") + "<SUPPRESS> KEEP(1)\r\n"
			_, code, rep, lb := runJob(t, arb, newFake(t, keep{}, exactAudit{}))
			// A table left under-protected ends the job with exit code 2.
			if code != ExitError {
				t.Fatalf("exit %d, errors %v\n%s", code, rep.Errors, lb)
			}
			var audit *AuditReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					audit = s.Method.Audit
				}
			}
			if audit == nil || !audit.Done || audit.Primaries != 1 || audit.UnderProtected != 1 {
				t.Errorf("audit %+v, want 1 primary, 1 under-protected", audit)
			}
			if !strings.Contains(lb, "WARNING: audit: 1 of 1 primary cells are under-protected") {
				t.Errorf("logbook lacks the audit warning:\n%s", lb)
			}
		})
	}
}

// echo is a test method that reports the parameters it received.
type echo struct{}

func (echo) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "ECHO", Aliases: []string{"ECH"},
		Params: []pluginsdk.ParamSpec{
			{Name: "first", Type: pluginsdk.ParamString, Default: "d1", BatchPosition: 1, Help: "the first"},
			{Name: "second", Type: pluginsdk.ParamString, Default: "d2", Help: "the second"},
			{Name: "third", Type: pluginsdk.ParamString, Default: "d3", Help: "the third"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (echo) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	msg := "received"
	for _, n := range []string{"first", "second", "third"} {
		msg += " " + n + "=" + req.Params.String(n)
	}
	return &pluginsdk.Result{Status: append([]cellstatus.Status(nil), req.Problem.Cells.Status...),
		Diagnostics: []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityInfo, Code: "echo", Summary: msg}},
		Stats:       pluginsdk.Stats{Extra: map[string]float64{"cells": float64(req.Problem.NumCells())}}}, nil
}

// TestConfiguredParams: named parameters from the configuration or the
// command line fill what the batch file does not give; the batch file's
// positional arguments win; an undeclared name stops the job.
func TestConfiguredParams(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		name, suppress string
		params         map[string]map[string]string
		code           int
		want           string
	}{
		{"defaults", "<SUPPRESS> ECHO(1)", nil, ExitOK, "received first=d1 second=d2 third=d3"},
		{"configured", "<SUPPRESS> ECHO(1)", map[string]map[string]string{"ECHO": {"second": "c2", "first": "c1"}}, ExitOK,
			"received first=c1 second=c2 third=d3"},
		{"positional wins", "<SUPPRESS> ECHO(1,p1)", map[string]map[string]string{"ECHO": {"first": "c1", "third": "c3"}}, ExitOK,
			"received first=p1 second=d2 third=c3"},
		{"alias", "<SUPPRESS> ECHO(1)", map[string]map[string]string{"ECH": {"third": "a3"}}, ExitOK,
			"received first=d1 second=d2 third=a3"},
		{"other method", "<SUPPRESS> ECHO(1)", map[string]map[string]string{"GH": {"nosuch": "1"}}, ExitOK,
			"received first=d1 second=d2 third=d3"},
		{"unknown name", "<SUPPRESS> ECHO(1)", map[string]map[string]string{"ECHO": {"fourth": "x"}}, ExitError,
			"configured parameter ECHO.fourth: method ECHO has no parameter fourth (it has first, second, third)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(simpleJob(t, tc.suppress+"\r\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			lb := filepath.Join(dir, "log.txt")
			code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: lb, TempDir: dir, Protector: newFake(t, echo{}),
				Log: zerolog.Nop(), MethodParams: tc.params})
			b, _ := os.ReadFile(lb)
			if code != tc.code || !strings.Contains(string(b), tc.want) {
				t.Fatalf("exit %d (want %d), logbook lacks %q:\n%s", code, tc.code, tc.want, b)
			}
			if code != ExitOK {
				return
			}
			for _, s := range rep.Steps {
				if m := s.Method; m != nil {
					if m.Figures["cells"] <= 0 {
						t.Errorf("report figures %v: the method's own figures are missing", m.Figures)
					}
					for _, kv := range strings.Fields(strings.TrimPrefix(tc.want, "received ")) {
						k, v, _ := strings.Cut(kv, "=")
						if got, ok := m.Params[k]; ok && got != v || !ok && !strings.HasPrefix(v, "d") {
							t.Errorf("report params %v, want %s", m.Params, kv)
						}
					}
				}
			}
		})
	}
}

// modeAudit is a test audit that declares the mode and targets parameters
// and reports every cell with its true value widened by 10⁷, and in its
// figures whether it was asked to audit the primaries only. With roles it
// declares them with their roles (contract 1.5) under other names than the
// audit plugin's; without, under the names of the audit plugin before 1.5.
type modeAudit struct{ roles bool }

// names returns the names of its mode and targets parameters.
func (a modeAudit) names() (mode, targets string) {
	if a.roles {
		return "compute", "judge"
	}
	return "mode", "targets"
}

func (a modeAudit) Info() pluginsdk.MethodInfo {
	mode, targets := a.names()
	info := pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Params: []pluginsdk.ParamSpec{{Name: mode, Type: pluginsdk.ParamEnum, Default: "bounds",
			Allowed: []string{"bounds", "verdicts"}, Help: "what to compute"},
			{Name: targets, Type: pluginsdk.ParamEnum, Default: "all",
				Allowed: []string{"all", "primaries"}, Help: "which cells to audit"}},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
	if a.roles {
		info.Params[0].Role, info.Params[1].Role = pluginsdk.RoleAuditMode, pluginsdk.RoleAuditTargets
	}
	return info
}

func (a modeAudit) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	_, targets := a.names()
	v := req.Problem.Cells.Value
	res := &pluginsdk.Result{Lower: make([]float64, len(v)), Upper: make([]float64, len(v))}
	for i := range v {
		res.Lower[i], res.Upper[i] = v[i]-1e7, v[i]+1e7
	}
	primaries := 0.0
	if req.Params.String(targets) == "primaries" {
		primaries = 1
	}
	res.Stats.Extra = map[string]float64{"primaries_only": primaries}
	return judged(req.Problem, res), nil
}

// TestAuditMode: the audit after <SUPPRESS> computes exact bounds only when
// the job writes them (type 5 with AR+), verdicts otherwise; the
// configuration can insist on bounds. The host finds the audit's parameters
// by their roles (contract 1.5), or by their names for an audit plugin
// before 1.5.
func TestAuditMode(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		name, extra string
		roles       bool
		params      map[string]map[string]string
		want        string
	}{
		{"no AR+", "", false, nil, "verdicts"},
		{"AR+", "<WRITETABLE> (1, 5, AR+, \"ar.tab\")\r\n", false, nil, "bounds"},
		{"AR+ of another type", "<WRITETABLE> (1, 3, AS+, \"x.txt\")\r\n", false, nil, "verdicts"},
		{"configured", "", false, map[string]map[string]string{"AUDIT": {"mode": "bounds"}}, "bounds"},
		{"roles: no AR+", "", true, nil, "verdicts"},
		{"roles: AR+", "<WRITETABLE> (1, 5, AR+, \"ar.tab\")\r\n", true, nil, "bounds"},
		{"roles: configured", "", true, map[string]map[string]string{"AUDIT": {"compute": "bounds"}}, "bounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(simpleJob(t, "<SUPPRESS> PAIRS(1)\r\n")+tc.extra), 0o644); err != nil {
				t.Fatal(err)
			}
			code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir,
				Protector: newFake(t, pairs{}, modeAudit{tc.roles}), Log: zerolog.Nop(), MethodParams: tc.params})
			if code != ExitOK {
				t.Fatalf("exit %d: %v", code, rep.Errors)
			}
			var a *AuditReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					a = s.Method.Audit
				}
			}
			if a == nil || a.Mode != tc.want || a.UnderProtected != 0 {
				t.Fatalf("audit %+v, want mode %s", a, tc.want)
			}
			// Verdicts are decided on the primaries alone.
			if only := a.Figures["primaries_only"] == 1; only != (tc.want == "verdicts") {
				t.Errorf("audit of the primaries only: %v, in mode %s", only, tc.want)
			}
			// The table's final state: the secondaries of PAIRS, their
			// cost, the method and the table's own audit.
			if len(rep.Tables) != 1 {
				t.Fatalf("tables %+v", rep.Tables)
			}
			tr := rep.Tables[0]
			if tr.Primaries != 9 || tr.Secondaries == 0 || tr.SuppressedCost <= 0 || tr.Method != "PAIRS" ||
				tr.Audit == nil || tr.Audit.Primaries != 9 || tr.Audit.Mode != tc.want {
				t.Errorf("table report %+v (audit %+v)", tr, tr.Audit)
			}
			if tc.want == "bounds" && tc.extra != "" {
				b, err := os.ReadFile(filepath.Join(dir, "ar.tab"))
				if err != nil || !strings.Contains(string(b), ";20000000") {
					t.Errorf("AR+ output lacks the audit widths (%v):\n%.400s", err, b)
				}
			}
		})
	}
}

// limited is PAIRS stopped by its time limit with the figures of a
// branch-and-bound (OPT's outcome and stats).
type limited struct{ pairs }

func (limited) Info() pluginsdk.MethodInfo {
	i := pairs{}.Info()
	i.Code = "LIMITED"
	return i
}

func (l limited) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	res, err := l.pairs.Protect(ctx, req)
	if err != nil {
		return nil, err
	}
	res.Outcome = pluginsdk.OutcomeTimeLimit
	res.Stats.Objective, res.Stats.Bound, res.Stats.Gap = 120, 90, 0.25
	return res, nil
}

// TestTimeLimitLogged: a method stopped by its time limit says so in the
// logbook, with its cost, bound and gap; one that finished does not.
func TestTimeLimitLogged(t *testing.T) {
	needCorpus(t)
	_, code, _, lb := runJob(t, simpleJob(t, "<SUPPRESS> LIMITED(1)\r\n"), newFake(t, limited{}))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, lb)
	}
	want := "The time limit stopped LIMITED after 0 seconds: the result is the best it had found, not proven optimal;\n" +
		"                       its cost is 120, the best lower bound 90, a gap of 25.00% (a longer time limit may find a cheaper result)"
	if !strings.Contains(strings.ReplaceAll(lb, "\r\n", "\n"), want) {
		t.Errorf("logbook lacks %q:\n%s", want, lb)
	}
	_, _, _, lb = runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1)\r\n"), newFake(t, pairs{}))
	if strings.Contains(lb, "time limit stopped") {
		t.Errorf("finished method logged a time limit:\n%s", lb)
	}
}

func TestLimitNoteWithoutBound(t *testing.T) {
	got := limitNote("GH", pluginsdk.OutcomeTimeLimit, pluginsdk.Stats{Objective: 5}, 3*time.Second)
	if got != "The time limit stopped GH after 3 seconds: the result is the best it had found, not proven optimal" {
		t.Errorf("note %q", got)
	}
	if limitNote("OPT", pluginsdk.OutcomeOptimal, pluginsdk.Stats{Gap: 0.1}, time.Second) != "" {
		t.Error("note for an optimal result")
	}
}

// deadlineRecorder records the deadline of the context each method ran
// with.
type deadlineRecorder struct {
	*fakeProtector
	got map[string]time.Time
}

func (d *deadlineRecorder) Protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	if end, ok := ctx.Deadline(); ok {
		d.got[job.Method] = end
	}
	return d.fakeProtector.Protect(ctx, job)
}

// TestMethodLeavesAuditTime: under a job deadline a method gets three
// quarters of the time left and its audit the rest; before, the method got
// the job's deadline and, using all of it, left its audit seconds (the
// t4.11³ GH job with --time-limit=10m ended in an audit error).
func TestMethodLeavesAuditTime(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(path, []byte(simpleJob(t, "<SUPPRESS> KEEP(1)\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		suppress time.Duration
		want     time.Duration // the method's deadline, from the start
	}{
		{"job deadline only", 0, 75 * time.Second},
		{"a shorter suppress limit", 10 * time.Second, 10 * time.Second},
		{"a longer suppress limit", time.Hour, 75 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &deadlineRecorder{fakeProtector: newFake(t, keep{}), got: map[string]time.Time{}}
			start := time.Now()
			ctx, cancel := context.WithDeadline(t.Context(), start.Add(100*time.Second))
			defer cancel()
			code, _ := Run(ctx, Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: rec,
				SuppressLimit: tc.suppress, Log: zerolog.Nop(), Version: "test"})
			if code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			m, ok := rec.got["KEEP"]
			if !ok {
				t.Fatal("the method ran without a deadline")
			}
			if got := m.Sub(start); got > tc.want+time.Second || got < tc.want-5*time.Second {
				t.Errorf("method deadline %v after the start, want %v", got, tc.want)
			}
			if a := rec.got[AuditMethod]; !a.Equal(start.Add(100 * time.Second)) {
				t.Errorf("audit deadline %v after the start, want the job's", a.Sub(start))
			}
		})
	}
}
