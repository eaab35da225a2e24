package rules

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// cell builds a cell from non-negative contributions (unweighted, value =
// shadow = their sum).
func cell(contribs ...float64) Cell {
	c := Cell{Freq: int64(len(contribs))}
	for _, x := range contribs {
		c.Value += x
		c.Shadow += x
	}
	c.Top = append([]float64(nil), contribs...)
	for i := range c.Top { // sort decreasing (tests pass few values)
		for j := i + 1; j < len(c.Top); j++ {
			if math.Abs(c.Top[j]) > math.Abs(c.Top[i]) {
				c.Top[i], c.Top[j] = c.Top[j], c.Top[i]
			}
		}
		c.Top[i] = math.Abs(c.Top[i])
	}
	return c
}

func TestStatusAndLevels(t *testing.T) {
	nk375 := func() Set { s := NewSet(); s.NK[0] = &NK{N: 3, K: 75}; return s }
	p15 := func() Set { s := NewSet(); s.P[0] = &P{P: 15, Q: 100, N: 1}; return s }
	freq3 := func() Set { s := NewSet(); s.Freq[0] = &Freq{MinFreq: 3, Range: 30}; return s }
	for _, tc := range []struct {
		name       string
		set        Set
		cell       Cell
		status     cellstatus.Status
		lower, upp float64
	}{
		// NK(3,75): top 3 = 100+50+20 = 170 of 200 = 85% > 75 → unsafe;
		// PL = 100/75·170 − 200 = 26.667.
		{"nk unsafe", nk375(), cell(100, 50, 20, 20, 10), cellstatus.UnsafeRule, 170*100/75.0 - 200, 170*100/75.0 - 200},
		// top 3 = 30+30+30 = 90 of 150 = 60% → safe; safe cells get the minimum PL 1.
		{"nk safe", nk375(), cell(30, 30, 30, 30, 30), cellstatus.Safe, 1, 1},
		// Exactly 75% is safe (strict inequality): 75 of 100.
		{"nk boundary", nk375(), cell(25, 25, 25, 25), cellstatus.Safe, 1, 1},
		// ≤ n contributors: T/3 (worked example of the spec).
		{"nk few contributors", nk375(), cell(60, 30), cellstatus.UnsafeRule, 30, 30},
		// p% rule p=15, n=1: T − x1 − x2 = 10 < 0.15·100 = 15 → unsafe;
		// PL = 0.15·100 − 10 = 5.
		{"p unsafe", p15(), cell(100, 40, 6, 4), cellstatus.UnsafeRule, 5, 5},
		// T − x1 − x2 = 20 ≥ 15 → safe.
		{"p safe", p15(), cell(100, 40, 10, 10), cellstatus.Safe, 1, 1},
		// All-zero contributions: safe under p%, but the cell is still non-empty.
		{"p zero contributions", p15(), cell(0, 0), cellstatus.Safe, 0, 0},
		// (p,q) rule: P(10,50,1): (10/100)·x1 + (50/100)(x1+x2−T) = 10 + 0.5(140−150) = 5 > 0;
		// R = (p/q)x1 + x1 + x2 = 20 + 140 = 160, PL = 10.
		{"pq unsafe", func() Set { s := NewSet(); s.P[0] = &P{P: 10, Q: 50, N: 1}; return s }(), cell(100, 40, 10), cellstatus.UnsafeRule, 10, 10},
		// Frequency: 2 < 3 → unsafe, PL 30% of 50 = 15.
		{"freq unsafe", freq3(), cell(20, 30), cellstatus.UnsafeFreq, 15, 15},
		{"freq safe", freq3(), cell(20, 30, 40), cellstatus.Safe, 1, 1},
		// Empty cells.
		{"empty", freq3(), Cell{}, cellstatus.Empty, 0, 0},
		{"empty non-structural", func() Set { s := freq3(); s.EmptyNonStructural = true; return s }(), Cell{}, cellstatus.EmptyNonStructural, 0, 10},
		// Missing = safe wins over every rule.
		{"missing safe", func() Set { s := freq3(); s.MissingSafe = true; return s }(), func() Cell { c := cell(5); c.Missing = true; return c }(), cellstatus.Safe, 1, 1},
		{"missing not safe without MIS", freq3(), func() Cell { c := cell(5); c.Missing = true; return c }(), cellstatus.UnsafeFreq, 1.5, 1.5},
		// Zero rule: non-empty cell with value 0; PL lower 0, upper = range.
		{"zero", func() Set { s := NewSet(); s.Zero, s.ZeroRange = true, 7; return s }(), cell(0, 0, 0), cellstatus.UnsafeZero, 0, 7},
		// Dominance wins over frequency (both fire): status 3.
		{"nk before freq", func() Set { s := nk375(); s.Freq[0] = &Freq{MinFreq: 3, Range: 30}; return s }(), cell(60, 30), cellstatus.UnsafeRule, 30, 30},
		// Decimals: minimum PL 0.01.
		{"min pl decimals", func() Set { s := p15(); s.Decimals = 2; return s }(), cell(30, 30, 30, 30), cellstatus.Safe, 0.01, 0.01},
		// Negative contributions: absolute values rank; shadow total is signed.
		// contributions −80, 50, 40: T = 10, x1 = 80 → NK(1,50): 800% > 50 → unsafe.
		{"negative", func() Set { s := NewSet(); s.NK[0] = &NK{N: 1, K: 50}; return s }(), cell(-80, 50, 40), cellstatus.UnsafeRule, 150, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cell
			st := tc.set.Status(&c)
			if st != tc.status {
				t.Fatalf("Status = %v, want %v", st, tc.status)
			}
			lo, up := tc.set.ProtectionLevels(&c, st)
			if !near(lo, tc.lower) || !near(up, tc.upp) {
				t.Errorf("ProtectionLevels = (%v, %v), want (%v, %v)", lo, up, tc.lower, tc.upp)
			}
		})
	}
}

