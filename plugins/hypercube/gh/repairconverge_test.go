package gh

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// errCaptured ends a batch job once its GH step's job is captured.
var errCaptured = errors.New("captured")

// capture is a batch.Protector that serves GH by recording the job the
// host would send the plugin (problem, parameters, limits) and failing it.
type capture struct{ job *pluginclient.Job }

func (c *capture) Method(code string) (batch.MethodRef, bool) {
	if code != "GH" {
		return batch.MethodRef{}, false
	}
	return batch.MethodRef{Info: Method{}.Info(), Plugin: "hypercube", Version: "test"}, true
}

func (c *capture) Protect(_ context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	c.job = &job
	return nil, errCaptured
}

// batchJob runs the batch job dir/arb up to its GH step and returns that
// step's job as the host builds it.
func batchJob(tb testing.TB, dir, arb string) *pluginclient.Job {
	tb.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tmp := tb.TempDir()
	c := &capture{}
	// The job names its files relative to the working directory, as
	// rtauargus runs τ-Argus from the job's folder.
	tb.Chdir(dir)
	_, rep := batch.Run(context.Background(), batch.Config{BatchFile: arb,
		Logbook: filepath.Join(tmp, "logbook.txt"), TempDir: tmp, Protector: c, Log: zerolog.Nop()})
	if c.job == nil {
		tb.Fatalf("%s: the job reached no GH step: %v", dir, rep.Errors)
	}
	return c.job
}

// protectJob runs GH on a captured job with its parameters, as the plugin
// does, and returns the result and the primaries the host's audit (with
// the single-respondent primaries colluding) finds under-protected.
func protectJob(t *testing.T, job *pluginclient.Job) (*pluginsdk.Result, int) {
	t.Helper()
	params, diags := pluginsdk.ValidateParams(Method{}, job.Params)
	if len(diags) > 0 {
		t.Fatalf("parameters: %v", diags)
	}
	o := OptionsFrom(params, job.Limits)
	if !o.Singleton {
		t.Fatal("the job does not ask for singleton protection")
	}
	res, err := Protect(context.Background(), job.Problem, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := pluginsdk.CheckResult(job.Problem, pluginsdk.OutputSuppression, res); err != nil {
		t.Fatal(err)
	}
	return res, singletonAudit(t, job.Problem, res.Status)
}

// TestRepairConverges: GH's repair ends with every primary protected on
// 3-D hierarchical tables where a total is dominated by one
// single-respondent cell below it. The colluding-singletons audit used to
// fix that cell in the total's attacker problems too, which no pattern can
// satisfy (the total then never moves below the insider's own value), so
// the repair hid every cell it could reach over dozens of rounds and gave
// up: rtauargus's datatest1 with GH(1,100) ("2 of 110 primary cells
// under-protected after 71 repair rounds", 526 secondaries), and tables
// of argus generate with microdata values and a dominance rule.
func TestRepairConverges(t *testing.T) {
	gen := func(shape string, seed uint64, prot string) func(t *testing.T) *pluginclient.Job {
		return func(t *testing.T) *pluginclient.Job {
			s := tablegen.Spec{Shape: shape, Seed: seed, Values: tablegen.ValuesMicro, BoundFactor: 1.5}
			var err error
			if s.Primary, err = tablegen.ParseRule("nk:1,85"); err != nil {
				t.Fatal(err)
			}
			if s.Protection, err = tablegen.ParseProtection(prot); err != nil {
				t.Fatal(err)
			}
			in, err := tablegen.Generate(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := in.WriteJob(tablegen.Job{Dir: dir, Name: "g", Suppress: "GH(100,0,1)"}); err != nil {
				t.Fatal(err)
			}
			return batchJob(t, dir, "g.arb")
		}
	}
	cases := []struct {
		name string
		job  func(t *testing.T) *pluginclient.Job
		// most is the largest number of secondaries accepted: well below
		// what hiding every reachable cell took.
		most int64
	}{
		{"rtauargus datatest1 GH(1,100)", func(t *testing.T) *pluginclient.Job { return batchJob(t, "testdata/dt1", "tab1.arb") }, 400},
		{"generated t2.4xt3.2x4 seed 3 nk:1,85 rule", gen("t2.4xt3.2x4", 3, "rule"), 420},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, under := protectJob(t, tc.job(t))
			if res.Outcome != pluginsdk.OutcomeFeasible || res.Stats.UnderProtectedAfter != 0 || under != 0 {
				t.Fatalf("outcome %v, %d under-protected after the repair, host audit %d under-protected; diagnostics %v",
					res.Outcome, res.Stats.UnderProtectedAfter, under, res.Diagnostics)
			}
			if res.Stats.Secondaries > tc.most {
				t.Errorf("%d secondaries, want at most %d", res.Stats.Secondaries, tc.most)
			}
			t.Logf("%d secondaries, cost %.0f, %v repair rounds", res.Stats.Secondaries, res.Stats.SuppressedCost, res.Stats.Extra["repair_rounds"])
		})
	}
}

