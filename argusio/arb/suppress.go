package arb

import (
	"errors"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
)

// Suppress is <SUPPRESS> METHOD(TabNo[,params...]).
type Suppress struct {
	Header
	// Method is the method name, upper-cased ("GH", "MOD", ...).
	Method string
	// Table is the 1-based table number; 0 means all tables, linked (only
	// GH and MOD in τ-Argus). The upper bound is checked at run time.
	Table int
	// Params holds the parsed parameters: *GHParams, *MODParams,
	// *OPTParams, *NETParams, *RNDParams, *CTAParams, *CKMArgs, or
	// *GenericParams for a method τ-Argus does not know (a plugin may;
	// otherwise the engine reports "Unknown suppression method (X) found").
	Params MethodParams
}

// MethodParams is the parameter set of one suppression method.
type MethodParams interface {
	// MethodName returns the method code ("GH", "MOD", ...).
	MethodName() string
}

// GHParams are the parameters of the hypercube method,
// GH(t[,apriori%[,model[,singleton]]]). Only the first Given values were
// written; τ-Argus keeps the table's current values for the others
// (initially the defaults 100, 0, true).
type GHParams struct {
	AprioriPct int  // a-priori bound percentage
	ModelSize  int  // 0 = normal, 1 = large
	Singleton  bool // singleton protection ("1" = on)
	Given      int
}

// MODParams are the parameters of the modular method,
// MOD(t[,maxtime[,ss[,sm[,mf[,msc[,lm[,um]]]]]]]). Only the first Given
// values were written; τ-Argus keeps the table's current values for the
// others (initially: maxtime from the registry, else 1; the three flags on;
// msc 20000; margins 0.99 and 1.01). For linked tables (Table 0) nothing
// after the three flags is read.
type MODParams struct {
	MaxTime            int // minutes per sub-table
	SingletonSingleton bool
	SingletonMultiple  bool
	MinFreq            bool
	MaxScaleCost       float64
	LowerMargin        float64
	UpperMargin        float64
	Given              int
}

// OPTParams are the parameters of the optimal method, OPT(t[,maxtime]).
type OPTParams struct {
	MaxTime int // computing time; table's current value (default 10) unless Given
	Given   int
}

// NETParams: NET(t) has no parameters.
type NETParams struct{}

// CTAParams: CTA(t) has no parameters.
type CTAParams struct{}

// RNDParams are the parameters of controlled rounding,
// RND(t,base[,steps[,time[,part[,stop[,unitcost]]]]]). Omitted values
// are the defaults (steps 0, time 10, partitions 0, stop rule 2); UnitCost
// keeps the table's current value (default true) unless given (Given = 6).
type RNDParams struct {
	Base       int
	Steps      int
	MaxTime    int
	Partitions int
	StopRule   int
	UnitCost   bool
	Given      int // number of values written, base included
}

// CKMArgs holds what follows "CKM(t)": optional p-table file names and muC,
// whose syntax depends on whether the table is a frequency table (known only
// at run time); see [CKMArgs.Parse].
type CKMArgs struct {
	// Rest is the text after the closing ")", untrimmed.
	Rest string
}

// GenericParams are the parameters of a method τ-Argus does not know, kept
// as written so that a plugin can interpret them.
type GenericParams struct {
	Name string
	// Args are the comma-separated arguments after the table number,
	// trimmed, one pair of quotes removed.
	Args []string
	// Rest is the text after the closing ")".
	Rest string
}

// MethodName returns "GH".
func (*GHParams) MethodName() string { return "GH" }

// MethodName returns "MOD".
func (*MODParams) MethodName() string { return "MOD" }

// MethodName returns "OPT".
func (*OPTParams) MethodName() string { return "OPT" }

// MethodName returns "NET".
func (*NETParams) MethodName() string { return "NET" }

// MethodName returns "CTA".
func (*CTAParams) MethodName() string { return "CTA" }

// MethodName returns "RND".
func (*RNDParams) MethodName() string { return "RND" }

// MethodName returns "CKM".
func (*CKMArgs) MethodName() string { return "CKM" }

// MethodName returns the method name as written (upper-cased).
func (g *GenericParams) MethodName() string { return g.Name }

// CKMFiles are the run-time parameters of CKM read from the batch line.
// Empty strings mean "not given" (the .rda values stay in force).
type CKMFiles struct {
	PTable     string // frequency tables: p-table
	PTableCont string // magnitude tables: p-table for continuous values
	PTableSep  string // magnitude tables: p-table for small cells
	MuC        float64
	HasMuC     bool
}

