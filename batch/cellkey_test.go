package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/pluginsdk"
)

// TestCheckPerturbed: the host refuses a CKM result whose frequency noise
// is not the p-table's for the cell's count and key, or that changes an
// empty or protected cell.
func TestCheckPerturbed(t *testing.T) {
	name := filepath.Join("..", "testdata", "scenarios", "ckm", "ptable_freq.csv")
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pt, err := ptable.Read(f, name, ptable.Frequency)
	if err != nil {
		t.Fatal(err)
	}
	S := cellstatus.Safe
	p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{1, 2, 10, 0, 5}, Freq: []int64{1, 2, 10, 0, 5},
		Status: []cellstatus.Status{S, S, S, cellstatus.Empty, cellstatus.Protected}, CellKey: []float64{0.3, 0.96, 0.01, 0.5, 0.99}}}
	good := []float64{1, 4, 8, 0, 5}
	job := &cellKeyJob{freq: pt}
	if err := checkPerturbed(p, job, good); err != nil {
		t.Fatalf("the p-table's own noise refused: %v", err)
	}
	for _, c := range []struct {
		cell  int
		value float64
		msg   string
	}{
		{1, 3, "cell 1: perturbed count is not the p-table's"},
		{3, 1, "cell 3: empty cell published as non-zero"},
		{4, 6, "cell 4: protected cell changed"},
	} {
		bad := append([]float64(nil), good...)
		bad[c.cell] = c.value
		if err := checkPerturbed(p, job, bad); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("cell %d = %g: %v, want %q", c.cell, c.value, err, c.msg)
		}
	}
	// Magnitude tables: only the frozen cells are checked.
	if err := checkPerturbed(p, &cellKeyJob{}, []float64{1.5, 2, 10, 0, 5}); err != nil {
		t.Errorf("magnitude: %v", err)
	}
}
