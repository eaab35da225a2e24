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

// parseSafetyRule reads the arguments of <SAFETYRULE> from the scanner:
// rule after rule, each "TYPE(" with its first argument, the rule's own
// arguments (a stage per kind of rule, see [ruleReader]), then ")" and "|"
// or the end of the line.
func (p *parser) parseSafetyRule(h Header) (Command, error) {
	s := p.s
	cmd := &SafetyRule{Header: h, StatusOnly: true}
	ruleType := strings.ToUpper(s.NextField("("))
	if ruleType == "" {
		s.ClearLine()
		return cmd, nil
	}
	// The "(" consumed by NextField is put back in front of the tail.
	r := &ruleReader{p: p, tail: lex.NewTail("("+s.Line(), s.Column()-1), cmd: cmd}
	s.ClearLine()
	for ruleType != "" {
		r.ruleType = ruleType
		if err := r.rule(); err != nil {
			return nil, err
		}
		next, err := r.tail.Token()
		if err != nil {
			return nil, p.tailErr(r.tail, "%v", err)
		}
		ruleType = strings.ToUpper(next)
	}
	if r.nP > 0 && !hasActiveP(cmd.Rules) {
		p.warn(h.Pos, "every p% rule has p = 0, so no p% rule is applied (τ-Argus applies a p% rule only when p > 0)")
	}
	return cmd, nil
}

// ruleReader reads the rules of one <SAFETYRULE> line from the tail of the
// line, appending them to cmd.
type ruleReader struct {
	p                    *parser
	tail                 *lex.Tail
	cmd                  *SafetyRule
	ruleType             string // the rule being read, upper case
	c                    string // the last character read from the tail
	nP, nNK, nFreq, nReq int    // rules of each kind read so far
}

// rule reads one rule of type r.ruleType from its "(" to the "|" after its
// ")" (or the end of the line).
func (r *ruleReader) rule() error {
	if c := r.tail.Char(); c != "(" {
		return r.err("A ( is expected here")
	}
	tok, err := r.arg()
	if err != nil {
		return err
	}
	if r.ruleType != "MAN" {
		r.cmd.StatusOnly = false
	}
	switch r.ruleType {
	case "P":
		err = r.pRule(tok)
	case "NK":
		err = r.nkRule(tok)
	case "FREQ":
		err = r.freqRule(tok)
	case "ZERO":
		err = r.zeroRule(tok)
	case "REQ":
		err = r.reqRule(tok)
	case "WGT", "MIS":
		err = r.flagRule(tok)
	case "MAN":
		err = r.manRule(tok)
	default:
		return r.err("Unknown rule (%s) found", r.ruleType)
	}
	if err != nil {
		return err
	}
	if r.c != ")" {
		return r.err(`A ")" is expected here`)
	}
	if r.c = r.tail.Char(); r.c != "|" && r.c != "" {
		return r.err(`A "|" is expected here`)
	}
	return nil
}

// err returns the error at the value last read from the tail.
func (r *ruleReader) err(format string, args ...any) error {
	return r.p.tailErr(r.tail, format, args...)
}

// arg reads the next argument.
func (r *ruleReader) arg() (string, error) {
	v, err := r.tail.Token()
	if err != nil {
		return "", r.err("%v", err)
	}
	return v, nil
}

// nextArg reads the "," before the next argument and the argument.
func (r *ruleReader) nextArg() (string, error) {
	if r.c = r.tail.Char(); r.c != "," {
		return "", r.err(`A "," is expected here`)
	}
	return r.arg()
}

// intArg reads v as the integer parameter what.
func (r *ruleReader) intArg(v, what string) (int, error) {
	n, err := lex.ParseInt(v)
	if err != nil {
		return 0, r.err("Illegal value (%s) for %s in rule %s", v, what, r.ruleType)
	}
	return n, nil
}

// check refuses a parameter outside its range; τ-Argus takes such values and
// computes nonsense (FREQ(-1,0) protects nothing).
func (r *ruleReader) check(ok bool, v int, what, want string) error {
	if !ok {
		return r.err("Illegal value (%d) for %s in rule %s: must be %s", v, what, r.ruleType, want)
	}
	return nil
}

// intArgs reads the rule's integer parameters named names into dst, the
// first from tok, the others each after a ",". The caller checks their
// ranges (errors at the last one) before reading the character after them.
func (r *ruleReader) intArgs(tok string, names []string, dst ...*int) error {
	for i, d := range dst {
		if i > 0 {
			var err error
			if tok, err = r.nextArg(); err != nil {
				return err
			}
		}
		n, err := r.intArg(tok, names[i])
		if err != nil {
			return err
		}
		*d = n
	}
	return nil
}

// pRule reads P(p[,n]) or P(p,q,n) (q defaults to 100, n to 1).
func (r *ruleReader) pRule(tok string) error {
	if r.nP >= MaxPRules {
		return r.err("Too many p%% rules specified")
	}
	pr := &PRule{Q: 100, N: 1, Slot: r.nP}
	var err error
	if pr.P, err = r.intArg(tok, "p"); err != nil {
		return err
	}
	r.c = r.tail.Char()
	for k := 0; k < 2 && r.c == ","; k++ {
		if tok, err = r.arg(); err != nil {
			return err
		}
		if k == 1 {
			pr.Q = pr.N
		}
		if pr.N, err = r.intArg(tok, "n"); err != nil {
			return err
		}
		r.c = r.tail.Char()
	}
	// p = 0 leaves the slot inactive whatever q and n are: the engine
	// applies a p% rule only when p > 0 (CTable::UnsafeCellPQRule and the
	// protection levels). piargus fills slots with P(0,0), SAS macros
	// write P(0,0,0).
	if err := r.check(pr.P >= 0, pr.P, "p", "≥ 0"); err != nil {
		return err
	}
	if pr.P > 0 {
		if err := errors.Join(r.check(pr.Q >= 1 && pr.Q <= 100, pr.Q, "q", "between 1 and 100"),
			r.check(pr.P <= pr.Q, pr.P, "p", "≤ q"), r.check(pr.N >= 1, pr.N, "n", "≥ 1")); err != nil {
			return firstErr(err)
		}
	}
	r.addSlotted(pr, &r.nP, 2, pr.P > 0)
	return nil
}

