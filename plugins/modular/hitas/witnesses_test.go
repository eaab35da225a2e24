package hitas

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/audit"
)

// TestWitnesses: MOD returns the witnesses of its sub-tables' solves that
// are moves of the whole table under its final pattern (contract 1.6): the
// host's audit accepts every one it sends, proves primaries with them and
// solves fewer LPs than without them; the sub-tables' moves that change
// cells of other sub-tables' relations are counted, not sent.
func TestWitnesses(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		p := cubeTable(seed)
		res, err := Protect(t.Context(), p, modOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		x := res.Stats.Extra
		if len(res.Witnesses) == 0 || x["witnesses"] != float64(len(res.Witnesses)) {
			t.Fatalf("seed %d: %d witnesses, figures %v", seed, len(res.Witnesses), x)
		}
		o := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries}
		without, err := audit.Suppression(t.Context(), p, res.Status, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Witnesses = res.Witnesses
		with, err := audit.Suppression(t.Context(), p, res.Status, o)
		if err != nil {
			t.Fatal(err)
		}
		c := with.Counts
		t.Logf("seed %d: %d witnesses sent (%v cells), %v not moves of the whole table, %v redundant; audit: %d proven by them, %d rejected, %d LPs (without: %d)",
			seed, len(res.Witnesses), x["witness_cells"], x["witness_not_whole"], x["witness_redundant"], c.Witness, c.WitnessRejected, c.LPs, without.Counts.LPs)
		if c.WitnessRejected > 0 || c.Witness == 0 {
			t.Errorf("seed %d: audit: %d witnesses rejected, %d primaries proven by them", seed, c.WitnessRejected, c.Witness)
		}
		if c.LPs >= without.Counts.LPs {
			t.Errorf("seed %d: audit LPs: %d with the witnesses, %d without", seed, c.LPs, without.Counts.LPs)
		}
		if len(with.UnderProtected)+len(with.Unverified) > 0 {
			t.Errorf("seed %d: %d under-protected, %d unverified", seed, len(with.UnderProtected), len(with.Unverified))
		}
	}
}

// TestAuditTablesWitnesses: the tables MOD's final audits verified are
// sent as witnesses, so the host's audit proves every primary without an
// LP and without local proofs: every primary MOD's own audit proved has a
// checked feasible table beyond each of its levels. Before, only the
// sub-tables' moves were sent, and those that change a margin another
// sub-table holds were dropped: the host's audit solved LPs for the rest.
func TestAuditTablesWitnesses(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		p := cubeTable(seed)
		res, err := Protect(t.Context(), p, modOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		o := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, LocalCells: -1, Witnesses: res.Witnesses}
		rep, err := audit.Suppression(t.Context(), p, res.Status, o)
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Counts
		t.Logf("seed %d: %d witnesses (%v audit tables kept), %d primaries: %d proven by them, %d by hypercubes, %d LPs", seed, len(res.Witnesses),
			res.Stats.Extra["witness_audit_tables"], c.Primaries, c.Witness, c.Cube, c.LPs)
		if c.LPs > 0 || c.WitnessRejected > 0 || len(rep.UnderProtected)+len(rep.Unverified) > 0 {
			t.Errorf("seed %d: the host's audit: %d LPs, %d witnesses rejected, %d under-protected, %d unverified",
				seed, c.LPs, c.WitnessRejected, len(rep.UnderProtected), len(rep.Unverified))
		}
	}
}
