package tablegen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Values selects how the values of the bottom cells (every code a leaf) are
// drawn; the other cells are their sums.
type Values int

const (
	// ValuesUniform: a cell is empty with probability Spec.ZeroProb, else
	// its value is uniform on the whole numbers 1..1000 and its frequency
	// uniform on 1..Spec.MaxFreq (Castro's 2-D and 1H2D generators).
	ValuesUniform Values = iota
	// ValuesRoehrig: values 0…3 with probability 0.9, else 500…1000 (the
	// 3-D tables of Roehrig et al.); a zero cell is empty.
	ValuesRoehrig
	// ValuesMicro: Spec.Units units, each in a bottom cell drawn uniformly
	// and with a log-normal(8, 1.5) magnitude rounded up to a whole number;
	// a cell's value, frequency and top contributions are those of its
	// units (the τ-Argus pipeline on synthetic microdata).
	ValuesMicro
)

var valuesNames = []string{"uniform", "roehrig", "micro"}

// String returns the name ParseValues accepts.
func (v Values) String() string { return enumName(valuesNames, int(v), "Values") }

// ParseValues parses a value model name: uniform, roehrig or micro.
func ParseValues(s string) (Values, error) {
	if i, ok := enumIndex(valuesNames, s); ok {
		return Values(i), nil
	}
	return 0, fmt.Errorf("value model %q: want uniform, roehrig or micro", s)
}

// enumName returns names[v], or typ(v) for a value outside names.
func enumName(names []string, v int, typ string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}

// enumIndex returns the index of s (trimmed, any case) in names.
func enumIndex(names []string, s string) (int, bool) {
	for i, n := range names {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return i, true
		}
	}
	return 0, false
}

// RuleKind is a primary (sensitivity) rule.
type RuleKind int

const (
	// RuleDefault is the rule of a spec that names none: the published
	// number of sensitive cells for a preset that has one (RuleCount), else
	// RuleFraction with 10 %.
	RuleDefault RuleKind = iota
	// RuleFraction marks round(Fraction × cells) of the non-empty bottom
	// cells sensitive, drawn at random (Castro's generators; the fraction
	// is of all cells, as the papers count it).
	RuleFraction
	// RuleCount marks Count non-empty bottom cells sensitive at random.
	RuleCount
	// RuleDominance is the (N,K) dominance rule on every non-empty cell:
	// sensitive when the N largest contributions exceed K % of the value.
	RuleDominance
	// RulePercent is the p% rule: sensitive when the value minus the two
	// largest contributions is less than P % of the largest.
	RulePercent
	// RuleFrequency is the minimum frequency rule: sensitive when
	// 0 < frequency < N.
	RuleFrequency
)

// Rule is a primary rule with its parameters.
type Rule struct {
	Kind     RuleKind
	Fraction float64 // RuleFraction
	Count    int     // RuleCount
	N        int     // RuleDominance, RuleFrequency
	K        float64 // RuleDominance (percent)
	P        float64 // RulePercent (percent)
}

// String returns the rule in the syntax of ParseRule.
func (r Rule) String() string {
	switch r.Kind {
	case RuleFraction:
		return "frac:" + shortest(r.Fraction)
	case RuleCount:
		return "count:" + strconv.Itoa(r.Count)
	case RuleDominance:
		return "nk:" + strconv.Itoa(r.N) + "," + shortest(r.K)
	case RulePercent:
		return "p:" + shortest(r.P)
	case RuleFrequency:
		return "freq:" + strconv.Itoa(r.N)
	}
	return "rule(" + strconv.Itoa(int(r.Kind)) + ")"
}

// shortest writes x in the shortest form that parses back to x.
func shortest(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ErrSyntax marks a malformed rule, protection or option string.
var ErrSyntax = errors.New("invalid generator option")

func parseNum(s, what string, lo, hi float64) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || x < lo || x > hi {
		return 0, fmt.Errorf("%w: %s %q is not a number in [%g, %g]", ErrSyntax, what, s, lo, hi)
	}
	return x, nil
}

func parseInt(s, what string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s %q is not a whole number in %d..%d", ErrSyntax, what, s, lo, hi)
	}
	return n, nil
}

// ruleSyntax lists the forms of a primary rule.
const ruleSyntax = "want frac:F, count:K, nk:N,K, p:P or freq:N"

