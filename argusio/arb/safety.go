package arb

import (
	"errors"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// SafetyRule is <SAFETYRULE> rule|rule|... for the table specified last.
type SafetyRule struct {
	Header
	// Rules in the order written.
	Rules []Rule
	// StatusOnly is true when the argument is empty or holds only MAN
	// rules: the table then uses the statuses given in the input.
	StatusOnly bool
	// Holding is true when a holding-level slot is active (3rd/4th P with
	// p > 0, 3rd/4th NK with k > 0, 2nd FREQ with minfreq > 0, 2nd REQ
	// with p1 > 0), exactly as τ-Argus decides it.
	Holding bool
}

// Rule is one primary safety rule: *PRule, *NKRule, *FreqRule, *ZeroRule,
// *ReqRule, *WgtRule, *MisRule or *ManRule.
type Rule interface {
	// Name returns the rule name as τ-Argus spells it in batch files
	// ("P", "NK", "FREQ", "ZERO", "REQ", "WGT", "MIS", "MAN").
	Name() string
}

// PRule is P(p), P(p,n) or P(p,q,n): the p% rule (q% rule when q < 100).
// Slot 0 and 1 are individual level, 2 and 3 holding level.
type PRule struct {
	P, Q, N int // defaults q = 100, n = 1
	Slot    int
}

// NKRule is NK(n,k): the (n,k)-dominance rule. Slot 0 and 1 are individual
// level, 2 and 3 holding level; NK(0,0) fills an unused slot.
type NKRule struct {
	N, K int
	Slot int
}

// FreqRule is FREQ(minfreq, range%): the minimum frequency rule. Slot 0 is
// individual level, 1 holding level.
type FreqRule struct {
	MinFreq, Range int
	Slot           int
}

// ZeroRule is ZERO(range): zero cells with contributors are unsafe with the
// given absolute protection range.
type ZeroRule struct {
	Range float64
}

// ReqRule is REQ(p1, p2, minfreq, margin): the request rule. Slot 0 is
// individual level, 1 holding level.
type ReqRule struct {
	P1, P2, MinFreq, Margin int
	Slot                    int
}

// WgtRule is WGT(0|1): apply sampling weights.
type WgtRule struct {
	Apply bool
}

// MisRule is MIS(0|1): with 1, non-empty cells with a missing code are
// safe.
type MisRule struct {
	Safe bool
}

// ManRule is MAN(margin%): the manual safety margin.
type ManRule struct {
	Margin int
}

// Name returns "P".
func (*PRule) Name() string { return "P" }

// Name returns "NK".
func (*NKRule) Name() string { return "NK" }

// Name returns "FREQ".
func (*FreqRule) Name() string { return "FREQ" }

// Name returns "ZERO".
func (*ZeroRule) Name() string { return "ZERO" }

// Name returns "REQ".
func (*ReqRule) Name() string { return "REQ" }

// Name returns "WGT".
func (*WgtRule) Name() string { return "WGT" }

// Name returns "MIS".
func (*MisRule) Name() string { return "MIS" }

// Name returns "MAN".
func (*ManRule) Name() string { return "MAN" }

// Rule limits of τ-Argus.
const (
	MaxPRules    = 4
	MaxNKRules   = 4
	MaxFreqRules = 2
	MaxReqRules  = 2
)

// CheckFrequencyTable returns τ-Argus's error for the first rule that cannot
// be applied to a frequency table (P, NK, ZERO, REQ), or nil. The engine
// calls it when the table the rules apply to is a frequency table.
func (r *SafetyRule) CheckFrequencyTable() error {
	for _, rule := range r.Rules {
		var msg string
		switch rule.(type) {
		case *PRule:
			msg = "p% rule cannot be applied to a frequency table"
		case *NKRule:
			msg = "Dominance rule cannot be applied to a frequency table"
		case *ZeroRule:
			msg = "Zero rule cannot be applied to a frequency table"
		case *ReqRule:
			msg = "Request rule cannot be applied to a frequency table"
		default:
			continue
		}
		return &poserr.Error{Pos: r.Pos, Text: r.Line, Err: errors.New(msg)}
	}
	return nil
}

// parseSafetyRule reads the arguments of <SAFETYRULE> from the scanner.
func (p *parser) parseSafetyRule(h Header) (Command, error) {
	s := p.s
	cmd := &SafetyRule{Header: h, StatusOnly: true}
	ruleType := strings.ToUpper(s.NextField("("))
	if ruleType == "" {
		s.ClearLine()
		return cmd, nil
	}
	// The "(" consumed by NextField is put back in front of the tail.
	tail := lex.NewTail("("+s.Line(), s.Column()-1)
	s.ClearLine()
	var nP, nNK, nFreq, nReq int
	for ruleType != "" {
		if c := tail.Char(); c != "(" {
			return nil, p.tailErr(tail, "A ( is expected here")
		}
		tok, err := tail.Token()
		if err != nil {
			return nil, p.tailErr(tail, "%v", err)
		}
		if ruleType != "MAN" {
			cmd.StatusOnly = false
		}
		// c always holds the last character read from the tail.
		var c string
		arg := func() (string, error) {
			v, err := tail.Token()
			if err != nil {
				return "", p.tailErr(tail, "%v", err)
			}
			return v, nil
		}
		intArg := func(v, what string) (int, error) {
			n, err := lex.ParseInt(v)
			if err != nil {
				return 0, p.tailErr(tail, "Illegal value (%s) for %s in rule %s", v, what, ruleType)
			}
			return n, nil
		}
		// check refuses a parameter outside its range; τ-Argus takes such
		// values and computes nonsense (FREQ(-1,0) protects nothing).
		check := func(ok bool, v int, what, want string) error {
			if !ok {
				return p.tailErr(tail, "Illegal value (%d) for %s in rule %s: must be %s", v, what, ruleType, want)
			}
			return nil
		}
		needComma := func() error {
			if c = tail.Char(); c != "," {
				return p.tailErr(tail, `A "," is expected here`)
			}
			return nil
		}
		switch ruleType {
		case "P":
			if nP >= MaxPRules {
				return nil, p.tailErr(tail, "Too many p%% rules specified")
			}
			r := &PRule{Q: 100, N: 1, Slot: nP}
			if r.P, err = intArg(tok, "p"); err != nil {
				return nil, err
			}
			c = tail.Char()
			if c == "," {
				if tok, err = arg(); err != nil {
					return nil, err
				}
				if r.N, err = intArg(tok, "n"); err != nil {
					return nil, err
				}
				c = tail.Char()
			}
			if c == "," {
				if tok, err = arg(); err != nil {
					return nil, err
				}
				r.Q = r.N
				if r.N, err = intArg(tok, "n"); err != nil {
					return nil, err
				}
				c = tail.Char()
			}
			// p = 0 leaves the slot inactive whatever q and n are: the
			// engine applies a p% rule only when p > 0 (CTable::
			// UnsafeCellPQRule and the protection levels). piargus fills
			// slots with P(0,0), SAS macros write P(0,0,0).
			if err := check(r.P >= 0, r.P, "p", "≥ 0"); err != nil {
				return nil, err
			}
			if r.P > 0 {
				if err := errors.Join(check(r.Q >= 1 && r.Q <= 100, r.Q, "q", "between 1 and 100"),
					check(r.P <= r.Q, r.P, "p", "≤ q"), check(r.N >= 1, r.N, "n", "≥ 1")); err != nil {
					return nil, firstErr(err)
				}
			}
			if nP > 1 && r.P > 0 {
				cmd.Holding = true
			}
			nP++
			cmd.Rules = append(cmd.Rules, r)
		case "NK":
			if nNK >= MaxNKRules {
				return nil, p.tailErr(tail, "Too many nk rules specified")
			}
			r := &NKRule{Slot: nNK}
			if r.N, err = intArg(tok, "n"); err != nil {
				return nil, err
			}
			if err := needComma(); err != nil {
				return nil, err
			}
			if tok, err = arg(); err != nil {
				return nil, err
			}
			if r.K, err = intArg(tok, "k"); err != nil {
				return nil, err
			}
			// NK(0,k) fills an unused slot (n = 0 never fires).
			if err := errors.Join(check(r.N >= 0, r.N, "n", "≥ 0"), check(r.K >= 0 && r.K <= 100, r.K, "k", "between 0 and 100")); err != nil {
				return nil, firstErr(err)
			}
			if nNK > 1 && r.K > 0 {
				cmd.Holding = true
			}
			nNK++
			c = tail.Char()
			cmd.Rules = append(cmd.Rules, r)
		case "FREQ":
			if nFreq >= MaxFreqRules {
				return nil, p.tailErr(tail, "Too many frequency rules specified")
			}
			r := &FreqRule{Slot: nFreq}
			if r.MinFreq, err = intArg(tok, "minimum frequency"); err != nil {
				return nil, err
			}
			if err := needComma(); err != nil {
				return nil, err
			}
			if tok, err = arg(); err != nil {
				return nil, err
			}
			if r.Range, err = intArg(tok, "frequency range"); err != nil {
				return nil, err
			}
			if err := errors.Join(check(r.MinFreq >= 0, r.MinFreq, "minimum frequency", "≥ 0"),
				check(r.Range >= 0 && r.Range <= 100, r.Range, "frequency range", "between 0 and 100")); err != nil {
				return nil, firstErr(err)
			}
			if nFreq > 0 && r.MinFreq > 0 {
				cmd.Holding = true
			}
			nFreq++
			c = tail.Char()
			cmd.Rules = append(cmd.Rules, r)
		case "ZERO":
			x, err := lex.ParseDouble(tok)
			if err != nil || x < 0 {
				return nil, p.tailErr(tail, "Illegal value (%s) for range in rule ZERO", tok)
			}
			cmd.Rules = append(cmd.Rules, &ZeroRule{Range: x})
			c = tail.Char()
		case "REQ":
			if nReq >= MaxReqRules {
				return nil, p.tailErr(tail, "Too many request rules specified")
			}
			r := &ReqRule{Slot: nReq}
			vals := []*int{&r.P1, &r.P2, &r.MinFreq, &r.Margin}
			names := []string{"percentage 1", "percentage 2", "minimum frequency", "safety margin"}
			for i, dst := range vals {
				if i > 0 {
					if err := needComma(); err != nil {
						return nil, err
					}
					if tok, err = arg(); err != nil {
						return nil, err
					}
				}
				if *dst, err = intArg(tok, names[i]); err != nil {
					return nil, err
				}
			}
			if err := errors.Join(check(r.P1 >= 0 && r.P1 <= 100, r.P1, names[0], "between 0 and 100"),
				check(r.P2 >= 0 && r.P2 <= 100, r.P2, names[1], "between 0 and 100"),
				check(r.MinFreq >= 0, r.MinFreq, names[2], "≥ 0"), check(r.Margin >= 0, r.Margin, names[3], "≥ 0")); err != nil {
				return nil, firstErr(err)
			}
			if nReq > 0 && r.P1 > 0 {
				cmd.Holding = true
			}
			nReq++
			c = tail.Char()
			cmd.Rules = append(cmd.Rules, r)
		case "WGT", "MIS":
			if tok != "0" && tok != "1" {
				return nil, p.tailErr(tail, "A 0 or a 1 is expected here")
			}
			if ruleType == "WGT" {
				cmd.Rules = append(cmd.Rules, &WgtRule{Apply: tok == "1"})
			} else {
				cmd.Rules = append(cmd.Rules, &MisRule{Safe: tok == "1"})
			}
			c = tail.Char()
		case "MAN":
			n, err := intArg(tok, "margin")
			if err != nil {
				return nil, err
			}
			if err := check(n >= 0, n, "margin", "≥ 0"); err != nil {
				return nil, err
			}
			cmd.Rules = append(cmd.Rules, &ManRule{Margin: n})
			c = tail.Char()
		default:
			return nil, p.tailErr(tail, "Unknown rule (%s) found", ruleType)
		}
		if c != ")" {
			return nil, p.tailErr(tail, `A ")" is expected here`)
		}
		if c = tail.Char(); c != "|" && c != "" {
			return nil, p.tailErr(tail, `A "|" is expected here`)
		}
		next, err := tail.Token()
		if err != nil {
			return nil, p.tailErr(tail, "%v", err)
		}
		ruleType = strings.ToUpper(next)
	}
	if nP > 0 && !hasActiveP(cmd.Rules) {
		p.warn(h.Pos, "every p% rule has p = 0, so no p% rule is applied (τ-Argus applies a p% rule only when p > 0)")
	}
	return cmd, nil
}

// hasActiveP reports whether one of rules is a p% rule with p > 0.
func hasActiveP(rules []Rule) bool {
	for _, r := range rules {
		if pr, ok := r.(*PRule); ok && pr.P > 0 {
			return true
		}
	}
	return false
}

// firstErr returns the first error joined by errors.Join.
func firstErr(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()[0]
	}
	return err
}