func TestHoldings(t *testing.T) {
	// Holding-level P(10,1) (slot 2): the cell is safe at record level but
	// one holding owns most of it.
	s := NewSet()
	s.P[2] = &P{P: 10, Q: 100, N: 1}
	c := cell(30, 30, 30, 5, 5) // records
	c.HoldingTop = []float64{90, 5, 5}
	c.HoldingFreq = 3
	// T − h1 − h2 = 100 − 95 = 5 < 0.1·90 = 9 → unsafe, PL = 9 − 5 = 4.
	if st := s.Status(&c); st != cellstatus.UnsafeRule {
		t.Fatalf("holding P: status %v, want unsafe", st)
	}
	if lo, up := s.ProtectionLevels(&c, cellstatus.UnsafeRule); !near(lo, 4) || !near(up, 4) {
		t.Errorf("holding P: PL (%v,%v), want (4,4)", lo, up)
	}
	if s.TopN() != 0 || s.HoldingTopN() != 2 {
		t.Errorf("TopN %d HoldingTopN %d, want 0 and 2", s.TopN(), s.HoldingTopN())
	}
	// Holding frequency rule (slot 1).
	f := NewSet()
	f.Freq[1] = &Freq{MinFreq: 2, Range: 10}
	if st := f.Status(&c); st != cellstatus.Safe {
		t.Errorf("3 holdings, min 2: status %v", st)
	}
	c.HoldingFreq = 1
	if st := f.Status(&c); st != cellstatus.UnsafeFreq {
		t.Errorf("1 holding, min 2: status %v", st)
	}
}

func TestWeights(t *testing.T) {
	// Two records: 60 with weight 1.5 and 40 with weight 2; weighted shadow
	// total 60·1.5 + 40·2 = 170. NK(2,70) takes the top two copies: the
	// first record counts 1.5 times, then half a copy of the second:
	// 1.5·60 + 0.5·40 = 110 → 64.7% → safe.
	s := NewSet()
	s.Weighted = true
	s.NK[0] = &NK{N: 2, K: 70}
	c := Cell{Value: 170, Shadow: 170, Freq: 2, WeightSum: 3.5, Top: []float64{60, 40}, TopWeight: []float64{1.5, 2}}
	if st := s.Status(&c); st != cellstatus.Safe {
		t.Errorf("weighted NK: status %v, want safe", st)
	}
	s.NK[0].K = 60 // 64.7% > 60
	if st := s.Status(&c); st != cellstatus.UnsafeRule {
		t.Errorf("weighted NK(2,60): status %v, want unsafe", st)
	}
	// Weighted frequency compares the weight sum: 3.5 < 4.
	f := NewSet()
	f.Weighted = true
	f.Freq[0] = &Freq{MinFreq: 4, Range: 10}
	if st := f.Status(&c); st != cellstatus.UnsafeFreq {
		t.Errorf("weighted FREQ: status %v, want unsafe", st)
	}
}

