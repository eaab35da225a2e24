package pluginsdk_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// testProblem builds an r×c table with totals, every column filled.
func testProblem(r, c, topN int) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &pluginsdk.Problem{TopN: topN, HoldingTopN: 1, Decimals: 2, Response: "x"}
	dim := func(name string, n int) pluginsdk.Dimension {
		d := pluginsdk.Dimension{Name: name, Codes: []string{"T"}, Parent: []int32{-1}, Depth: []int32{0}}
		for i := 1; i <= n; i++ {
			d.Codes = append(d.Codes, string(rune('a'+i%26)))
			d.Parent = append(d.Parent, 0)
			d.Depth = append(d.Depth, 1)
		}
		return d
	}
	p.Tables = []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{dim("r", r), dim("c", c)}}}
	n := (r + 1) * (c + 1)
	cl := &p.Cells
	for i := range n {
		cl.Value = append(cl.Value, rng.Float64()*1000)
		cl.Status = append(cl.Status, cellstatus.Status(1+rng.IntN(14)))
		cl.Cost = append(cl.Cost, rng.Float64())
		cl.Shadow = append(cl.Shadow, rng.Float64())
		cl.Published = append(cl.Published, rng.Float64()*1000)
		cl.CellKey = append(cl.CellKey, rng.Float64())
		cl.MinContribution = append(cl.MinContribution, rng.Float64())
		cl.Weight = append(cl.Weight, rng.Float64()*10)
		cl.Freq = append(cl.Freq, rng.Int64N(100))
		cl.HoldingFreq = append(cl.HoldingFreq, rng.Int64N(10))
		cl.LowerPL = append(cl.LowerPL, 1)
		cl.UpperPL = append(cl.UpperPL, 2)
		cl.SlidingPL = append(cl.SlidingPL, 0)
		cl.LowerBound = append(cl.LowerBound, 0)
		cl.UpperBound = append(cl.UpperBound, 1e6)
		for range topN {
			cl.Top = append(cl.Top, rng.Float64())
			cl.TopWeight = append(cl.TopWeight, rng.Float64()*10)
		}
		cl.HoldingTop = append(cl.HoldingTop, rng.Float64())
		cl.Coords = append(cl.Coords, int32(i/(c+1)), int32(i%(c+1)))
	}
	for i := range r + 1 {
		cells := []int{i * (c + 1)}
		coef := []float64{-1}
		for j := 1; j <= c; j++ {
			cells = append(cells, i*(c+1)+j)
			coef = append(coef, 1)
		}
		p.Relations.Add(cells, coef, float64(i%2))
	}
	return p
}

func roundTrip(t *testing.T, p *pluginsdk.Problem, chunk int) (*pluginsdk.Problem, []*sdcpb.ProtectRequest) {
	t.Helper()
	var msgs []*sdcpb.ProtectRequest
	err := pluginclient.EncodeProblem(pluginclient.Job{Method: "X", Params: map[string]string{"a": "1"}, Problem: p}, chunk, func(m *sdcpb.ProtectRequest) error {
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var asm pluginsdk.ProblemDecoder
	for i, m := range msgs {
		done, err := asm.Add(m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if done != (i == len(msgs)-1) {
			t.Fatalf("message %d: done = %v", i, done)
		}
	}
	return asm.Problem(), msgs
}

func TestProblemRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name       string
		r, c, topN int
		chunk      int
	}{
		{"tiny chunks", 3, 4, 2, 50},
		{"one block", 3, 4, 2, 0},
		{"no top", 10, 7, 0, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProblem(tc.r, tc.c, tc.topN)
			got, msgs := roundTrip(t, p, tc.chunk)
			if !reflect.DeepEqual(got, p) {
				t.Errorf("round trip changed the problem:\n got %+v\nwant %+v", got.Cells, p.Cells)
			}
			if tc.chunk == 50 && len(msgs) < 10 {
				t.Errorf("%d messages with 50-byte chunks; want many blocks", len(msgs))
			}
		})
	}
}

// TestLargeProblemChunks sends a table of more than 5 MiB and checks that no
// message exceeds the chunk target by more than one cell or relation.
func TestLargeProblemChunks(t *testing.T) {
	p := testProblem(300, 250, 3)
	_, msgs := roundTrip(t, p, wire.DefaultChunkBytes)
	total, largest := 0, 0
	for _, m := range msgs {
		s := proto.Size(m)
		total += s
		largest = max(largest, s)
	}
	if total < 5<<20 {
		t.Fatalf("table encodes to %d bytes; the test needs more than 5 MiB", total)
	}
	if largest > wire.DefaultChunkBytes+4096 {
		t.Errorf("largest message %d bytes; want at most about %d", largest, wire.DefaultChunkBytes)
	}
	if largest > 4<<20 {
		t.Errorf("largest message %d bytes exceeds gRPC's 4 MiB default", largest)
	}
}

