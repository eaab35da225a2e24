package wire

import (
	"math"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
)

// MaxWitnessEntries is the most entries (cells) one witness may have on
// the wire: a block holds whole witnesses, and one of this many entries
// (12 bytes each and more) fills about a message of DefaultChunkBytes. A
// sender leaves larger witnesses out (SendWitnesses); a receiver refuses
// them.
const MaxWitnessEntries = 1 << 16

// WitnessesPerCell bounds the witnesses of one stream: at most this many
// entries per cell of the problem (plus one witness of MaxWitnessEntries),
// so that a method cannot make the host or the audit hold more than a few
// times the problem. GH's on a 4-D table of 130 321 cells: 4.6 per cell.
const WitnessesPerCell = 32

// WitnessBudget is the most entries the witnesses of a problem of cells
// cells may have on the wire.
func WitnessBudget(cells int) int { return WitnessesPerCell*cells + MaxWitnessEntries }

// SendWitnesses streams n witnesses as WitnessBlocks of about chunk bytes
// of payload each (DefaultChunkBytes when chunk ≤ 0); get returns witness
// i: its target cell and its entries. A witness with no entry or more
// than MaxWitnessEntries is left out (it would break the message size;
// witnesses are evidence, never required), and so are those beyond budget
// entries (WitnessBudget). It returns how many it sent.
func SendWitnesses(n int, get func(i int) (target int, cells []int, deltas []float64), budget, chunk int, send func(*sdcpb.WitnessBlock) error) (int, error) {
	if chunk <= 0 {
		chunk = DefaultChunkBytes
	}
	blk := &sdcpb.WitnessBlock{}
	sent, bytes := 0, 0
	flush := func() error {
		if len(blk.Target) == 0 {
			return nil
		}
		if err := send(blk); err != nil {
			return err
		}
		sent += len(blk.Target)
		blk, bytes = &sdcpb.WitnessBlock{FirstWitness: int64(sent)}, 0
		return nil
	}
	for i := range n {
		t, cells, deltas := get(i)
		k := len(cells)
		if k == 0 || k > MaxWitnessEntries || len(deltas) != k || k > budget {
			continue
		}
		budget -= k
		if bytes > 0 && bytes+16*k+16 > chunk {
			if err := flush(); err != nil {
				return sent, err
			}
		}
		blk.Target = append(blk.Target, int64(t))
		blk.EntryCounts = append(blk.EntryCounts, int32(k))
		for q, c := range cells {
			blk.Cells = append(blk.Cells, int64(c))
			blk.Deltas = append(blk.Deltas, deltas[q])
		}
		bytes += 16*k + 16
	}
	if err := flush(); err != nil {
		return sent, err
	}
	return sent, nil
}

// WitnessDecoder reassembles the witnesses of a stream's WitnessBlocks
// for a problem of Cells cells, checking their form (not what they
// claim, which only the audit judges).
type WitnessDecoder struct {
	// Cells is the number of cells of the problem.
	Cells int
	next  int64
	used  int
}

// Add decodes one block and hands each of its witnesses to put, in
// order: the target cell and the entries (fresh slices); those beyond
// WitnessBudget(Cells) entries in all are dropped. The block must
// continue the ones before it; its counts must match its arrays, every
// cell lie in the problem, every delta be finite and every witness have 1
// to MaxWitnessEntries entries. An error wraps ErrStream.
func (d *WitnessDecoder) Add(b *sdcpb.WitnessBlock, put func(target int, cells []int, deltas []float64)) error {
	if b.GetFirstWitness() != d.next {
		return StreamErr("witness block starts at %d, want %d", b.GetFirstWitness(), d.next)
	}
	targets, counts, cells, deltas := b.GetTarget(), b.GetEntryCounts(), b.GetCells(), b.GetDeltas()
	if len(targets) == 0 || len(targets) != len(counts) || len(cells) != len(deltas) {
		return StreamErr("witness block at %d: %d targets, %d entry counts, %d cells, %d deltas",
			d.next, len(targets), len(counts), len(cells), len(deltas))
	}
	total := 0
	for i, k := range counts {
		if k < 1 || k > MaxWitnessEntries {
			return StreamErr("witness %d has %d entries", d.next+int64(i), k)
		}
		total += int(k)
	}
	if total != len(cells) {
		return StreamErr("witness block at %d: entry counts sum to %d, %d cells sent", d.next, total, len(cells))
	}
	n := int64(d.Cells)
	for q, c := range cells {
		if c < 0 || c >= n {
			return StreamErr("witness block at %d: cell %d out of range (%d cells)", d.next, c, n)
		}
		if math.IsNaN(deltas[q]) || math.IsInf(deltas[q], 0) {
			return StreamErr("witness block at %d: delta of cell %d not finite", d.next, c)
		}
	}
	at := 0
	for i, t := range targets {
		if t < 0 || t >= n {
			return StreamErr("witness %d: target %d out of range (%d cells)", d.next+int64(i), t, n)
		}
		k := int(counts[i])
		if d.used+k <= WitnessBudget(d.Cells) {
			d.used += k
			put(int(t), Ints(cells[at:at+k]), append([]float64(nil), deltas[at:at+k]...))
		}
		at += k
	}
	d.next += int64(len(targets))
	return nil
}
