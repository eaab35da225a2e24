package rules

import (
	"fmt"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
)

// FromBatch returns the rule set of a <SAFETYRULE> command for a response
// with the given decimals. Slot fillers (NK(0,0), P with p = 0, FREQ with
// minimum 0, REQ with percentages 0) leave their slot inactive, as in
// τ-Argus.
func FromBatch(r *arb.SafetyRule, decimals int) (Set, error) {
	s := NewSet()
	s.Decimals = decimals
	for _, rule := range r.Rules {
		switch x := rule.(type) {
		case *arb.NKRule:
			if x.N > 0 {
				s.NK[x.Slot] = &NK{N: x.N, K: float64(x.K)}
			}
		case *arb.PRule:
			if x.P > 0 {
				s.P[x.Slot] = &P{P: float64(x.P), Q: float64(x.Q), N: x.N}
			}
		case *arb.FreqRule:
			if x.MinFreq > 0 || x.Range > 0 {
				s.Freq[x.Slot] = &Freq{MinFreq: x.MinFreq, Range: float64(x.Range)}
			}
		case *arb.ReqRule:
			if x.P1 > 0 || x.P2 > 0 || x.MinFreq > 0 {
				s.Req[x.Slot] = &Req{Perc: [2]float64{float64(x.P1), float64(x.P2)}, MinFreq: x.MinFreq, Margin: float64(x.Margin)}
			}
		case *arb.ZeroRule:
			s.Zero, s.ZeroRange = true, x.Range
		case *arb.MisRule:
			s.MissingSafe = x.Safe
		case *arb.WgtRule:
			s.Weighted = x.Apply
		case *arb.ManRule:
			s.ManualMargin = float64(x.Margin)
		default:
			return s, fmt.Errorf("safety rule %s is not supported", rule.Name())
		}
	}
	if err := s.Validate(); err != nil {
		return s, &poserr.Error{Pos: poserr.Pos{File: r.Pos.File, Line: r.Pos.Line}, Err: err}
	}
	return s, nil
}
