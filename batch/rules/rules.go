// Package rules decides which cells of a table are sensitive and how much
// protection they need, exactly as τ-Argus does (docs/methods.md §2–3):
// the dominance rule NK(n,k), the p% and (p,q) rules with n intruders, the
// request rule, the minimum-frequency rule, the zero rule, "missing = safe",
// weights and holdings, with τ-Argus's order of evaluation, status codes and
// protection levels.
//
// Going beyond τ-Argus, [Set.LowerFactor] gives asymmetric protection
// levels: τ-Argus always protects symmetrically (lower level = upper level),
// which lets an attacker guess a suppressed value as the midpoint of the
// interval that protection produces (Baena, Castro and González 2018,
// "Symmetric vs asymmetric protection levels in SDC methods for tabular data").
// With LowerFactor f the lower level is f times the upper one.
package rules

import (
	"errors"
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// NK is one instance of the dominance rule: unsafe when the N largest
// contributions make up more than K percent of the cell total.
type NK struct {
	N int
	K float64
}

// P is one instance of the p% / (p,q) rule with N intruders: unsafe when
// (P/100)·x1 + (Q/100)·(x1+…+x(N+1) − T) > 0.
type P struct {
	P, Q float64
	N    int
}

// Freq is the minimum-frequency rule: unsafe when 0 < frequency < MinFreq;
// Range is the protection level in percent.
type Freq struct {
	MinFreq int
	Range   float64
}

// Req is the request rule: unsafe when the largest contribution of a record
// that asked for protection exceeds Perc[c−1] percent of the total (c being
// that record's request code), or when a requesting record is present and
// the frequency is below MinFreq. Margin is the protection level in percent.
type Req struct {
	Perc    [2]float64
	MinFreq int
	Margin  float64
}

// Set is the complete rule set of one table. Slots 0–1 of NK and P are
// evaluated on individual contributions, slots 2–3 on holding contributions;
// index 0 of Freq and Req is individual, 1 holding. A rule is active when its
// pointer is non-nil.
type Set struct {
	NK   [4]*NK
	P    [4]*P
	Freq [2]*Freq
	Req  [2]*Req
	// Zero turns the zero rule on; ZeroRange is then the upper protection
	// level of zero cells, in response units.
	Zero      bool
	ZeroRange float64
	// MissingSafe makes every non-empty cell with a missing code safe (MIS).
	MissingSafe bool
	// Weighted applies record weights (WGT).
	Weighted bool
	// ManualMargin is the manual safety margin in percent (MAN, default 20).
	ManualMargin float64
	// EmptyNonStructural labels empty cells 13 instead of 14.
	EmptyNonStructural bool
	// NSEmptyRange is the upper protection level of non-structural empty
	// cells (τ-Argus's default 10).
	NSEmptyRange float64
	// Decimals of the response; the smallest protection level is 10^-Decimals.
	Decimals int
	// LowerFactor scales the lower protection level relative to the upper
	// one; 0 or 1 = symmetric as τ-Argus.
	LowerFactor float64
}

// NewSet returns a rule set with τ-Argus's defaults and no rule active.
func NewSet() Set {
	return Set{ManualMargin: 20, NSEmptyRange: 10}
}

// Validate checks parameter ranges as τ-Argus does.
func (s *Set) Validate() error {
	var errs []error
	for i, r := range s.NK {
		if r != nil && (r.N < 1 || r.K < 0 || r.K > 100) {
			errs = append(errs, fmt.Errorf("NK rule %d: need n ≥ 1 and 0 ≤ k ≤ 100, got NK(%d,%g)", i+1, r.N, r.K))
		}
	}
	for i, r := range s.P {
		if r != nil && (r.N < 1 || r.P < 0 || r.Q <= 0 || r.P > r.Q) {
			errs = append(errs, fmt.Errorf("P rule %d: need n ≥ 1 and 0 ≤ p ≤ q, got P(%g,%g,%d)", i+1, r.P, r.Q, r.N))
		}
	}
	if s.Weighted && s.holdings() {
		errs = append(errs, errors.New("weights and holdings cannot be used together"))
	}
	if s.LowerFactor < 0 {
		errs = append(errs, fmt.Errorf("lower factor %g is negative", s.LowerFactor))
	}
	return errors.Join(errs...)
}

func (s *Set) holdings() bool {
	return s.NK[2] != nil || s.NK[3] != nil || s.P[2] != nil || s.P[3] != nil || s.Freq[1] != nil || s.Req[1] != nil
}

// TopN returns how many individual top contributions the rules need:
// the largest n of the NK rules and n+1 of the P rules (slots 0–1).
func (s *Set) TopN() int { return s.topN(0) }

// HoldingTopN returns how many holding top contributions the rules need.
func (s *Set) HoldingTopN() int { return s.topN(2) }

func (s *Set) topN(first int) int {
	n := 0
	for i := first; i < first+2; i++ {
		if r := s.NK[i]; r != nil {
			n = max(n, r.N)
		}
		if r := s.P[i]; r != nil {
			n = max(n, r.N+1)
		}
	}
	return n
}

// MinPL returns the smallest protection level: 10^-Decimals.
func (s *Set) MinPL() float64 { return math.Pow(10, -float64(s.Decimals)) }

// Request is the request-rule information of a cell at one level.
type Request struct {
	// Max is the largest shadow contribution of a requesting record.
	Max float64
	// Code is that record's request code (1 or 2); 0 when no record of the
	// cell asked for protection.
	Code int
}

// Cell is what the rules see of one cell.
type Cell struct {
	// Value is the response total (weighted with weights).
	Value float64
	// Shadow is the shadow total (weighted with weights); the rules work on it.
	Shadow float64
	// Freq is the number of records; HoldingFreq the number of holdings.
	Freq, HoldingFreq int64
	// WeightSum is the sum of record weights (weights only).
	WeightSum float64
	// Top holds the largest absolute shadow contributions of records,
	// decreasing and unweighted; TopWeight their record weights (weights only).
	Top, TopWeight []float64
	// HoldingTop holds the largest absolute holding contributions.
	HoldingTop []float64
	// Request holds the request information: index 0 individual, 1 holding.
	Request [2]Request
	// Missing tells that some spanning code of the cell is a missing code.
	Missing bool
}

// at returns x(i) (1-based), 0 beyond the stored contributions.
func at(xs []float64, i int) float64 {
	if i-1 < len(xs) {
		return xs[i-1]
	}
	return 0
}

// sumTop returns the sum of the n largest contributions; with weights, the n
// largest "copies" where each record counts weight times (the last one
// fractionally), as τ-Argus's weighted score.
func (s *Set) sumTop(top, weights []float64, n int) float64 {
	if !s.Weighted || len(weights) == 0 {
		sum := 0.0
		for i := 1; i <= n; i++ {
			sum += at(top, i)
		}
		return sum
	}
	sum, left := 0.0, float64(n)
	for i, x := range top {
		if left <= 0 {
			break
		}
		w := 1.0
		if i < len(weights) {
			w = weights[i]
		}
		take := math.Min(w, left)
		sum += take * x
		left -= take
	}
	return sum
}

// contributions returns the top list of slot i (individual for 0–1,
// holding for 2–3) with its weights.
func (s *Set) contributions(c *Cell, slot int) ([]float64, []float64) {
	if slot >= 2 {
		return c.HoldingTop, nil
	}
	return c.Top, c.TopWeight
}

// nkRequired returns the shadow total NK slot i would need, and whether the
// rule fires.
func (s *Set) nkRequired(c *Cell, i int) (required float64, unsafe bool) {
	r := s.NK[i]
	top, w := s.contributions(c, i)
	sum := s.sumTop(top, w, r.N)
	if at(top, 1) == 0 || c.Shadow == 0 || r.K == 0 {
		return 0, false
	}
	return 100 / r.K * sum, 100*sum/c.Shadow > r.K
}

// pRequired returns the shadow total P slot i would need, and whether the
// rule fires.
func (s *Set) pRequired(c *Cell, i int) (required float64, unsafe bool) {
	r := s.P[i]
	top, w := s.contributions(c, i)
	x1 := at(top, 1)
	sum := s.sumTop(top, w, r.N+1)
	return r.P/r.Q*x1 + sum, r.P/100*x1+r.Q/100*(sum-c.Shadow) > 0
}

// Status returns the primary status of a cell: empty, safe, or unsafe by
// rule (3), request (4), frequency (5) or zero (6), in τ-Argus's order.
func (s *Set) Status(c *Cell) cellstatus.Status {
	if c.Freq == 0 {
		if s.EmptyNonStructural {
			return cellstatus.EmptyNonStructural
		}
		return cellstatus.Empty
	}
	if s.MissingSafe && c.Missing {
		return cellstatus.Safe
	}
	for i := range s.NK {
		if s.NK[i] != nil {
			if _, unsafe := s.nkRequired(c, i); unsafe {
				return cellstatus.UnsafeRule
			}
		}
	}
	for i := range s.P {
		if s.P[i] != nil {
			if _, unsafe := s.pRequired(c, i); unsafe {
				return cellstatus.UnsafeRule
			}
		}
	}
	for i, r := range s.Req {
		if r == nil {
			continue
		}
		q := c.Request[i]
		if q.Code == 0 {
			continue
		}
		freq := c.Freq
		if i == 1 {
			freq = c.HoldingFreq
		}
		if q.Max > r.Perc[q.Code-1]/100*c.Shadow || freq < int64(r.MinFreq) {
			return cellstatus.UnsafeRequest
		}
	}
	if r := s.Freq[0]; r != nil {
		if s.Weighted {
			if c.WeightSum < float64(r.MinFreq) {
				return cellstatus.UnsafeFreq
			}
		} else if c.Freq < int64(r.MinFreq) {
			return cellstatus.UnsafeFreq
		}
	}
	if r := s.Freq[1]; r != nil && c.HoldingFreq > 0 && c.HoldingFreq < int64(r.MinFreq) {
		return cellstatus.UnsafeFreq
	}
	if s.Zero && c.Value == 0 {
		return cellstatus.UnsafeZero
	}
	return cellstatus.Safe
}

// ProtectionLevels returns the lower and upper protection levels of a cell
// with the given status, as distances from its value (docs/methods.md
// §3). Like τ-Argus it gives every non-empty cell at least 10^-decimals.
func (s *Set) ProtectionLevels(c *Cell, st cellstatus.Status) (lower, upper float64) {
	perc := s.percent(c, st)
	switch {
	case c.Value != 0:
		upper = math.Abs(c.Value) * math.Abs(perc)
		upper = math.Max(upper, s.MinPL())
		lower = upper
	case c.Freq > 0:
		return 0, s.ZeroRange
	case st == cellstatus.EmptyNonStructural:
		return 0, s.NSEmptyRange
	default:
		return 0, 0
	}
	if s.LowerFactor > 0 && s.LowerFactor != 1 && st.IsPrimary() {
		lower = math.Max(upper*s.LowerFactor, s.MinPL())
	}
	return lower, upper
}

// percent is step A of τ-Argus's protection levels: the required protection
// as a fraction of the value.
func (s *Set) percent(c *Cell, st cellstatus.Status) float64 {
	switch st {
	case cellstatus.UnsafeRule:
		rmax := math.Inf(-1)
		for i := range s.NK {
			if s.NK[i] != nil {
				if r, _ := s.nkRequired(c, i); r > c.Shadow {
					rmax = math.Max(rmax, r)
				}
			}
		}
		for i := range s.P {
			if s.P[i] != nil {
				if r, _ := s.pRequired(c, i); r > c.Shadow {
					rmax = math.Max(rmax, r)
				}
			}
		}
		var dist float64
		if !math.IsInf(rmax, -1) {
			dist = rmax - c.Shadow
		} else {
			if c.Freq <= int64(s.minFreq()) {
				dist = c.Shadow * s.freqRange() / 100
			} else {
				dist = c.Shadow * s.ManualMargin / 100
			}
			if dist == 0 {
				dist = 1
			}
		}
		if c.Shadow == 0 {
			return s.ManualMargin / 100
		}
		return dist / c.Shadow
	case cellstatus.UnsafeRequest:
		m := 0.0
		for _, r := range s.Req {
			if r != nil {
				m = math.Max(m, r.Margin)
			}
		}
		return m / 100
	case cellstatus.UnsafeFreq:
		return s.freqRange() / 100
	case cellstatus.UnsafeManual:
		return s.ManualMargin / 100
	}
	return 0
}

func (s *Set) minFreq() int {
	if r := s.Freq[0]; r != nil {
		return r.MinFreq
	}
	return 1 // τ-Argus passes MinFreq 1 when no FREQ rule is given
}

// freqRange is the frequency safety range; like τ-Argus's Java driver, the
// holding range replaces the cell range when it is larger.
func (s *Set) freqRange() float64 {
	r := 0.0
	if f := s.Freq[0]; f != nil {
		r = f.Range
	}
	if f := s.Freq[1]; f != nil {
		r = math.Max(r, f.Range)
	}
	return r
}
