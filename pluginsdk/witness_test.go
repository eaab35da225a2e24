package pluginsdk_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// testWitnesses returns k witnesses over n cells, of growing size, and
// one too large for the wire.
func testWitnesses(n, k int) (ok []pluginsdk.Witness, huge pluginsdk.Witness) {
	for i := range k {
		w := pluginsdk.Witness{Cell: i % n}
		for q := range 1 + i%7 {
			w.Cells = append(w.Cells, (i+q)%n)
			w.Deltas = append(w.Deltas, float64(q+1)/3)
		}
		ok = append(ok, w)
	}
	huge = pluginsdk.Witness{Cell: 0}
	for q := range wire.MaxWitnessEntries + 1 {
		huge.Cells, huge.Deltas = append(huge.Cells, q%n), append(huge.Deltas, 1)
	}
	return ok, huge
}

// TestWitnessRoundTrip: witnesses cross the wire both ways in blocks of
// the chunk size, in order and intact (a witness too large for a message
// is left out); a plugin sends none to a host that does not accept them
// (a host before contract 1.6), and a host that sends none gives the
// plugin none.
func TestWitnessRoundTrip(t *testing.T) {
	p := testProblem(5, 7, 2)
	n := p.NumCells()
	ws, huge := testWitnesses(n, 200)
	// Host → plugin.
	var dec pluginsdk.ProblemDecoder
	blocks := 0
	job := pluginclient.Job{Method: "AUDIT", Problem: p, Witnesses: append(append([]pluginsdk.Witness(nil), ws[:100]...), append([]pluginsdk.Witness{huge}, ws[100:]...)...)}
	if err := pluginclient.EncodeProblem(job, 512, func(m *sdcpb.ProtectRequest) error {
		if m.GetWitnesses() != nil {
			blocks++
		}
		_, err := dec.Add(m)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dec.Witnesses(), ws) || blocks < 2 {
		t.Errorf("host → plugin: %d witnesses in %d blocks, want %d intact in several", len(dec.Witnesses()), blocks, len(ws))
	}
	var none pluginsdk.ProblemDecoder
	if err := pluginclient.EncodeProblem(pluginclient.Job{Method: "AUDIT", Problem: p}, 512, func(m *sdcpb.ProtectRequest) error {
		_, err := none.Add(m)
		return err
	}); err != nil || none.Witnesses() != nil {
		t.Errorf("no witnesses sent: got %d (%v)", len(none.Witnesses()), err)
	}
	// Plugin → host.
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Status: make([]cellstatus.Status, n), Witnesses: ws}
	for i := range n {
		res.Status[i] = cellstatus.Safe
	}
	for _, accepts := range []bool{true, false} {
		rd := pluginclient.NewResultDecoder(n, nil)
		if err := pluginsdk.SendResult(res, n, 512, accepts, rd.Add); err != nil {
			t.Fatal(err)
		}
		got := rd.Result().Witnesses
		if accepts && !reflect.DeepEqual(got, ws) || !accepts && got != nil {
			t.Errorf("plugin → host (host accepts witnesses: %v): %d witnesses", accepts, len(got))
		}
	}
}

// TestWitnessStreamOrder: witness blocks out of the grammar's order are
// stream violations: before the results, not contiguous, or followed by
// a relation block.
func TestWitnessStreamOrder(t *testing.T) {
	blk := &sdcpb.WitnessBlock{Target: []int64{0}, EntryCounts: []int32{1}, Cells: []int64{0}, Deltas: []float64{1}}
	rd := pluginclient.NewResultDecoder(3, nil)
	if err := rd.Add(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Witnesses{Witnesses: blk}}); !errors.Is(err, wire.ErrStream) {
		t.Errorf("witnesses before the results: %v, want a stream violation", err)
	}
	var dec pluginsdk.ProblemDecoder
	p := testProblem(2, 2, 0)
	var msgs []*sdcpb.ProtectRequest
	if err := pluginclient.EncodeProblem(pluginclient.Job{Method: "AUDIT", Problem: p}, 0, func(m *sdcpb.ProtectRequest) error {
		msgs = append(msgs, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var rel *sdcpb.ProtectRequest
	for _, m := range msgs[:len(msgs)-1] {
		if m.GetRelations() != nil {
			rel = m
		}
		if _, err := dec.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dec.Add(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Witnesses{Witnesses: blk}}); err != nil {
		t.Fatal(err)
	}
	gap := &sdcpb.WitnessBlock{FirstWitness: 5, Target: []int64{0}, EntryCounts: []int32{1}, Cells: []int64{0}, Deltas: []float64{1}}
	if _, err := dec.Add(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Witnesses{Witnesses: gap}}); !errors.Is(err, wire.ErrStream) {
		t.Errorf("witness block with a gap: %v, want a stream violation", err)
	}
	if _, err := dec.Add(rel); !errors.Is(err, wire.ErrStream) {
		t.Errorf("relations after witnesses: %v, want a stream violation", err)
	}
}
