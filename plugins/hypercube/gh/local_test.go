package gh

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// localTable is a 3-D hierarchical table whose hidden cells form one
// component larger than the local audits' batches at neighbourhoods of 50
// cells.
func localTable(seed uint64) hierSpec {
	return hierSpec{groups: [][]int{{3, 3, 3}, {3, 3, 3}, {3, 3, 3}}, seed: seed, primary: 0.08, empty: 0.1, singleton: 0.3, plPct: 25}
}

// TestRepairAuditsLocally: with AuditTable the repair proves most primaries (three
// quarters at least) by the audit's certificates and local audits, neighbourhoods growing, and audits the whole table for the others alone, with the same
// pattern as when it audits every primary on the whole table.
func TestRepairAuditsLocally(t *testing.T) {
	for seed := range uint64(2) {
		p := randomHier(localTable(seed))
		o := DefaultOptions()
		o.Threads = 1
		o.AuditScope = AuditTable
		o.localCells = -1
		whole, _ := run(t, p, o)
		o.localCells = 50
		local, _ := run(t, p, o)
		if !slices.Equal(whole.Status, local.Status) {
			t.Errorf("seed %d: the patterns differ: %d secondaries (whole table) vs %d (local audits)", seed, whole.Stats.Secondaries, local.Stats.Secondaries)
		}
		prim := 0
		for _, s := range p.Cells.Status {
			if s.IsPrimary() {
				prim++
			}
		}
		x := local.Stats.Extra
		// With neighbourhoods of 50 cells alone 13 of 49 primaries were
		// proven (seed 0); the larger ones of the later stages prove most.
		// The audit's hypercube certificates prove many before any local
		// LP: both are proofs without the whole table.
		if x["local_proven"]+x["cube_proven"] < 0.75*float64(prim) || x["audit_targets"] >= float64(prim) {
			t.Errorf("seed %d: %v proven locally, %v by certificates, %v audited on the whole table, of %d primaries", seed, x["local_proven"], x["cube_proven"], x["audit_targets"], prim)
		}
		if n := singletonAudit(t, p, local.Status); n != 0 || local.Stats.UnderProtectedAfter != 0 {
			t.Errorf("seed %d: %d under-protected (method: %d)", seed, n, local.Stats.UnderProtectedAfter)
		}
		t.Logf("seed %d: %d secondaries, %v of %d primaries proven locally, under-protected before repair %d", seed, local.Stats.Secondaries, x["local_proven"], prim, local.Stats.UnderProtectedBefore)
	}
}

// TestLocalScope: with AuditLocal the repair judges primaries on
// sub-problems only: on tables whose hidden cells form one component it
// never audits a primary on the whole table (with the audit's own
// verdicts, AuditTable, some were), the host's audit finds the pattern
// clean, and every primary the local audits prove is protected on the
// whole table.
func TestLocalScope(t *testing.T) {
	for seed := range uint64(3) {
		p := randomHier(localTable(seed))
		o := DefaultOptions()
		o.Threads = 1
		o.AuditScope = AuditLocal
		var msgs []string
		o.Progress = func(pr pluginsdk.Progress) { msgs = append(msgs, pr.Message) }
		res, _ := run(t, p, o)
		o.Progress = nil
		// A long round of local audits says how far it is.
		if !slices.ContainsFunc(msgs, func(m string) bool {
			return strings.HasPrefix(m, "local audits: ") && strings.Contains(m, " primaries proven")
		}) {
			t.Errorf("seed %d: no progress from the local audits (messages %q)", seed, msgs)
		}
		x := res.Stats.Extra
		if x["audit_targets"] != 0 {
			t.Errorf("seed %d: %v primaries audited on the whole table, want 0", seed, x["audit_targets"])
		}
		// The host's audit: verdicts, colluding singletons.
		aopts := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude}
		hr, err := audit.Suppression(context.Background(), p, res.Status, aopts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(hr.UnderProtected) + len(hr.Unverified); n != 0 || res.Stats.UnderProtectedAfter != 0 {
			t.Errorf("seed %d: %d under-protected (method: %d)", seed, n, res.Stats.UnderProtectedAfter)
		}
		// Soundness on the hypercubes of a small ratio without the
		// repair, which leave some primaries under-protected.
		o.Repair, o.Ratio = false, 0.02
		ghm, _ := run(t, p, o)
		e, err := newEngine(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		var targets []int
		for i, s := range ghm.Status {
			if s.IsPrimary() {
				targets = append(targets, i)
			}
		}
		lr, err := e.localAudit(context.Background(), ghm.Status, targets, aopts)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := audit.Suppression(context.Background(), p, ghm.Status, aopts)
		if err != nil {
			t.Fatal(err)
		}
		notProven := map[int]bool{}
		for _, f := range lr.UnderProtected {
			notProven[f.Cell] = true
		}
		for _, c := range lr.Unverified {
			notProven[c] = true
		}
		for _, f := range wr.UnderProtected {
			if !notProven[f.Cell] {
				t.Errorf("seed %d: primary %d proven locally, under-protected on the whole table", seed, f.Cell)
			}
		}
		if lr.Counts.Protected+len(notProven) != len(targets) {
			t.Errorf("seed %d: %d protected + %d not, of %d targets", seed, lr.Counts.Protected, len(notProven), len(targets))
		}
		t.Logf("seed %d: %d secondaries; ratio 0.02 without repair: %d of %d proven locally, %d under-protected on the whole table",
			seed, res.Stats.Secondaries, lr.Counts.Local, len(targets), len(wr.UnderProtected))
	}
}

// TestLocalCertificates: with neighbourhoods of 2 cells the local audits
// fail many primaries three times; those get certificates (cert.go), not an
// audit of the whole table (which the repair capped at 10 s of wall-clock
// time, so what it proved depended on the machine's load), and the host's
// audit finds the pattern clean. The pattern is the same for 1 and 2
// audit workers.
func TestLocalCertificates(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of certificate LPs skipped in -short mode")
	}
	for seed := range uint64(2) {
		p := randomHier(localTable(seed))
		o := DefaultOptions()
		o.AuditScope = AuditLocal
		o.localCells = 2
		var first *pluginsdk.Result
		for _, w := range []int{1, 2} {
			o.Threads = w
			res, _ := run(t, p, o)
			if first == nil {
				first = res
				x := res.Stats.Extra
				if x["audit_targets"] != 0 || x["cert_proven"] == 0 {
					t.Errorf("seed %d: %v primaries audited on the whole table (want 0), %v proven by certificates (want some)", seed, x["audit_targets"], x["cert_proven"])
				}
				if n := singletonAudit(t, p, res.Status); n != 0 || res.Stats.UnderProtectedAfter != 0 || res.Outcome != pluginsdk.OutcomeFeasible {
					t.Errorf("seed %d: %d under-protected (method: %d, outcome %v)", seed, n, res.Stats.UnderProtectedAfter, res.Outcome)
				}
				t.Logf("seed %d: %d secondaries, %v primaries proven by certificates, which hid %v cells", seed, res.Stats.Secondaries, x["cert_proven"], x["cert_cells"])
				continue
			}
			if !slices.Equal(first.Status, res.Status) {
				t.Errorf("seed %d: %d audit workers give another pattern than one (%d vs %d secondaries)", seed, w, res.Stats.Secondaries, first.Stats.Secondaries)
			}
		}
	}
}