func TestStreamGrammar(t *testing.T) {
	p := testProblem(2, 2, 1)
	var msgs []*sdcpb.ProtectRequest
	_ = pluginclient.EncodeProblem(pluginclient.Job{Method: "X", Problem: p}, 40, func(m *sdcpb.ProtectRequest) error { msgs = append(msgs, m); return nil })
	end := len(msgs) - 1
	hdr := msgs[0]
	cells := msgs[1]
	rel := msgs[end-1]
	for _, tc := range []struct {
		name string
		seq  []*sdcpb.ProtectRequest
	}{
		{"cells before header", []*sdcpb.ProtectRequest{cells}},
		{"two headers", []*sdcpb.ProtectRequest{hdr, hdr}},
		{"end before header", []*sdcpb.ProtectRequest{msgs[end]}},
		{"duplicate cell block", []*sdcpb.ProtectRequest{hdr, cells, cells}},
		{"missing cells", []*sdcpb.ProtectRequest{hdr, msgs[end]}},
		{"relations before cells done", []*sdcpb.ProtectRequest{hdr, cells, rel}},
		{"message after end", append(append([]*sdcpb.ProtectRequest{}, msgs...), hdr)},
		{"empty message", []*sdcpb.ProtectRequest{hdr, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asm pluginsdk.ProblemDecoder
			var err error
			for _, m := range tc.seq {
				if _, err = asm.Add(m); err != nil {
					break
				}
			}
			if !errors.Is(err, wire.ErrStream) {
				t.Errorf("err = %v, want a stream violation", err)
			}
		})
	}
}

func TestResultRoundTrip(t *testing.T) {
	n := 1000
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeOptimal, Status: make([]cellstatus.Status, n), Values: make([]float64, n),
		Diagnostics: []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityWarning, Code: "x.y", Summary: "s", Cells: []int{1, 2}}},
		Stats:       pluginsdk.Stats{Objective: 3, Secondaries: 4, Extra: map[string]float64{"k": 1}}, Published: &pluginsdk.Published{Alpha: 0.3, Beta: 2}}
	for i := range n {
		res.Status[i] = cellstatus.Status(1 + i%14)
		res.Values[i] = float64(i) / 3
	}
	asm := pluginclient.NewResultDecoder(n, nil)
	err := pluginsdk.SendResult(res, n, 100, false, func(m *sdcpb.ProtectResponse) error { return asm.Add(m) })
	if err != nil {
		t.Fatal(err)
	}
	if !asm.Done() || !reflect.DeepEqual(asm.Result(), res) {
		t.Errorf("result round trip: got %+v, want %+v", *asm.Result(), *res)
	}
	// A completion that leaves cells without results is a violation.
	short := pluginclient.NewResultDecoder(n+1, nil)
	err = pluginsdk.SendResult(res, n, 100, false, func(m *sdcpb.ProtectResponse) error { return short.Add(m) })
	if !errors.Is(err, wire.ErrStream) {
		t.Errorf("short result: err = %v, want a stream violation", err)
	}
}

// FuzzAssembler feeds arbitrary message sequences to the problem assembler:
// it must reject or accept, never panic, and what it accepts must validate.
func FuzzAssembler(f *testing.F) {
	p := testProblem(2, 3, 1)
	var seed []byte
	_ = pluginclient.EncodeProblem(pluginclient.Job{Method: "X", Problem: p}, 60, func(m *sdcpb.ProtectRequest) error {
		b, _ := proto.Marshal(m)
		seed = append(seed, byte(len(b)>>8), byte(len(b)))
		seed = append(seed, b...)
		return nil
	})
	f.Add(seed)
	f.Add([]byte{0, 2, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		var asm pluginsdk.ProblemDecoder
		for len(data) >= 2 {
			n := int(data[0])<<8 | int(data[1])
			data = data[2:]
			if n > len(data) {
				return
			}
			var m sdcpb.ProtectRequest
			if proto.Unmarshal(data[:n], &m) != nil {
				return
			}
			data = data[n:]
			done, err := asm.Add(&m)
			if err != nil {
				return
			}
			if done {
				if err := asm.Problem().Validate(); err != nil {
					t.Fatalf("accepted an invalid problem: %v", err)
				}
				return
			}
		}
	})
}

