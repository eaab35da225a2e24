package batch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// verdictAudit is a test audit whose verdict on every primary is given,
// whatever its intervals say: exact intervals, or the value widened by
// 10⁷. Without verdicts it sends the intervals alone.
type verdictAudit struct {
	exact    bool
	verdicts bool
	v        verdict.Verdict
}

func (verdictAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (a verdictAudit) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	c := &req.Problem.Cells
	res := &pluginsdk.Result{Lower: slices.Clone(c.Value), Upper: slices.Clone(c.Value)}
	if !a.exact {
		for i, v := range c.Value {
			res.Lower[i], res.Upper[i] = v-1e7, v+1e7
		}
	}
	if a.verdicts {
		res.Verdicts = make([]verdict.Verdict, len(c.Value))
		for i, s := range c.Status {
			if s.IsPrimary() {
				res.Verdicts[i] = a.v
			}
		}
	}
	return res, nil
}

// TestAuditVerdictDecides: batch publishes or withholds a table by the
// audit's verdicts, not by its own reading of the intervals: a primary the
// audit finds under-protected (or unverified) inside an interval that
// reaches its levels fails; one it finds protected with an exact interval
// passes; an audit without verdicts is an error.
func TestAuditVerdictDecides(t *testing.T) {
	rda := "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n"
	data := writeFiles(t, map[string]string{"r.rda": rda, "r.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n"})
	arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "r.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "r.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
		"<SUPPRESS> KEEP(1)\r\n<WRITETABLE> (1, 2, AS+, \"r.csv\")\r\n"
	for _, tc := range []struct {
		name    string
		audit   verdictAudit
		code    int
		written bool
		log     string
	}{
		{"under-protected inside a wide interval", verdictAudit{verdicts: true, v: verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Partial}},
			ExitError, false, "the audit finds 1 of 1 primary cells under-protected or unverified: region=A"},
		{"unverified inside a wide interval", verdictAudit{verdicts: true, v: verdict.Verdict{Kind: verdict.Unverified, Reason: verdict.Unsolved}},
			ExitError, false, "WARNING: audit: 1 of 1 primary cells are under-protected"},
		{"protected with an exact interval", verdictAudit{exact: true, verdicts: true, v: verdict.Verdict{Kind: verdict.Protected}},
			ExitOK, true, "Audit: all 1 primary cells are protected"},
		{"not judged", verdictAudit{verdicts: true}, ExitError, false, "under-protected or unverified: region=A"},
		{"no verdicts", verdictAudit{}, ExitError, false, "the audit plugin returned no verdicts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, code, rep, lb := runJob(t, arb, newFake(t, keep{}, tc.audit))
			if code != tc.code {
				t.Errorf("exit %d, want %d; errors %v\n%s", code, tc.code, rep.Errors, lb)
			}
			_, err := os.Stat(filepath.Join(dir, "r.csv"))
			if written := err == nil; written != tc.written {
				t.Errorf("r.csv written %v, want %v", written, tc.written)
			}
			if !strings.Contains(lb, tc.log) && !slices.ContainsFunc(rep.Errors, func(e string) bool { return strings.Contains(e, tc.log) }) {
				t.Errorf("neither logbook nor errors say %q; errors %v\n%s", tc.log, rep.Errors, lb)
			}
		})
	}
}

// limitAudit is a test audit that records the time limit it was given and
// ends as an audit stopped by it: every primary unverified, outcome "time
// limit".
type limitAudit struct{ got *atomic.Int64 }

func (limitAudit) Info() pluginsdk.MethodInfo { return verdictAudit{}.Info() }

func (a limitAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	a.got.Store(int64(req.Limits.TimeLimit))
	res, err := verdictAudit{verdicts: true, v: verdict.Verdict{Kind: verdict.Unverified, Reason: verdict.Unsolved}}.Protect(ctx, req)
	res.Outcome = pluginsdk.OutcomeTimeLimit
	return res, err
}

