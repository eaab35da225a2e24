package tablegen

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

func generate(t testing.TB, s Spec) *Instance {
	t.Helper()
	in, err := Generate(t.Context(), s)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", s, err)
	}
	return in
}

func nnz(p *pluginsdk.Problem) int { return len(p.Relations.Cell) }

func primaries(p *pluginsdk.Problem) int {
	n := 0
	for _, s := range p.Cells.Status {
		if s.IsPrimary() {
			n++
		}
	}
	return n
}

// TestPublishedShapes checks the presets against the sizes published for
// the instances they stand for: cells n, relations m, nonzeros of A and
// sensitive cells.
func TestPublishedShapes(t *testing.T) {
	for _, tc := range []struct {
		shape           string
		n, m, nnz, prim int // nnz −1: not published
	}{
		// Baena, Castro & González (2017), Table 1.
		{"castro1", 1444, 171, 2964, 135},
		{"castro2", 2544, 303, 5216, 237},
		{"castro3", 2108, 243, 4318, 196},
		{"castro4", 1444, 152, 2945, 216},
		{"castro5", 1488, 173, 3040, 220},
		{"castro6", 1411, 168, 2890, 209},
		// CSPLIB hier13x13x13a–e and hier16x16x16a–e.
		{"hier13x13x13", 2197, 3549, -1, 108},
		{"hier16x16x16", 4096, 5376, -1, 224},
		{"hier13×13×13", 2197, 3549, -1, 108},
		// Stand-ins for the CSPLIB's hier13 and hier16 (2 020 and 3 564
		// cells, 112 and 224 sensitive): full grids of the same hierarchies.
		{"hier13", 2197, 3549, -1, 112},
		{"hier16", 4096, 5376, -1, 224},
	} {
		t.Run(tc.shape, func(t *testing.T) {
			in := generate(t, Spec{Shape: tc.shape, Seed: 1})
			p := in.Problem
			if p.NumCells() != tc.n || p.NumRelations() != tc.m || (tc.nnz >= 0 && nnz(p) != tc.nnz) || primaries(p) != tc.prim {
				t.Errorf("n %d, m %d, nnz %d, primaries %d; want %d, %d, %d, %d",
					p.NumCells(), p.NumRelations(), nnz(p), primaries(p), tc.n, tc.m, tc.nnz, tc.prim)
			}
		})
	}
}

// TestShapes checks the term grammar on hand-countable shapes.
func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		shape   string
		codes   []int
		parents []int
	}{
		{"3x4", []int{4, 5}, []int{1, 1}},
		{"t2.3", []int{9}, []int{3}},
		{"t3.2xt3.2x9x9", []int{10, 10, 10, 10}, []int{4, 4, 1, 1}},
		{"h11", []int{11}, []int{7}},
		{"h16", []int{16}, []int{7}},
		{"r10p1", []int{10}, []int{1}},
		{"r76p5", []int{76}, []int{5}},
		{" NINE5D ", []int{7, 7, 6, 6, 6}, []int{3, 3, 1, 1, 1}},
	} {
		dims, err := ParseShape(tc.shape)
		if err != nil {
			t.Errorf("%q: %v", tc.shape, err)
			continue
		}
		for d, h := range dims {
			if d >= len(tc.codes) || h.Len() != tc.codes[d] || h.Parents() != tc.parents[d] {
				t.Errorf("%q dimension %d: %d codes, %d parents; want %v, %v", tc.shape, d+1, h.Len(), h.Parents(), tc.codes, tc.parents)
			}
			for i := 1; i < h.Len(); i++ {
				if p := h.Parent[i]; p < 0 || int(p) >= i || h.Depth[i] != h.Depth[p]+1 {
					t.Fatalf("%q dimension %d: code %d not in depth-first order", tc.shape, d+1, i)
				}
			}
		}
		if len(dims) != len(tc.codes) {
			t.Errorf("%q: %d dimensions, want %d", tc.shape, len(dims), len(tc.codes))
		}
	}
}

func TestShapeErrors(t *testing.T) {
	for _, s := range []string{"", "x", "3x", "0", "-1", "t", "t2.", "t0", "h10", "hfoo", "r5", "r5p4", "r4p0", "q3",
		"1000x1000x1000", "2x2x2x2x2x2x2x2x2x2x2", "99999999999999999999", "t1000000.1000000"} {
		if _, err := ParseShape(s); !errors.Is(err, ErrShape) {
			t.Errorf("ParseShape(%q) = %v, want ErrShape", s, err)
		}
	}
}

