package cost

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
)

func TestTransform(t *testing.T) {
	tests := []struct {
		cost, lambda, want float64
	}{
		{7, 1, 7},
		{16, 0.5, 4},
		{8, 1.0 / 3, 2},
		{math.E - 1, 0, 1},
		{0, 0, 0},
		{3, -1, math.Log(4)}, // τ-Argus: anything not > 0 is ln(cost+1)
		{0, 0.5, 0},
		{5, math.NaN(), math.Log(6)},
	}
	for _, tt := range tests {
		got := Transform(tt.cost, tt.lambda)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Transform(%v, %v) = %v, want %v", tt.cost, tt.lambda, got, tt.want)
		}
	}
}

func TestCheckLambda(t *testing.T) {
	for _, l := range []float64{0, 0.5, 1} {
		if err := CheckLambda(l); err != nil {
			t.Errorf("CheckLambda(%v) = %v", l, err)
		}
	}
	for _, l := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		if err := CheckLambda(l); err == nil {
			t.Errorf("CheckLambda(%v) accepted", l)
		}
	}
}

func TestRawAndApply(t *testing.T) {
	cells := []table.Cell{{Cost: 12.5, Freq: 3}, {Cost: 0, Freq: 0}}
	tests := []struct {
		kind table.CostKind
		want []float64
	}{
		{table.CostResponse, []float64{12.5, 0}},
		{table.CostVariable, []float64{12.5, 0}},
		{table.CostFrequency, []float64{3, 0}},
		{table.CostUnity, []float64{1, 1}},
		{table.CostDistance, []float64{1, 1}},
	}
	for _, tt := range tests {
		tab := &table.Table{Cost: table.NewCost(tt.kind, ""), Cells: append([]table.Cell(nil), cells...)}
		for i := range tab.Cells {
			if got := Raw(tt.kind, &tab.Cells[i]); got != tt.want[i] {
				t.Errorf("kind %d cell %d: Raw = %v, want %v", tt.kind, i, got, tt.want[i])
			}
		}
		Apply(tab)
		for i := range tab.Cells {
			if got := tab.Cells[i].Cost; got != tt.want[i] {
				t.Errorf("kind %d cell %d: after Apply cost = %v, want %v", tt.kind, i, got, tt.want[i])
			}
		}
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		x, max, ms float64
		want       int64
	}{
		{100, 100, 20000, 20000},
		{50, 100, 20000, 10000},
		{1, 100000, 20000, 1}, // 0.2 + .5 truncates to 0 → 1
		{3, 100000, 20000, 1}, // 0.6 + .5 = 1.1 → 1
		{4, 100000, 20000, 1}, // 0.8 + .5 = 1.3 → 1
		{8, 100000, 20000, 2}, // 1.6 + .5 = 2.1 → 2
		{7.5, 100, 10, 1},     // 0.75 + .5 = 1.25 → 1
		{2.5, 10, 10, 3},      // 2.5 + .5 = 3 → 3 (half rounds up)
		{0, 100, 20000, 1},    // zero cost becomes 1
		{5, 0, 20000, 1},      // no positive maximum
		{5, 10, 0, 10000},     // default MaxScaledCost
		{math.NaN(), 10, 100, 1},
		{1e300, 1e-300, 1e10, math.MaxInt64},
		{-50, 100, 100, -49}, // negative costs pass through (τ-Argus truncation)
	}
	for _, tt := range tests {
		if got := Scale(tt.x, tt.max, tt.ms); got != tt.want {
			t.Errorf("Scale(%v, %v, %v) = %d, want %d", tt.x, tt.max, tt.ms, got, tt.want)
		}
	}
}