// TestAuditTimeLimit: the final audit runs under a time limit (Config.AuditLimit,
// DefaultAuditLimit, shortened to end before the job's deadline); an audit
// that stops at it makes the table unsafe, and the logbook and the report
// say that the primaries are unverified because of the time limit.
func TestAuditTimeLimit(t *testing.T) {
	rda := "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n"
	data := writeFiles(t, map[string]string{"r.rda": rda, "r.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n"})
	arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "r.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "r.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
		"<SUPPRESS> KEEP(1)\r\n<WRITETABLE> (1, 2, AS+, \"r.csv\")\r\n"
	for _, tc := range []struct {
		name             string
		audit, job       time.Duration
		wantMin, wantMax time.Duration
		wantLog          string
	}{
		{"configured", 3 * time.Second, 0, 3 * time.Second, 3 * time.Second, "the audit stopped at its time limit of 3s: 1 of 1 primary cells are unverified"},
		{"default", 0, 0, DefaultAuditLimit, DefaultAuditLimit, "the audit stopped at its time limit of 10m0s"},
		{"job deadline", 0, 100 * time.Second, time.Second, 90 * time.Second, "the audit stopped at its time limit of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			lbPath := filepath.Join(dir, "log.txt")
			var got atomic.Int64
			code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: lbPath, TempDir: dir,
				Protector: newFake(t, keep{}, limitAudit{&got}), Log: zerolog.Nop(), Version: "test",
				AuditLimit: tc.audit, TimeLimit: tc.job})
			b, _ := os.ReadFile(lbPath)
			lb := string(b)
			if l := time.Duration(got.Load()); l < tc.wantMin || l > tc.wantMax {
				t.Errorf("audit time limit %v, want within [%v, %v]", l, tc.wantMin, tc.wantMax)
			}
			if code != ExitError {
				t.Errorf("exit %d, want %d\n%s", code, ExitError, lb)
			}
			if _, err := os.Stat(filepath.Join(dir, "r.csv")); err == nil {
				t.Error("r.csv written")
			}
			if !strings.Contains(lb, tc.wantLog) || !strings.Contains(lb, "(1 unverified: their protection is not proven)") ||
				!strings.Contains(lb, "1 of 1 primary cells under-protected or unverified: 1 unverified, the audit's time limit ran out") {
				t.Errorf("logbook does not say %q\n%s", tc.wantLog, lb)
			}
			var ar *AuditReport
			for _, s := range rep.Steps {
				if s.Method != nil && s.Method.Audit != nil {
					ar = s.Method.Audit
				}
			}
			if ar == nil || !ar.TimedOut || ar.Unverified != 1 || ar.UnderProtected != 1 {
				t.Errorf("audit report %+v", ar)
			}
			if !slices.ContainsFunc(rep.Hints, func(h string) bool { return strings.Contains(h, "--audit-limit") }) {
				t.Errorf("no hint names --audit-limit: %v", rep.Hints)
			}
		})
	}
}

// threadsRecorder is a method recording the threads it was given,
// declaring its result independent of them when free.
type threadsRecorder struct {
	pluginsdk.Method
	free bool
	got  *atomic.Int64
}

func (r threadsRecorder) Info() pluginsdk.MethodInfo {
	info := r.Method.Info()
	info.Capabilities.ThreadIndependent = r.free
	return info
}

func (r threadsRecorder) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	r.got.Store(int64(req.Limits.Threads))
	return r.Method.Protect(ctx, req)
}

// TestMethodThreads: without Config.Threads, a method (and the audit)
// whose result does not depend on the thread count gets the job's cores
// (Config.Cores, else GOMAXPROCS), any other one thread; Config.Threads
// sets the count of all. The logbook and the run report say what was used
// and why.
func TestMethodThreads(t *testing.T) {
	rda := "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\nval\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n"
	data := writeFiles(t, map[string]string{"r.rda": rda, "r.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n"})
	arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "r.tab") + "\"\r\n<OPENMETADATA> \"" + filepath.Join(data, "r.rda") + "\"\r\n" +
		"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> KEEP(1)\r\n"
	gmp := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name                  string
		threads, cores        int
		free, auditFree       bool
		wantMethod, wantAudit int
		wantLog               string
	}{
		{name: "dependent", cores: 4, auditFree: true, wantMethod: 1, wantAudit: 4,
			wantLog: "KEEP uses 1 thread: its result may depend on the thread count"},
		{name: "independent", cores: 4, free: true, auditFree: true, wantMethod: 4, wantAudit: 4,
			wantLog: "KEEP uses 4 threads: its result does not depend on the thread count"},
		{name: "machine", free: true, auditFree: true, wantMethod: gmp, wantAudit: gmp},
		{name: "old audit", cores: 4, free: true, wantMethod: 4, wantAudit: 1,
			wantLog: "The audit uses 1 thread: its result may depend on the thread count"},
		{name: "set", threads: 3, cores: 2, auditFree: true, wantMethod: 3, wantAudit: 3,
			wantLog: "KEEP uses 3 threads: set by --threads"},
		{name: "set one", threads: 1, cores: 4, free: true, auditFree: true, wantMethod: 1, wantAudit: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			var got, gotAudit atomic.Int64
			lb := filepath.Join(dir, "log.txt")
			_, rep := Run(t.Context(), Config{BatchFile: path, Logbook: lb, TempDir: dir,
				Protector: newFake(t, threadsRecorder{keep{}, tc.free, &got}, threadsRecorder{passAudit{}, tc.auditFree, &gotAudit}),
				Log:       zerolog.Nop(), Version: "test", Threads: tc.threads, Cores: tc.cores})
			if int(got.Load()) != tc.wantMethod || int(gotAudit.Load()) != tc.wantAudit {
				t.Errorf("the method got %d threads and the audit %d, want %d and %d", got.Load(), gotAudit.Load(), tc.wantMethod, tc.wantAudit)
			}
			b, _ := os.ReadFile(lb)
			if !strings.Contains(string(b), tc.wantLog) {
				t.Errorf("the logbook does not say %q:\n%s", tc.wantLog, b)
			}
			var mr *MethodReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					mr = s.Method
				}
			}
			if mr == nil || mr.Threads != tc.wantMethod || mr.Audit == nil || mr.Audit.Threads != tc.wantAudit {
				t.Errorf("run report: method %+v", mr)
			}
		})
	}
}