// TestAdditive checks that every relation holds on the generated values and
// that the rules, levels and bounds are what the spec says, for every value
// model.
func TestAdditive(t *testing.T) {
	for _, s := range []Spec{
		{Shape: "t2.3x4x3", Seed: 7},
		{Shape: "h12x5", Seed: 8, Values: ValuesRoehrig, Primary: Rule{Kind: RuleFrequency, N: 3}, Protection: Protection{Lower: 0.05, Upper: 0.2}},
		{Shape: "t3.3x6", Seed: 9, Values: ValuesMicro, Primary: Rule{Kind: RuleDominance, N: 3, K: 75}, Protection: Protection{FromRule: true}, Cost: CostUnit},
		{Shape: "t3.3x6", Seed: 9, Values: ValuesMicro, Units: 500, Primary: Rule{Kind: RulePercent, P: 15}, Protection: Protection{FromRule: true}, Cost: CostFreq, BoundFactor: 10},
		{Shape: "castro6", Seed: 10, Cost: CostInverse},
	} {
		in := generate(t, s)
		p := in.Problem
		for r := range p.NumRelations() {
			if res := relations.Residual(&p.Relations, p.Cells.Value, r); res != 0 {
				t.Fatalf("%s: relation %d residual %g", s.Shape, r, res)
			}
			cells, _ := p.Relations.Terms(r)
			var f int64
			for k, c := range cells {
				if k == 0 {
					f -= p.Cells.Freq[c]
				} else {
					f += p.Cells.Freq[c]
				}
			}
			if f != 0 {
				t.Fatalf("%s: relation %d frequencies off by %d", s.Shape, r, f)
			}
		}
		c := &p.Cells
		hi := 0.0
		for i, v := range c.Value {
			hi = max(hi, v)
			if (c.Freq[i] == 0) != c.Status[i].IsEmpty() || (c.Freq[i] == 0 && v != 0) {
				t.Fatalf("%s: cell %d value %g freq %d status %d", s.Shape, i, v, c.Freq[i], c.Status[i])
			}
		}
		nprim := 0
		for i := range c.Value {
			x := c.Value[i]
			if !c.Status[i].IsPrimary() {
				if c.LowerPL[i] != 0 || c.UpperPL[i] != 0 {
					t.Fatalf("%s: safe cell %d has levels", s.Shape, i)
				}
				continue
			}
			nprim++
			if c.LowerPL[i] != math.Ceil(c.LowerPL[i]) || c.UpperPL[i] < 1 || c.LowerBound[i] > x-c.LowerPL[i] ||
				c.UpperBound[i] < x+c.UpperPL[i] || c.UpperBound[i] < in.Spec.BoundFactor*hi {
				t.Fatalf("%s: primary %d value %g levels %g/%g bounds %g/%g", s.Shape, i, x, c.LowerPL[i], c.UpperPL[i], c.LowerBound[i], c.UpperBound[i])
			}
			if !s.Protection.FromRule {
				if want := math.Ceil(in.Spec.Protection.Upper * x); math.Abs(c.UpperPL[i]-want) > 1 {
					t.Fatalf("%s: primary %d value %g upper level %g, want about %g", s.Shape, i, x, c.UpperPL[i], want)
				}
			}
			switch s.Primary.Kind {
			case RuleFrequency:
				if c.Freq[i] >= int64(s.Primary.N) {
					t.Fatalf("%s: cell %d frequency %d marked by freq:%d", s.Shape, i, c.Freq[i], s.Primary.N)
				}
			case RuleDominance:
				top := c.Top[i*p.TopN : (i+1)*p.TopN]
				if top[0]+top[1]+top[2] <= 0.75*x {
					t.Fatalf("%s: cell %d not dominated", s.Shape, i)
				}
			}
		}
		if nprim == 0 {
			t.Errorf("%s: no primaries", s.Shape)
		}
	}
}