// TestRepairUnprotectable: a primary that no pattern protects (a colluding
// single respondent of its row and the row's frozen cells give it away
// whatever is hidden) is recognised as such after a few audits: the
// repair stops hiding cells for it and says so, naming it, instead of
// hiding every cell it can reach round after round.
func TestRepairUnprotectable(t *testing.T) {
	b := newBuilder(flat("r", 5), flat("c", 5))
	for i := 1; i <= 5; i++ {
		for j := 1; j <= 5; j++ {
			b.set(float64(10*i+j), strconv.Itoa(i), strconv.Itoa(j))
		}
	}
	// Row 1: (1,1) one respondent, (1,2) primary, the rest of the row and
	// its total protected: (1,2) = (1,T) − (1,3..5) − (1,1).
	b.primary(2, "1", "1").single("1", "1").primary(2, "1", "2").primary(3, "3", "4")
	for _, c := range []string{"T", "3", "4", "5"} {
		b.with(cellstatus.Protected, "1", c)
	}
	p := b.build()
	o := DefaultOptions()
	o.Ratio = 0.2
	res, _ := run(t, p, o)
	t.Logf("%d secondaries, %v repair rounds", res.Stats.Secondaries, res.Stats.Extra["repair_rounds"])
	target := b.id("1", "2")
	i := slices.IndexFunc(res.Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "hypercube.unprotectable" })
	if i < 0 || !slices.Equal(res.Diagnostics[i].Cells, []int{target}) {
		t.Fatalf("no hypercube.unprotectable diagnostic naming cell %d: %v", target, res.Diagnostics)
	}
	if res.Outcome != pluginsdk.OutcomePartial || res.Stats.UnderProtectedAfter != 1 || res.Stats.Extra["unprotectable"] != 1 {
		t.Errorf("outcome %v, %d under-protected after, %v unprotectable; want partial, 1, 1",
			res.Outcome, res.Stats.UnderProtectedAfter, res.Stats.Extra["unprotectable"])
	}
	if n := singletonAudit(t, p, res.Status); n != 1 {
		t.Errorf("host audit: %d under-protected, want 1 (the unprotectable cell)", n)
	}
}

// TestRepairHidesZeros: a primary that only a zero cell can protect (its
// row total is protected, its one neighbour in the row has value 0, which
// GHMiter never hides) is protected by the repair's last resort, which
// hides that zero cell, instead of being given up after the repair hid
// everything else it could reach.
func TestRepairHidesZeros(t *testing.T) {
	b := newBuilder(flat("r", 3), flat("c", 3))
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			b.set(float64(10*i+j), strconv.Itoa(i), strconv.Itoa(j))
		}
	}
	b.set(0, "1", "2").set(0, "1", "3")
	b.primary(2, "1", "1").with(cellstatus.Protected, "1", "T")
	p := b.build()
	// Only down: (1,1) = (1,T) − (1,2) − (1,3) cannot exceed (1,T).
	target := b.id("1", "1")
	p.Cells.UpperPL[target] = 0
	res, _ := run(t, p, DefaultOptions())
	t.Logf("%d secondaries, %v repair rounds, %v widened", res.Stats.Secondaries, res.Stats.Extra["repair_rounds"], res.Stats.Extra["repair_widened"])
	if res.Outcome != pluginsdk.OutcomeFeasible || res.Stats.UnderProtectedAfter != 0 {
		t.Fatalf("outcome %v, %d under-protected after the repair; diagnostics %v", res.Outcome, res.Stats.UnderProtectedAfter, res.Diagnostics)
	}
	if n := underProtected(t, p, res.Status); n != 0 {
		t.Errorf("host audit: %d under-protected", n)
	}
	if !res.Status[b.id("1", "2")].IsSuppressed() && !res.Status[b.id("1", "3")].IsSuppressed() {
		t.Error("no zero cell of row 1 hidden")
	}
}
