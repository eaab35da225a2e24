package wire

import (
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
)

// TestWitnessDecoderRejects: blocks whose form is broken are stream
// violations, whatever they claim.
func TestWitnessDecoderRejects(t *testing.T) {
	ok := func() *sdcpb.WitnessBlock {
		return &sdcpb.WitnessBlock{Target: []int64{1, 2}, EntryCounts: []int32{2, 1}, Cells: []int64{1, 3, 2}, Deltas: []float64{1, -1, 2}}
	}
	for _, tc := range []struct {
		name string
		edit func(b *sdcpb.WitnessBlock)
	}{
		{"gap", func(b *sdcpb.WitnessBlock) { b.FirstWitness = 1 }},
		{"empty", func(b *sdcpb.WitnessBlock) { *b = sdcpb.WitnessBlock{} }},
		{"counts short", func(b *sdcpb.WitnessBlock) { b.EntryCounts = b.EntryCounts[:1] }},
		{"counts sum", func(b *sdcpb.WitnessBlock) { b.EntryCounts[1] = 2 }},
		{"zero entries", func(b *sdcpb.WitnessBlock) { b.EntryCounts = []int32{3, 0} }},
		{"negative count", func(b *sdcpb.WitnessBlock) { b.EntryCounts = []int32{4, -1} }},
		{"deltas short", func(b *sdcpb.WitnessBlock) { b.Deltas = b.Deltas[:2] }},
		{"cell out of range", func(b *sdcpb.WitnessBlock) { b.Cells[1] = 4 }},
		{"negative cell", func(b *sdcpb.WitnessBlock) { b.Cells[0] = -1 }},
		{"target out of range", func(b *sdcpb.WitnessBlock) { b.Target[1] = 9 }},
		{"NaN", func(b *sdcpb.WitnessBlock) { b.Deltas[0] = math.NaN() }},
		{"Inf", func(b *sdcpb.WitnessBlock) { b.Deltas[2] = math.Inf(-1) }},
		{"too large", func(b *sdcpb.WitnessBlock) { b.EntryCounts[0] = MaxWitnessEntries + 1 }},
	} {
		b := ok()
		tc.edit(b)
		d := WitnessDecoder{Cells: 4}
		if err := d.Add(b, func(int, []int, []float64) {}); !errors.Is(err, ErrStream) {
			t.Errorf("%s: %v, want a stream violation", tc.name, err)
		}
	}
	d := WitnessDecoder{Cells: 4}
	got := 0
	if err := d.Add(ok(), func(int, []int, []float64) { got++ }); err != nil || got != 2 {
		t.Errorf("intact block: %d witnesses, %v", got, err)
	}
}

// FuzzWitnessDecoder feeds arbitrary bytes, read as a WitnessBlock, to
// the decoder: it must reject or accept, never panic, and what it accepts
// must be of the form it promises (targets and cells in range, finite
// deltas, 1 to MaxWitnessEntries entries, the counts adding up, all of
// them within the budget).
func FuzzWitnessDecoder(f *testing.F) {
	seed := &sdcpb.WitnessBlock{Target: []int64{1, 2}, EntryCounts: []int32{2, 1}, Cells: []int64{1, 3, 2}, Deltas: []float64{1, -1, 2}}
	b, _ := proto.Marshal(seed)
	f.Add(b, uint16(4))
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, cells uint16) {
		var blk sdcpb.WitnessBlock
		if proto.Unmarshal(data, &blk) != nil {
			return
		}
		d := WitnessDecoder{Cells: int(cells)}
		entries := 0
		err := d.Add(&blk, func(tg int, cs []int, ds []float64) {
			if tg < 0 || tg >= int(cells) || len(cs) != len(ds) || len(cs) < 1 || len(cs) > MaxWitnessEntries {
				t.Fatalf("accepted witness of target %d with %d cells, %d deltas", tg, len(cs), len(ds))
			}
			for q, c := range cs {
				if c < 0 || c >= int(cells) || math.IsNaN(ds[q]) || math.IsInf(ds[q], 0) {
					t.Fatalf("accepted entry %d: %v", c, ds[q])
				}
			}
			entries += len(cs)
		})
		if err == nil && (entries > len(blk.GetCells()) || (entries < len(blk.GetCells()) && len(blk.GetCells()) <= WitnessBudget(int(cells)))) {
			t.Fatalf("accepted %d entries of %d", entries, len(blk.GetCells()))
		}
		if err != nil && !errors.Is(err, ErrStream) {
			t.Fatalf("error %v is not a stream violation", err)
		}
	})
}

// TestWitnessBudget: a sender leaves out the witnesses beyond the budget
// of a problem, and a receiver drops those a sender sent beyond it.
func TestWitnessBudget(t *testing.T) {
	const cells = 2
	big := make([]int, MaxWitnessEntries)
	deltas := make([]float64, MaxWitnessEntries)
	get := func(int) (int, []int, []float64) { return 0, big, deltas }
	var blocks []*sdcpb.WitnessBlock
	sent, err := SendWitnesses(3, get, WitnessBudget(cells), 0, func(b *sdcpb.WitnessBlock) error {
		blocks = append(blocks, b)
		return nil
	})
	if err != nil || sent != 1 {
		t.Fatalf("sent %d witnesses of %d entries within a budget of %d (%v), want 1", sent, MaxWitnessEntries, WitnessBudget(cells), err)
	}
	// A sender that ignores the budget: the receiver keeps what fits.
	blocks = nil
	sent, err = SendWitnesses(3, get, 1<<30, 0, func(b *sdcpb.WitnessBlock) error {
		blocks = append(blocks, b)
		return nil
	})
	if err != nil || sent != 3 {
		t.Fatal(sent, err)
	}
	d := WitnessDecoder{Cells: cells}
	got := 0
	for _, b := range blocks {
		if err := d.Add(b, func(int, []int, []float64) { got++ }); err != nil {
			t.Fatal(err)
		}
	}
	if got != 1 {
		t.Errorf("received %d witnesses beyond the budget, want 1", got)
	}
}