// TestProtectionRounding: a level that is a whole number stays one (0.2·35
// is 7.000000000000001 in floating point).
func TestProtectionRounding(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{{0.2 * 35, 7}, {7.2, 8}, {0, 0}, {1e-9, 1}, {0.05 * 20, 1}} {
		if got := ceilUnits(tc.x); got != tc.want {
			t.Errorf("ceilUnits(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

// TestDominanceTop checks the top contributions of a micro table against a
// direct computation: the dominance rule sees the true largest units.
func TestMicroTop(t *testing.T) {
	in := generate(t, Spec{Shape: "t2.2x3", Seed: 3, Values: ValuesMicro, Units: 40, Primary: Rule{Kind: RuleDominance, N: 2, K: 80}})
	p := in.Problem
	// The grand total's top-2 must be the two largest bottom-cell tops.
	var all []float64
	for i := range p.NumCells() {
		co := p.Coords(i)
		leaf := true
		for d, k := range co {
			dim := p.Tables[0].Dims[d]
			if int(k)+1 < len(dim.Codes) && dim.Parent[k+1] == k {
				leaf = false
			}
		}
		if leaf {
			all = append(all, p.Cells.Top[i*2:(i+1)*2]...)
		}
	}
	var want [2]float64
	for _, x := range all {
		table.InsertTop(want[:], nil, x, 0)
	}
	if got := p.Cells.Top[0:2]; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("grand total top %v, want %v", got, want)
	}
	if f := p.Cells.Freq[0]; f != 40 {
		t.Errorf("grand total frequency %d, want 40 units", f)
	}
}

// TestDeterministic: the same spec gives byte-identical JJ and job files;
// another seed gives another table.
func TestDeterministic(t *testing.T) {
	files := func(s Spec) map[string][]byte {
		in := generate(t, s)
		var j, f bytes.Buffer
		if err := in.WriteJJ(&j, &f); err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{"jj": j.Bytes(), "frq": f.Bytes()}
		dir := t.TempDir()
		if err := in.WriteJob(Job{Dir: dir, Name: "g"}); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
		return out
	}
	for _, s := range []Spec{
		{Shape: "hier13x13x13", Seed: 42},
		{Shape: "t2.3x5", Seed: 42, Values: ValuesMicro, Primary: Rule{Kind: RulePercent, P: 15}, Protection: Protection{FromRule: true}},
	} {
		a, b := files(s), files(s)
		if len(a) < 5 {
			t.Fatalf("%s: only %d files", s.Shape, len(a))
		}
		for name, x := range a {
			if !bytes.Equal(x, b[name]) {
				t.Errorf("%s: %s differs between two runs with seed %d", s.Shape, name, s.Seed)
			}
		}
		s.Seed++
		if c := files(s); bytes.Equal(a["jj"], c["jj"]) {
			t.Errorf("%s: seeds %d and %d give the same table", s.Shape, s.Seed-1, s.Seed)
		}
	}
}

// TestJJRoundTrip reads the written JJ file back: cells, statuses, levels
// and relations are those of the problem.
func TestJJRoundTrip(t *testing.T) {
	in := generate(t, Spec{Shape: "castro1", Seed: 5, Protection: Protection{Lower: 0.05, Upper: 0.2}})
	var b bytes.Buffer
	if err := in.WriteJJ(&b, nil); err != nil {
		t.Fatal(err)
	}
	f, err := jj.Read(&b, "castro1.jj")
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	if len(f.Cells) != p.NumCells() || len(f.Relations) != p.NumRelations() {
		t.Fatalf("JJ has %d cells, %d relations; problem %d, %d", len(f.Cells), len(f.Relations), p.NumCells(), p.NumRelations())
	}
	u := 0
	for i, c := range f.Cells {
		if c.Value != p.Cells.Value[i] {
			t.Fatalf("cell %d value %g, want %g", i, c.Value, p.Cells.Value[i])
		}
		if c.Status == 'u' {
			u++
			if c.LowerPL != p.Cells.LowerPL[i] || c.UpperPL != p.Cells.UpperPL[i] {
				t.Fatalf("cell %d levels %g/%g, want %g/%g", i, c.LowerPL, c.UpperPL, p.Cells.LowerPL[i], p.Cells.UpperPL[i])
			}
		}
	}
	if u != 135 {
		t.Errorf("%d unsafe cells in the JJ file, want 135", u)
	}
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Shape: "3x3", Primary: Rule{Kind: RuleCount, Count: 10}}, "asks for 10 sensitive cells"},
		{Spec{Shape: "3x3", Primary: Rule{Kind: RuleFrequency, N: 3}, Protection: Protection{FromRule: true}}, "need a dominance or p% rule"},
		{Spec{Shape: "3x3", ZeroProb: 1}, "zero probability"},
		{Spec{Shape: "3x3", BoundFactor: 0.5}, "bound factor"},
		{Spec{Shape: "3x3", Primary: Rule{Kind: RuleDominance, N: 0, K: 50}}, "primary rule"},
		{Spec{Shape: "3y3"}, "invalid shape"},
	} {
		_, err := Generate(t.Context(), tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%+v) = %v, want an error with %q", tc.s, err, tc.want)
		}
	}
	in := generate(t, Spec{Shape: "3x3", BoundFactor: 2})
	if err := in.WriteJob(Job{Dir: t.TempDir(), Name: "x"}); err == nil || !strings.Contains(err.Error(), "bound factor") {
		t.Errorf("WriteJob with bound factor 2 = %v", err)
	}
	in = generate(t, Spec{Shape: "3x3", Cost: CostInverse})
	if err := in.WriteJob(Job{Dir: t.TempDir(), Name: "x"}); err == nil || !strings.Contains(err.Error(), "1/value") {
		t.Errorf("WriteJob with cost 1/value = %v", err)
	}
	if c := in.Problem.Cells.Cost; c[0] != 1/in.Problem.Cells.Value[0] {
		t.Errorf("cost of the total %g, want 1/%g", c[0], in.Problem.Cells.Value[0])
	}
	in = generate(t, Spec{Shape: "3x3"})
	for _, j := range []Job{{Name: ""}, {Name: "a/b"}, {Name: "x", Suppress: "GH"}, {Name: "x", Suppress: "GH(1)\n<X>"}} {
		j.Dir = t.TempDir()
		if err := in.WriteJob(j); err == nil {
			t.Errorf("WriteJob(%+v) succeeded", j)
		}
		if ents, _ := os.ReadDir(j.Dir); len(ents) != 0 {
			t.Errorf("WriteJob(%+v) left %d files", j, len(ents))
		}
	}
}