// TestLocalRoundCut: a round of local audits cut by its time keeps what it
// proved (before, the cut cancelled the audits and the whole round was
// lost: at 10⁶ cells GH's first round never ended and nothing of it was
// kept). On the hypercube pattern of the generated t4.5³ table, with a
// round of some 50 ms, the report comes back without an error, names
// the cut, proves some primaries (the certificates come first), and
// accounts for every target; what it claims protected the whole table's
// audit finds protected.
func TestLocalRoundCut(t *testing.T) {
	if testing.Short() {
		t.Skip("15 625-cell table skipped in -short mode")
	}
	job := generatedJob(t, "t4.5xt4.5xt4.5", 1)
	params, _ := pluginsdk.ValidateParams(Method{}, job.Params)
	o := OptionsFrom(params, job.Limits)
	o.Repair, o.Threads, o.TimeLimit = false, 2, 0
	p := job.Problem
	ghm, err := Protect(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	o.TimeLimit = 10 * time.Second
	e, err := newEngine(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	var targets []int
	for i, s := range ghm.Status {
		if s.IsPrimary() {
			targets = append(targets, i)
		}
	}
	aopts := audit.Options{Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude}
	// The round's share: the time left less the repair's reserve.
	e.deadline = time.Now().Add(time.Duration(repairReserve*float64(o.TimeLimit)) + 50*time.Millisecond)
	rep, err := e.localAudit(context.Background(), ghm.Status, targets, aopts)
	if err != nil {
		t.Fatalf("a round cut by its time: %v", err)
	}
	if e.roundsCut != 1 || rep.Counts.Protected == 0 {
		t.Errorf("%d rounds cut (want 1), %d primaries proven (want some)", e.roundsCut, rep.Counts.Protected)
	}
	// The cut is logged.
	if !slices.ContainsFunc(e.result().Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "hypercube.audit_cut" }) {
		t.Error("no hypercube.audit_cut warning for the cut round")
	}
	if n := rep.Counts.Protected + len(rep.UnderProtected) + len(rep.Unverified); n != len(targets) {
		t.Errorf("%d protected + %d not + %d unverified, of %d targets", rep.Counts.Protected, len(rep.UnderProtected), len(rep.Unverified), len(targets))
	}
	whole, err := audit.Suppression(context.Background(), p, ghm.Status, audit.Options{Threads: 2, Mode: audit.ModeVerdicts,
		Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range whole.UnderProtected {
		if rep.Verdict[f.Cell] == audit.VerdictProtected {
			t.Errorf("primary %d proven by the cut round, under-protected on the whole table", f.Cell)
		}
	}
	t.Logf("cut round: %d of %d primaries proven, %d not proven", rep.Counts.Protected, len(targets), len(rep.UnderProtected)+len(rep.Unverified))
}