func TestRequest(t *testing.T) {
	s := NewSet()
	s.Req[0] = &Req{Perc: [2]float64{30, 60}, MinFreq: 3, Margin: 15}
	base := cell(40, 30, 20, 10)
	for _, tc := range []struct {
		req  Request
		want cellstatus.Status
	}{
		{Request{}, cellstatus.Safe},                          // nobody asked
		{Request{Max: 40, Code: 1}, cellstatus.UnsafeRequest}, // 40 > 30% of 100
		{Request{Max: 40, Code: 2}, cellstatus.Safe},          // 40 ≤ 60%
		{Request{Max: 25, Code: 1}, cellstatus.Safe},
	} {
		c := base
		c.Request[0] = tc.req
		if st := s.Status(&c); st != tc.want {
			t.Errorf("request %+v: status %v, want %v", tc.req, st, tc.want)
		}
	}
	// A requesting record in a cell with fewer than MinFreq records.
	small := cell(10, 10)
	small.Request[0] = Request{Max: 1, Code: 1}
	if st := s.Status(&small); st != cellstatus.UnsafeRequest {
		t.Errorf("request with 2 < 3 records: status %v", st)
	}
	if lo, up := s.ProtectionLevels(&small, cellstatus.UnsafeRequest); !near(up, 3) || !near(lo, 3) {
		t.Errorf("request PL (%v,%v), want 15%% of 20 = 3", lo, up)
	}
}

func TestManualAndFallback(t *testing.T) {
	s := NewSet()
	c := cell(50, 50)
	if lo, up := s.ProtectionLevels(&c, cellstatus.UnsafeManual); !near(lo, 20) || !near(up, 20) {
		t.Errorf("manual PL (%v,%v), want 20%% of 100", lo, up)
	}
	// Status 3 without any firing rule (set manually, e.g. by an a-priori
	// file): frequency 2 > MinFreq 1 → manual margin.
	if lo, _ := s.ProtectionLevels(&c, cellstatus.UnsafeRule); !near(lo, 20) {
		t.Errorf("fallback PL %v, want 20", lo)
	}
	// Frequency ≤ MinFreq → frequency range (0 here) → distance 1.
	one := cell(100)
	if lo, _ := s.ProtectionLevels(&one, cellstatus.UnsafeRule); !near(lo, 1) {
		t.Errorf("fallback PL %v, want 1", lo)
	}
}

func TestAsymmetric(t *testing.T) {
	s := NewSet()
	s.NK[0] = &NK{N: 3, K: 75}
	s.LowerFactor = 0.25
	c := cell(60, 30)
	lo, up := s.ProtectionLevels(&c, s.Status(&c))
	if !near(up, 30) || !near(lo, 7.5) {
		t.Errorf("asymmetric PL (%v,%v), want (7.5, 30)", lo, up)
	}
	// Safe cells are not scaled.
	safe := cell(30, 30, 30, 30, 30)
	if lo, up := s.ProtectionLevels(&safe, cellstatus.Safe); lo != up {
		t.Errorf("safe cell asymmetric: (%v,%v)", lo, up)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		set Set
		ok  bool
	}{
		{func() Set { s := NewSet(); s.NK[0] = &NK{N: 3, K: 75}; return s }(), true},
		{func() Set { s := NewSet(); s.NK[0] = &NK{N: 0, K: 75}; return s }(), false},
		{func() Set { s := NewSet(); s.NK[0] = &NK{N: 1, K: 101}; return s }(), false},
		{func() Set { s := NewSet(); s.P[0] = &P{P: 20, Q: 10, N: 1}; return s }(), false},
		{func() Set { s := NewSet(); s.Weighted = true; s.Freq[1] = &Freq{MinFreq: 2}; return s }(), false},
	} {
		if err := tc.set.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tc.set, err, tc.ok)
		}
	}
}