// Parse interprets the text after CKM(t) like τ-Argus: for a frequency
// table the whole rest (trimmed, unquoted) is the p-table file; for a
// magnitude table it is "ptCont | ptSep | muC" where every part may be
// empty and nothing is read unless the rest contains one of "( , ) |".
// A part starting with "//" ends the parameters (a comment). File names
// are returned as written; resolve them with [Resolver.Input].
func (a *CKMArgs) Parse(magnitude bool) (CKMFiles, error) {
	var f CKMFiles
	rest := a.Rest
	if rest == "" {
		return f, nil
	}
	if !magnitude {
		hs := lex.UnquoteField(lex.Trim(rest))
		if !strings.HasPrefix(hs, "//") {
			f.PTable = hs
		}
		return f, nil
	}
	t := lex.NewTail(rest, 1)
	if !t.HasToken() {
		return f, nil
	}
	tok, err := t.Token()
	if err != nil {
		return f, err
	}
	if strings.HasPrefix(tok, "//") {
		return f, nil
	}
	f.PTableCont = tok
	if t.Char() != "|" {
		return f, nil
	}
	if !t.HasToken() { // τ-Argus fails here; treat the rest as the file
		f.PTableSep = lex.UnquoteField(lex.Trim(t.Rest()))
		return f, nil
	}
	if tok, err = t.Token(); err != nil {
		return f, err
	}
	if strings.HasPrefix(tok, "//") {
		return f, nil
	}
	f.PTableSep = tok
	if t.Char() != "|" || t.Rest() == "" {
		return f, nil
	}
	x, err := lex.ParseDouble(t.Rest())
	if err != nil {
		return f, errors.New("muC = " + t.Rest() + " is not a double")
	}
	f.MuC, f.HasMuC = x, true
	return f, nil
}

// parseSuppress reads the arguments of <SUPPRESS>.
func (p *parser) parseSuppress(h Header) (Command, error) {
	s := p.s
	method := strings.ToUpper(s.NextField("("))
	tail := lex.NewTail(s.Line(), s.Column())
	s.ClearLine()
	cmd := &Suppress{Header: h, Method: method}
	tok, err := tail.Token()
	if err != nil {
		return nil, p.tailErr(tail, "%v", err)
	}
	n, err := lex.ParseInt(tok)
	if err != nil {
		return nil, p.tailErr(tail, "Illegal table number (%s) in <SUPPRESS>", tok)
	}
	if n < 0 {
		return nil, p.tailErr(tail, "Wrong table number in <SUPPRESS>")
	}
	cmd.Table = n
	linked := n == 0
	switch method {
	case "OPT", "RND", "NET", "CTA", "CKM":
		if linked {
			return nil, p.tailErr(tail, "Linked tables is only possible for Modular or Hypercube")
		}
	}
	sp := suppressParser{p: p, t: tail, method: method}
	switch method {
	case "GH":
		cmd.Params, err = sp.gh()
	case "MOD":
		cmd.Params, err = sp.mod(linked)
	case "OPT":
		cmd.Params, err = sp.opt()
	case "RND":
		cmd.Params, err = sp.rnd()
	case "NET":
		cmd.Params = &NETParams{}
	case "CTA":
		cmd.Params = &CTAParams{}
	case "CKM":
		if c := tail.Char(); c != ")" {
			return nil, p.tailErr(tail, "A ) is expected here")
		}
		cmd.Params = &CKMArgs{Rest: tail.Rest()}
	default:
		cmd.Params, err = sp.generic()
	}
	if err != nil {
		return nil, err
	}
	return cmd, nil
}

type suppressParser struct {
	p      *parser
	t      *lex.Tail
	method string
	c      string // last character read
}

func (sp *suppressParser) char() string {
	sp.c = sp.t.Char()
	return sp.c
}

func (sp *suppressParser) token() (string, error) {
	tok, err := sp.t.Token()
	if err != nil {
		return "", sp.p.tailErr(sp.t, "%v", err)
	}
	return tok, nil
}

// intArg reads the next token as a Java int.
func (sp *suppressParser) intArg(what string) (int, error) {
	tok, err := sp.token()
	if err != nil {
		return 0, err
	}
	n, err := lex.ParseInt(tok)
	if err != nil {
		return 0, sp.p.tailErr(sp.t, "Illegal value (%s) for %s in %s", tok, what, sp.method)
	}
	return n, nil
}

func (sp *suppressParser) gh() (MethodParams, error) {
	g := &GHParams{AprioriPct: 100, ModelSize: 0, Singleton: true}
	var err error
	if sp.char() == "," {
		if g.AprioriPct, err = sp.intArg("a priori percentage"); err != nil {
			return nil, err
		}
		g.Given++
		sp.char()
	}
	if sp.c == "," {
		if g.ModelSize, err = sp.intArg("model size"); err != nil {
			return nil, err
		}
		g.Given++
		sp.char()
	}
	if sp.c == "," {
		tok, err := sp.token()
		if err != nil {
			return nil, err
		}
		g.Singleton = tok == "1"
		g.Given++
		sp.char()
	}
	return g, sp.noMore(4, "t, a priori percentage, model size, singleton")
}