// TestVerdictRoundTrip: an audit's verdicts and realised intervals arrive
// as sent, over many blocks; verdicts in some blocks only, a reason array
// of another length and out-of-range values are stream violations.
func TestVerdictRoundTrip(t *testing.T) {
	n := 500
	kinds := []verdict.Verdict{{}, {Kind: verdict.Protected}, {Kind: verdict.UnderProtected, Reason: verdict.Exact},
		{Kind: verdict.UnderProtected, Reason: verdict.Partial}, {Kind: verdict.Unverified, Reason: verdict.Unsolved},
		{Kind: verdict.UnderProtected, Reason: verdict.TooClose}, {Kind: verdict.UnderProtected, Reason: verdict.Uncovered}}
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeOptimal, Lower: make([]float64, n), Upper: make([]float64, n), Verdicts: make([]verdict.Verdict, n)}
	for i := range n {
		res.Lower[i], res.Upper[i] = float64(i), float64(2*i)
		res.Verdicts[i] = kinds[i%len(kinds)]
	}
	var msgs []*sdcpb.ProtectResponse
	if err := pluginsdk.SendResult(res, n, 100, false, func(m *sdcpb.ProtectResponse) error { msgs = append(msgs, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(msgs) < 10 {
		t.Fatalf("%d messages: the verdicts were not split into blocks", len(msgs))
	}
	asm := pluginclient.NewResultDecoder(n, nil)
	for _, m := range msgs {
		if err := asm.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if !asm.Done() || !reflect.DeepEqual(asm.Result(), res) {
		t.Errorf("verdict round trip: got %+v, want %+v", asm.Result().Verdicts[:8], res.Verdicts[:8])
	}
	for _, tc := range []struct {
		name  string
		spoil func(b *sdcpb.ResultBlock)
	}{
		{"verdicts in the first block only", func(b *sdcpb.ResultBlock) {
			if b.FirstCell > 0 {
				b.Verdict, b.VerdictReason = nil, nil
			}
		}},
		{"reasons missing", func(b *sdcpb.ResultBlock) { b.VerdictReason = nil }},
		{"verdict out of range", func(b *sdcpb.ResultBlock) { b.Verdict[0] = 9 }},
		{"reason out of range", func(b *sdcpb.ResultBlock) { b.VerdictReason[0] = -1 }},
	} {
		asm := pluginclient.NewResultDecoder(n, nil)
		var err error
		for _, m := range msgs {
			m = proto.Clone(m).(*sdcpb.ProtectResponse)
			if b := m.GetResult(); b != nil {
				tc.spoil(b)
			}
			if err = asm.Add(m); err != nil {
				break
			}
		}
		if !errors.Is(err, wire.ErrStream) {
			t.Errorf("%s: err = %v, want a stream violation", tc.name, err)
		}
	}
}

// TestVerdictEnums: the wire enums number the verdicts as package verdict
// does, which the conversion relies on.
func TestVerdictEnums(t *testing.T) {
	kinds := map[verdict.Kind]string{verdict.NotJudged: "UNSPECIFIED", verdict.Protected: "PROTECTED",
		verdict.UnderProtected: "UNDER_PROTECTED", verdict.Unverified: "UNVERIFIED"}
	for k := verdict.Kind(0); k.Valid(); k++ {
		if got, want := sdcpb.ProtectionVerdict(k).String(), "PROTECTION_VERDICT_"+kinds[k]; got != want {
			t.Errorf("kind %v is %s on the wire, want %s", k, got, want)
		}
	}
	reasons := map[verdict.Reason]string{verdict.ReasonNone: "UNSPECIFIED", verdict.Exact: "EXACT", verdict.Partial: "PARTIAL",
		verdict.Unsolved: "UNSOLVED", verdict.TooClose: "TOO_CLOSE", verdict.Uncovered: "UNCOVERED", verdict.Midpoint: "MIDPOINT"}
	for r := verdict.Reason(0); r.Valid(); r++ {
		if got, want := sdcpb.VerdictReason(r).String(), "VERDICT_REASON_"+reasons[r]; got != want {
			t.Errorf("reason %v is %s on the wire, want %s", r, got, want)
		}
	}
	if len(sdcpb.ProtectionVerdict_name) != len(kinds) || len(sdcpb.VerdictReason_name) != len(reasons) {
		t.Errorf("the wire has %d verdicts and %d reasons, package verdict %d and %d",
			len(sdcpb.ProtectionVerdict_name), len(sdcpb.VerdictReason_name), len(kinds), len(reasons))
	}
}