// addSlotted appends a rule of a family with numbered slots, *n of which
// are taken already: an active rule in slot holdingFrom or later is a
// holding rule (τ-Argus's slots for the individual level come first).
func (r *ruleReader) addSlotted(rule Rule, n *int, holdingFrom int, active bool) {
	if *n >= holdingFrom && active {
		r.cmd.Holding = true
	}
	*n++
	r.cmd.Rules = append(r.cmd.Rules, rule)
}

// nkRule reads NK(n,k).
func (r *ruleReader) nkRule(tok string) error {
	if r.nNK >= MaxNKRules {
		return r.err("Too many nk rules specified")
	}
	nk := &NKRule{Slot: r.nNK}
	if err := r.intArgs(tok, []string{"n", "k"}, &nk.N, &nk.K); err != nil {
		return err
	}
	// NK(0,k) fills an unused slot (n = 0 never fires).
	if err := errors.Join(r.check(nk.N >= 0, nk.N, "n", "≥ 0"), r.check(nk.K >= 0 && nk.K <= 100, nk.K, "k", "between 0 and 100")); err != nil {
		return firstErr(err)
	}
	r.addSlotted(nk, &r.nNK, 2, nk.K > 0)
	r.c = r.tail.Char()
	return nil
}

// freqRule reads FREQ(minimum frequency, frequency range).
func (r *ruleReader) freqRule(tok string) error {
	if r.nFreq >= MaxFreqRules {
		return r.err("Too many frequency rules specified")
	}
	fr := &FreqRule{Slot: r.nFreq}
	if err := r.intArgs(tok, []string{"minimum frequency", "frequency range"}, &fr.MinFreq, &fr.Range); err != nil {
		return err
	}
	if err := errors.Join(r.check(fr.MinFreq >= 0, fr.MinFreq, "minimum frequency", "≥ 0"),
		r.check(fr.Range >= 0 && fr.Range <= 100, fr.Range, "frequency range", "between 0 and 100")); err != nil {
		return firstErr(err)
	}
	r.addSlotted(fr, &r.nFreq, 1, fr.MinFreq > 0)
	r.c = r.tail.Char()
	return nil
}

// zeroRule reads ZERO(range).
func (r *ruleReader) zeroRule(tok string) error {
	x, err := lex.ParseDouble(tok)
	if err != nil || x < 0 {
		return r.err("Illegal value (%s) for range in rule ZERO", tok)
	}
	r.cmd.Rules = append(r.cmd.Rules, &ZeroRule{Range: x})
	r.c = r.tail.Char()
	return nil
}

// reqRule reads REQ(percentage 1, percentage 2, minimum frequency, safety
// margin).
func (r *ruleReader) reqRule(tok string) error {
	if r.nReq >= MaxReqRules {
		return r.err("Too many request rules specified")
	}
	rq := &ReqRule{Slot: r.nReq}
	names := []string{"percentage 1", "percentage 2", "minimum frequency", "safety margin"}
	if err := r.intArgs(tok, names, &rq.P1, &rq.P2, &rq.MinFreq, &rq.Margin); err != nil {
		return err
	}
	if err := errors.Join(r.check(rq.P1 >= 0 && rq.P1 <= 100, rq.P1, names[0], "between 0 and 100"),
		r.check(rq.P2 >= 0 && rq.P2 <= 100, rq.P2, names[1], "between 0 and 100"),
		r.check(rq.MinFreq >= 0, rq.MinFreq, names[2], "≥ 0"), r.check(rq.Margin >= 0, rq.Margin, names[3], "≥ 0")); err != nil {
		return firstErr(err)
	}
	r.addSlotted(rq, &r.nReq, 1, rq.P1 > 0)
	r.c = r.tail.Char()
	return nil
}

// flagRule reads WGT(0|1) or MIS(0|1).
func (r *ruleReader) flagRule(tok string) error {
	if tok != "0" && tok != "1" {
		return r.err("A 0 or a 1 is expected here")
	}
	if r.ruleType == "WGT" {
		r.cmd.Rules = append(r.cmd.Rules, &WgtRule{Apply: tok == "1"})
	} else {
		r.cmd.Rules = append(r.cmd.Rules, &MisRule{Safe: tok == "1"})
	}
	r.c = r.tail.Char()
	return nil
}

// manRule reads MAN(margin).
func (r *ruleReader) manRule(tok string) error {
	n, err := r.intArg(tok, "margin")
	if err != nil {
		return err
	}
	if err := r.check(n >= 0, n, "margin", "≥ 0"); err != nil {
		return err
	}
	r.cmd.Rules = append(r.cmd.Rules, &ManRule{Margin: n})
	r.c = r.tail.Char()
	return nil
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