func (sp *suppressParser) mod(linked bool) (MethodParams, error) {
	m := &MODParams{MaxTime: 1, SingletonSingleton: true, SingletonMultiple: true, MinFreq: true,
		MaxScaleCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	var err error
	if sp.char() == "," {
		if m.MaxTime, err = sp.intArg("max time"); err != nil {
			return nil, err
		}
		m.Given++
		sp.char()
	}
	flags := []*bool{&m.SingletonSingleton, &m.SingletonMultiple, &m.MinFreq}
	for i := 0; sp.c == "," && i < len(flags); i++ {
		tok, err := sp.token()
		if err != nil {
			return nil, err
		}
		*flags[i] = tok == "1"
		m.Given++
		sp.char()
	}
	if linked {
		return m, sp.noMore(5, "t, max time, singleton-singleton, singleton-multiple, min frequency (linked tables)")
	}
	doubles := []*float64{&m.MaxScaleCost, &m.LowerMargin, &m.UpperMargin}
	for i := 0; sp.c == "," && i < len(doubles); i++ {
		tok, err := sp.token()
		if err != nil {
			return nil, err
		}
		x, err := lex.ToDouble(tok)
		if err != nil {
			return nil, sp.p.tailErr(sp.t, "%v", err)
		}
		if i == 0 && x <= 0 {
			return nil, sp.p.tailErr(sp.t, "Illegal Max Scaling Cost: %s", tok)
		}
		*doubles[i] = x
		m.Given++
		sp.char()
	}
	return m, sp.noMore(8, "t, max time, singleton-singleton, singleton-multiple, min frequency, max scaling cost, lower margin, upper margin")
}

func (sp *suppressParser) opt() (MethodParams, error) {
	o := &OPTParams{MaxTime: 10}
	if sp.char() == "," {
		var err error
		if o.MaxTime, err = sp.intArg("max time"); err != nil {
			return nil, err
		}
		o.Given++
		sp.char()
	}
	return o, sp.noMore(2, "t, max time")
}

func (sp *suppressParser) rnd() (MethodParams, error) {
	r := &RNDParams{Steps: 0, MaxTime: 10, Partitions: 0, StopRule: 2, UnitCost: true}
	p := sp.p
	if sp.char() != "," {
		return nil, p.tailErr(sp.t, "a komma(,) expected")
	}
	var err error
	if r.Base, err = sp.intArg("rounding base"); err != nil {
		return nil, err
	}
	r.Given = 1
	sp.char()
	steps := []func() error{
		func() error { // steps: StrUtils.toInteger
			tok, err := sp.token()
			if err != nil {
				return err
			}
			if r.Steps, err = lex.ToInteger(tok); err != nil {
				return p.tailErr(sp.t, "%v", err)
			}
			return nil
		},
		func() error {
			if r.MaxTime, err = sp.intArg("max time"); err != nil {
				return err
			}
			if r.MaxTime <= 0 {
				return p.tailErr(sp.t, "Illegal value for max time: %d", r.MaxTime)
			}
			return nil
		},
		func() error {
			if r.Partitions, err = sp.intArg("partitions"); err != nil {
				return err
			}
			if r.Partitions < 0 || r.Partitions > 1 {
				return p.tailErr(sp.t, "Illegal value for partitions: %d", r.Partitions)
			}
			return nil
		},
		func() error {
			if r.StopRule, err = sp.intArg("stopping rule"); err != nil {
				return err
			}
			if r.StopRule <= 0 || r.StopRule > 2 {
				// τ-Argus's message names the wrong parameter.
				return p.tailErr(sp.t, "Illegal value for max time: %d", r.StopRule)
			}
			return nil
		},
		func() error {
			tok, err := sp.token()
			if err != nil {
				return err
			}
			switch tok {
			case "1":
				r.UnitCost = true
			case "0":
				r.UnitCost = false
			default:
				return p.tailErr(sp.t, "Illegal value UnitCost parameter: only 0 or 1 allowed")
			}
			return nil
		},
	}
	for _, step := range steps {
		if sp.c == "," {
			if err := step(); err != nil {
				return nil, err
			}
			r.Given++
			sp.char()
		} else if sp.c != ")" {
			return nil, p.tailErr(sp.t, `a komma(,) or ")" expected`)
		}
	}
	return r, sp.noMore(7, "t, rounding base, steps, max time, partitions, stopping rule, unit cost")
}

// noMore refuses arguments beyond the n the method takes (names lists
// them): τ-Argus ignores them silently, so GH(1,100,0,1,7,8) looked like
// a job that set two more parameters.
func (sp *suppressParser) noMore(n int, names string) error {
	if sp.c != "," {
		return nil
	}
	return sp.p.tailErr(sp.t, "too many arguments for %s: it takes at most %d (%s)", sp.method, n, names)
}

// generic reads ", arg" pairs up to the closing ")".
func (sp *suppressParser) generic() (MethodParams, error) {
	g := &GenericParams{Name: sp.method}
	for sp.char() == "," {
		tok, err := sp.token()
		if err != nil {
			return nil, err
		}
		g.Args = append(g.Args, tok)
	}
	if sp.c != ")" {
		return nil, sp.p.tailErr(sp.t, "A ) is expected here")
	}
	g.Rest = sp.t.Rest()
	return g, nil
}
