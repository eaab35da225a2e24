package batch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
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

// TestAddColumns: the host sends what the magnitude CKM type needs beyond
// the cell keys and top contributions — the smallest contributions for D,
// the weights of the top contributions for weighted T, the weight sums for
// weighted M — each at the cell's place in the problem, and refuses to send
// a table whose rule information is missing.
func TestAddColumns(t *testing.T) {
	tab := &table.Table{Rules: table.Rules{TopN: 2}, Cells: []table.Cell{
		{CellKey: 0.25, TopN: []float64{9, 4}, Weight: 3},
		{CellKey: 0.5, TopN: []float64{7, 0}, Weight: 1.5},
	}}
	extra := []tabulate.Extra{{MinContribution: 1, TopWeight: []float64{2, 1}}, {MinContribution: 7, TopWeight: []float64{1.5, 0}}}
	m := &problem.Mapping{Tables: []*table.Table{tab}, Cell: [][]int{{1, 0}}} // the problem lists the cells the other way round
	for _, c := range []struct {
		name     string
		job      cellKeyJob
		min      []float64
		topW     []float64
		weight   []float64
		errorMsg string
	}{
		{name: "D", job: cellKeyJob{typ: "D", extra: extra}, min: []float64{7, 1}},
		{name: "D weighted", job: cellKeyJob{typ: "D", weighted: true, extra: extra}, min: []float64{7, 1}},
		{name: "T", job: cellKeyJob{typ: "T", extra: extra}},
		{name: "T weighted", job: cellKeyJob{typ: "T", weighted: true, extra: extra}, topW: []float64{1.5, 0, 2, 1}},
		{name: "M weighted", job: cellKeyJob{typ: "M", weighted: true, extra: extra}, weight: []float64{1.5, 3}},
		{name: "V weighted", job: cellKeyJob{typ: "V", weighted: true, extra: extra}},
		{name: "D without rule information", job: cellKeyJob{typ: "D"}, errorMsg: "smallest contributions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{0, 0}}}
			err := c.job.addColumns(p, m)
			if c.errorMsg != "" {
				if err == nil || !strings.Contains(err.Error(), c.errorMsg) {
					t.Fatalf("error %v, want %q", err, c.errorMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Cells.CellKey, []float64{0.5, 0.25}) || !slices.Equal(p.Cells.Top, []float64{7, 0, 9, 4}) || p.TopN != 2 {
				t.Errorf("keys %v, top %v (top n %d)", p.Cells.CellKey, p.Cells.Top, p.TopN)
			}
			if !slices.Equal(p.Cells.MinContribution, c.min) || !slices.Equal(p.Cells.TopWeight, c.topW) || !slices.Equal(p.Cells.Weight, c.weight) {
				t.Errorf("smallest %v, top weights %v, weight sums %v; want %v, %v, %v",
					p.Cells.MinContribution, p.Cells.TopWeight, p.Cells.Weight, c.min, c.topW, c.weight)
			}
		})
	}
}
