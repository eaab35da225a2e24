package problem

import (
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

func TestFromJJ(t *testing.T) {
	const text = "0\n4\n" +
		"0 10 10 s 0 15 0 0 0\n" +
		"1 4 4 u 0 15 1.5 2.5 3\n" +
		"2 6 6 m 0 15 0 0 0\n" +
		"3 0 0 z 0 0 0 0 0\n" +
		"1\n0 4 : 0 (-1) 1 (1) 2 (1) 3 (1)\n"
	file, err := jj.Read(strings.NewReader(text), "t.jj")
	if err != nil {
		t.Fatal(err)
	}
	p, err := FromJJ(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &p.Cells
	want := []cellstatus.Status{cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.Secondary, cellstatus.Empty}
	for i, s := range want {
		if c.Status[i] != s {
			t.Errorf("cell %d: status %v, want %v", i, c.Status[i], s)
		}
	}
	if c.LowerPL[1] != 1.5 || c.UpperPL[1] != 2.5 || c.SlidingPL[1] != 3 || c.UpperBound[0] != 15 || c.Cost[2] != 6 {
		t.Errorf("cells %+v", c)
	}
	if p.Relations.Len() != 1 {
		t.Fatalf("%d relations", p.Relations.Len())
	}
	cells, coef := p.Relations.Terms(0)
	if len(cells) != 4 || coef[0] != -1 || cells[3] != 3 {
		t.Errorf("relation %v %v", cells, coef)
	}
	// A frozen non-zero cell is protected.
	file.Cells[3].Value = 5
	if p, _ = FromJJ(file); p.Cells.Status[3] != cellstatus.Protected {
		t.Errorf("frozen non-zero cell: %v", p.Cells.Status[3])
	}
	file.Cells[3].Index = 7
	if _, err := FromJJ(file); err == nil {
		t.Error("cell index out of range accepted")
	}
}