// ParseRule parses a primary rule: "frac:F" (0 ≤ F ≤ 1), "count:K",
// "nk:N,K" (1 ≤ N ≤ 10, 0 < K ≤ 100), "p:P" (0 < P ≤ 100) or "freq:N".
func ParseRule(s string) (Rule, error) {
	name, arg, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Rule{}, fmt.Errorf("%w: primary rule %q: "+ruleSyntax, ErrSyntax, s)
	}
	var r Rule
	var err error
	switch strings.ToLower(name) {
	case "frac":
		r.Kind = RuleFraction
		r.Fraction, err = parseNum(arg, "fraction", 0, 1)
	case "count":
		r.Kind = RuleCount
		r.Count, err = parseInt(arg, "count", 0, maxCells)
	case "nk":
		r.Kind = RuleDominance
		ns, ks, ok := strings.Cut(arg, ",")
		if !ok {
			return Rule{}, fmt.Errorf("%w: dominance rule %q: want nk:N,K", ErrSyntax, s)
		}
		if r.N, err = parseInt(ns, "n", 1, maxTop); err == nil {
			r.K, err = parseNum(ks, "k", math.SmallestNonzeroFloat64, 100)
		}
	case "p":
		r.Kind = RulePercent
		r.P, err = parseNum(arg, "p", math.SmallestNonzeroFloat64, 100)
	case "freq":
		r.Kind = RuleFrequency
		r.N, err = parseInt(arg, "frequency", 1, math.MaxInt32)
	default:
		return Rule{}, fmt.Errorf("%w: primary rule %q: "+ruleSyntax, ErrSyntax, s)
	}
	if err != nil {
		return Rule{}, fmt.Errorf("primary rule: %w", err)
	}
	return r, nil
}

// maxTop is the largest number of top contributions kept per cell.
const maxTop = 10

// Protection says how the protection levels of the primaries are set. With
// FromRule the levels are τ-Argus's formulas of the dominance and p% rules
// (symmetric): (100/K)·(x1+…+xN) − X and (P/100)·x1 − (X − x1 − x2).
// Otherwise LPL = Lower·a and UPL = Upper·a (symmetric when equal).
// Levels are rounded up to whole units, the generated values having no
// decimals, so every output carries the same levels.
type Protection struct {
	FromRule     bool
	Lower, Upper float64
}

// String returns the protection in the syntax of ParseProtection.
func (p Protection) String() string {
	if p.FromRule {
		return "rule"
	}
	if p.Lower == p.Upper {
		return "frac:" + shortest(p.Lower)
	}
	return "frac:" + shortest(p.Lower) + "," + shortest(p.Upper)
}

// ParseProtection parses protection levels: "frac:F" (symmetric, F of the
// value), "frac:L,U" (asymmetric: lower L, upper U of the value) or "rule".
func ParseProtection(s string) (Protection, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "rule") {
		return Protection{FromRule: true}, nil
	}
	arg, ok := strings.CutPrefix(strings.ToLower(s), "frac:")
	if !ok {
		return Protection{}, fmt.Errorf("%w: protection %q: want frac:F, frac:L,U or rule", ErrSyntax, s)
	}
	ls, us, asym := strings.Cut(arg, ",")
	l, err := parseNum(ls, "protection fraction", 0, 100)
	if err != nil {
		return Protection{}, err
	}
	u := l
	if asym {
		if u, err = parseNum(us, "upper protection fraction", 0, 100); err != nil {
			return Protection{}, err
		}
	}
	if l == 0 && u == 0 {
		return Protection{}, fmt.Errorf("%w: protection %q: both levels are zero", ErrSyntax, s)
	}
	return Protection{Lower: l, Upper: u}, nil
}

// CostKind is the cost of suppressing (or adjusting) a cell.
type CostKind int

const (
	CostValue   CostKind = iota // w = a (the CSP convention; τ-Argus's default)
	CostUnit                    // w = 1 (τ-Argus's cost −2; a CTA convention)
	CostFreq                    // w = frequency (τ-Argus's cost −1)
	CostInverse                 // w = 1/a (a CTA convention; the problem and JJ only)
)

var costNames = []string{"value", "unit", "freq", "inverse"}

// String returns the name ParseCost accepts.
func (c CostKind) String() string { return enumName(costNames, int(c), "CostKind") }

// ParseCost parses a cost convention: value, unit, freq or inverse.
func ParseCost(s string) (CostKind, error) {
	if i, ok := enumIndex(costNames, s); ok {
		return CostKind(i), nil
	}
	return 0, fmt.Errorf("%w: cost %q: want value, unit, freq or inverse", ErrSyntax, s)
}