func TestParsers(t *testing.T) {
	for s, want := range map[string]Rule{
		"frac:0.05": {Kind: RuleFraction, Fraction: 0.05},
		"count:108": {Kind: RuleCount, Count: 108},
		"nk:3,75":   {Kind: RuleDominance, N: 3, K: 75},
		" P:15 ":    {Kind: RulePercent, P: 15},
		"freq:3":    {Kind: RuleFrequency, N: 3},
	} {
		got, err := ParseRule(s)
		if err != nil || got != want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if again, err := ParseRule(got.String()); err != nil || again != got {
			t.Errorf("ParseRule(%q) = %+v, %v; not a round trip", got.String(), again, err)
		}
	}
	for _, s := range []string{"", "frac", "frac:", "frac:2", "frac:NaN", "nk:3", "nk:0,75", "nk:3,0", "nk:11,50", "p:0", "freq:0", "x:1", "count:-1"} {
		if _, err := ParseRule(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseRule(%q) = %v, want ErrSyntax", s, err)
		}
	}
	for s, want := range map[string]Protection{
		"frac:0.2":      {Lower: 0.2, Upper: 0.2},
		"frac:0.05,0.2": {Lower: 0.05, Upper: 0.2},
		"RULE":          {FromRule: true},
	} {
		got, err := ParseProtection(s)
		if err != nil || got != want {
			t.Errorf("ParseProtection(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if again, err := ParseProtection(got.String()); err != nil || again != got {
			t.Errorf("ParseProtection(%q) not a round trip: %+v, %v", got.String(), again, err)
		}
	}
	for _, s := range []string{"", "0.2", "frac:", "frac:0", "frac:0,0", "frac:-1", "frac:0.1,", "frac:0.1,x", "frac:Inf"} {
		if _, err := ParseProtection(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseProtection(%q) = %v, want ErrSyntax", s, err)
		}
	}
	for _, s := range []string{"uniform", "Roehrig", "micro"} {
		if v, err := ParseValues(s); err != nil || !strings.EqualFold(v.String(), s) {
			t.Errorf("ParseValues(%q) = %v, %v", s, v, err)
		}
	}
	if _, err := ParseValues("normal"); err == nil {
		t.Error("ParseValues(normal) succeeded")
	}
	for _, s := range []string{"value", "unit", "FREQ", "inverse"} {
		if c, err := ParseCost(s); err != nil || !strings.EqualFold(c.String(), s) {
			t.Errorf("ParseCost(%q) = %v, %v", s, c, err)
		}
	}
	if _, err := ParseCost("sqrt"); !errors.Is(err, ErrSyntax) {
		t.Error("ParseCost(sqrt) succeeded")
	}
}

func TestScaleShape(t *testing.T) {
	for _, tc := range []struct {
		dims, cells int
		shape       string
		n           int
	}{
		{3, 1e4, "t3.6xt3.6xt3.6", 10648},
		{3, 1e5, "t3.14xt3.14xt3.14", 97336},
		{3, 1e6, "t3.32xt3.32xt3.32", 1000000},
		{4, 1e4, "t3.2xt3.2xt3.2xt3.2", 10000},
		{4, 1e5, "t3.5xt3.4xt3.5xt3.4", 92416},
		{4, 1e6, "t3.9xt3.9xt3.9xt3.10", 1012894},
	} {
		s, err := ScaleShape(tc.dims, tc.cells)
		if err != nil || s != tc.shape {
			t.Errorf("ScaleShape(%d, %d) = %q, %v; want %q", tc.dims, tc.cells, s, err, tc.shape)
			continue
		}
		dims, _ := ParseShape(s)
		n := 1
		for _, h := range dims {
			n *= h.Len()
		}
		if n != tc.n {
			t.Errorf("%s: %d cells, want %d", s, n, tc.n)
		}
	}
	spec, err := ScaleSpec(4, 1e4)
	if err != nil {
		t.Fatal(err)
	}
	if p := generate(t, spec).Problem; primaries(p) != 500 {
		t.Errorf("4-D 10⁴: %d primaries, want 5 %% of 10 000", primaries(p))
	}
}