func TestScaleTable(t *testing.T) {
	tab := &table.Table{
		Cost:  table.Cost{Kind: table.CostVariable, Lambda: 1, MaxScaledCost: 100},
		Cells: []table.Cell{{Cost: 40}, {Cost: 10}, {Cost: 0}, {Cost: 0.3}},
	}
	want := []int64{100, 25, 1, 1}
	got := ScaleTable(tab)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("variable cost: cell %d = %d, want %d", i, got[i], want[i])
		}
	}
	// λ = 0.5: sqrt(40) is the maximum; sqrt(10)/sqrt(40) = 0.5.
	tab.Cost.Lambda = 0.5
	want = []int64{100, 50, 1, 9} // sqrt(0.3)/sqrt(40)*100 = 8.66 → 9
	got = ScaleTable(tab)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("λ=0.5: cell %d = %d, want %d", i, got[i], want[i])
		}
	}
	// λ = 0: ln(cost+1); ln(41) is the maximum.
	tab.Cost.Lambda = 0
	got = ScaleTable(tab)
	if w := int64(math.Trunc(math.Log(11)/math.Log(41)*100 + .5)); got[1] != w || got[0] != 100 {
		t.Errorf("λ=0: got %v, want [100 %d …]", got, w)
	}
	// Frequency cost: the frequency, whatever is stored.
	tab.Cost = table.Cost{Kind: table.CostFrequency, Lambda: 1, MaxScaledCost: 20}
	tab.Cells = []table.Cell{{Cost: 999, Freq: 10}, {Freq: 5}, {Freq: 0}}
	if got := ScaleTable(tab); got[0] != 20 || got[1] != 10 || got[2] != 1 {
		t.Errorf("frequency cost: got %v, want [20 10 1]", got)
	}
	// Unity cost: 1 everywhere.
	tab.Cost.Kind = table.CostUnity
	for i, v := range ScaleTable(tab) {
		if v != 1 {
			t.Errorf("unity cost: cell %d = %d", i, v)
		}
	}
	// Distance cost: the cells cost 1, so the scaled cost is MaxScaledCost.
	tab.Cost.Kind = table.CostDistance
	for i, v := range ScaleTable(tab) {
		if v != 20 {
			t.Errorf("distance cost: cell %d = %d, want 20", i, v)
		}
	}
	if m := Max(&table.Table{}); m != 0 {
		t.Errorf("Max of an empty table = %v", m)
	}
}

func TestDistanceFromMeta(t *testing.T) {
	if got := DistanceFromMeta([]int{2, 4, 4, 4, 4}); got != (Distance{2, 4, 4, 4, 4}) {
		t.Errorf("got %v", got)
	}
	if got := DistanceFromMeta(nil); got != DefaultDistance {
		t.Errorf("nil: got %v", got)
	}
	if got := DistanceFromMeta([]int{3}); got != (Distance{3, 1, 1, 1, 1}) {
		t.Errorf("short: got %v", got)
	}
}

func TestDistanceCosts(t *testing.T) {
	// A 3 × 7 grid; row 0 and column 0 are margins. One interior primary
	// at (1, 2). Dimension 0 distances 10 20 30 40 50, dimension 1 distances
	// 1 2 3 4 5.
	shape := []int{3, 7}
	n := 21
	primary := make([]bool, n)
	margin := make([]bool, n)
	for i := 0; i < n; i++ {
		r, c := i/7, i%7
		margin[i] = r == 0 || c == 0
	}
	primary[1*7+2] = true
	dist := []Distance{{10, 20, 30, 40, 50}, {1, 2, 3, 4, 5}}
	got, err := DistanceCosts(shape, primary, margin, dist)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		999, 999, 999, 999, 999, 999, 999,
		999, 1, 50, 1, 2, 3, 4, // row of the primary: δ = 1,1,2,3,4
		999, 50, 10, 50, 50, 50, 50, // column of the primary: δ = 1
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell (%d,%d) = %v, want %v", i/7, i%7, got[i], want[i])
		}
	}
	// Distances of 5 and more use the fifth value; a second primary takes
	// the minimum.
	shape = []int{1, 8}
	primary = []bool{true, false, false, false, false, false, false, true}
	got, err = DistanceCosts(shape, primary, nil, []Distance{{0, 0, 0, 0, 0}, {1, 2, 3, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	want = []float64{5, 1, 2, 3, 3, 2, 1, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line: cell %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Errors.
	if _, err := DistanceCosts([]int{2}, []bool{false, false}, nil, nil); err == nil {
		t.Error("missing distance functions accepted")
	}
	if _, err := DistanceCosts([]int{2}, []bool{false}, nil, []Distance{DefaultDistance}); err == nil {
		t.Error("wrong number of flags accepted")
	}
	if _, err := DistanceCosts([]int{0}, nil, nil, []Distance{DefaultDistance}); err == nil {
		t.Error("empty dimension accepted")
	}
	if _, err := DistanceCosts([]int{1 << 20, 1 << 20}, nil, nil, []Distance{DefaultDistance, DefaultDistance}); err == nil {
		t.Error("huge table accepted")
	}
}