// Spec is a generator request. A Spec with only a Shape is valid: uniform
// values, the default primary rule (see [RuleDefault]), symmetric levels of
// 20 %, cost = value, τ-Argus's bounds, seed 0. [Instance.Spec] holds the
// spec with these defaults filled in.
type Spec struct {
	// Shape is the table shape ([ParseShape]).
	Shape string
	// Seed makes the table: the same spec gives the same table, byte for
	// byte in every output.
	Seed uint64
	// Values is the value model of the bottom cells.
	Values Values
	// ZeroProb is the probability that a bottom cell is empty
	// (ValuesUniform); 0 means 0.1. Use a negative value for none.
	ZeroProb float64
	// MaxFreq is the largest frequency of a bottom cell (ValuesUniform,
	// ValuesRoehrig); 0 means 10.
	MaxFreq int
	// Units is the number of units (ValuesMicro); 0 means 3 per bottom cell.
	Units int
	// Primary is the primary rule; the zero value is RuleDefault.
	Primary Rule
	// Protection sets the protection levels; the zero value means 20 %
	// symmetric.
	Protection Protection
	// Cost is the cost convention.
	Cost CostKind
	// BoundFactor sets the a-priori upper bound of every cell to
	// BoundFactor × the largest cell value (lower bound 0), widened to
	// cover the protection levels; 0 means 1.5, τ-Argus's bounds (the only
	// ones a τ-Argus job can carry).
	BoundFactor float64
}

// normalize returns s with the defaults filled in and checks it.
func (s Spec) normalize() (Spec, []Hierarchy, error) {
	dims, err := ParseShape(s.Shape)
	if err != nil {
		return s, nil, err
	}
	if s.ZeroProb == 0 {
		s.ZeroProb = 0.1
	}
	if s.ZeroProb < 0 {
		s.ZeroProb = 0
	}
	if s.ZeroProb >= 1 || math.IsNaN(s.ZeroProb) {
		return s, nil, fmt.Errorf("%w: zero probability %g not below 1", ErrSyntax, s.ZeroProb)
	}
	if s.MaxFreq == 0 {
		s.MaxFreq = 10
	}
	if s.MaxFreq < 1 {
		return s, nil, fmt.Errorf("%w: largest frequency %d below 1", ErrSyntax, s.MaxFreq)
	}
	if s.Units < 0 || s.Units > 10*maxCells {
		return s, nil, fmt.Errorf("%w: %d units", ErrSyntax, s.Units)
	}
	if s.Values < ValuesUniform || s.Values > ValuesMicro {
		return s, nil, fmt.Errorf("%w: value model %d", ErrSyntax, s.Values)
	}
	if s.Primary.Kind == RuleDefault {
		if k, ok := presetPrimaries[shapeKey(s.Shape)]; ok {
			s.Primary = Rule{Kind: RuleCount, Count: k}
		} else {
			s.Primary = Rule{Kind: RuleFraction, Fraction: 0.1}
		}
	}
	if err := s.Primary.check(); err != nil {
		return s, nil, err
	}
	if s.Protection == (Protection{}) {
		s.Protection = Protection{Lower: 0.2, Upper: 0.2}
	}
	p := s.Protection
	if p.FromRule && s.Primary.Kind != RuleDominance && s.Primary.Kind != RulePercent {
		return s, nil, fmt.Errorf("%w: protection levels from the rule need a dominance or p%% rule, not %s", ErrSyntax, s.Primary)
	}
	if !p.FromRule && (!(p.Lower >= 0 && p.Upper >= 0) || p.Lower+p.Upper == 0 || math.IsInf(p.Lower+p.Upper, 0)) {
		return s, nil, fmt.Errorf("%w: protection fractions %g, %g", ErrSyntax, p.Lower, p.Upper)
	}
	if s.Cost < CostValue || s.Cost > CostInverse {
		return s, nil, fmt.Errorf("%w: cost %d", ErrSyntax, s.Cost)
	}
	if s.BoundFactor == 0 {
		s.BoundFactor = 1.5
	}
	if !(s.BoundFactor >= 1) || math.IsInf(s.BoundFactor, 0) {
		return s, nil, fmt.Errorf("%w: bound factor %g below 1", ErrSyntax, s.BoundFactor)
	}
	return s, dims, nil
}

func (r Rule) check() error {
	ok := true
	switch r.Kind {
	case RuleFraction:
		ok = r.Fraction >= 0 && r.Fraction <= 1
	case RuleCount:
		ok = r.Count >= 0
	case RuleDominance:
		ok = r.N >= 1 && r.N <= maxTop && r.K > 0 && r.K <= 100
	case RulePercent:
		ok = r.P > 0 && r.P <= 100
	case RuleFrequency:
		ok = r.N >= 1
	default:
		ok = false
	}
	if !ok {
		return fmt.Errorf("%w: primary rule %s", ErrSyntax, r)
	}
	return nil
}

// topN is the number of top contributions a rule needs.
func (r Rule) topN() int {
	switch r.Kind {
	case RuleDominance:
		return r.N
	case RulePercent:
		return 2
	}
	return 0
}
