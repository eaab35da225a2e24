package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// hierTable is a generated hierarchical table (tablegen: micro values,
// 8 % primaries, levels 20 %, bounds 1.5 × the largest value).
func hierTable(tb testing.TB, shape string, seed uint64) *pluginsdk.Problem {
	tb.Helper()
	s := tablegen.Spec{Shape: shape, Seed: seed, Values: tablegen.ValuesMicro, BoundFactor: 1.5}
	var err error
	if s.Primary, err = tablegen.ParseRule("frac:0.08"); err != nil {
		tb.Fatal(err)
	}
	in, err := tablegen.Generate(context.Background(), s)
	if err != nil {
		tb.Fatal(err)
	}
	return in.Problem
}

// hierCubePattern hides, for every primary, the cells of a random
// hierarchical hypercube through it, built here independently of cube.go:
// per dimension the primary's code and a random sibling (its code alone
// when it has none), each extended down a random path to a leaf.
func hierCubePattern(p *pluginsdk.Problem, seed uint64) []cellstatus.Status {
	rng := rand.New(rand.NewPCG(seed, 17))
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	dims := p.Tables[0].Dims
	children := make([][][]int32, len(dims))
	for d, dim := range dims {
		children[d] = make([][]int32, len(dim.Parent))
		for i, par := range dim.Parent {
			if par >= 0 {
				children[d][par] = append(children[d][par], int32(i))
			}
		}
	}
	at := map[string]int{}
	key := func(c []int32) string { return fmt.Sprint(c) }
	for i := range p.NumCells() {
		at[key(p.Coords(i))] = i
	}
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		c := p.Coords(i)
		sets := make([][]int32, len(dims))
		for d := range dims {
			path := func(u int32) []int32 {
				out := []int32{u}
				for len(children[d][u]) > 0 {
					u = children[d][u][rng.IntN(len(children[d][u]))]
					out = append(out, u)
				}
				return out
			}
			sets[d] = path(c[d])
			if par := dims[d].Parent[c[d]]; par >= 0 && len(children[d][par]) > 1 {
				sib := c[d]
				for sib == c[d] {
					sib = children[d][par][rng.IntN(len(children[d][par]))]
				}
				sets[d] = append(sets[d], path(sib)...)
			}
		}
		var walk func(d int, cur []int32)
		walk = func(d int, cur []int32) {
			if d == len(dims) {
				if j, ok := at[key(cur)]; ok {
					if sec, ok := st[j].ToSecondary(); ok {
						st[j] = sec
					}
				}
				return
			}
			for _, x := range sets[d] {
				walk(d+1, append(cur, x))
			}
		}
		walk(0, nil)
	}
	return st
}

// someCertificate returns a primary of the audit input in that cube.go
// certifies and its certificate.
func someCertificate(t *testing.T, in *input) (*cubeStage, int, cubeCert) {
	t.Helper()
	cs := in.newCubeStage()
	if cs == nil {
		t.Fatal("no cube stage on a hierarchical table")
	}
	sc := newCubeScratch()
	for i := range in.p.NumCells() {
		if !in.status[i].IsPrimary() || !in.canonical(i) {
			continue
		}
		if cert, ok := cs.find(i, sc); ok && len(cert.upCells) > 2 {
			if err := cs.checkCertificate(i, cert.upCells, cs.scaled(cert.upSigns, cert.up, sc), sc); err != nil {
				t.Fatalf("primary %d: the certificate found fails its check: %v", i, err)
			}
			return cs, i, cert
		}
	}
	t.Fatal("no primary certified")
	return nil, 0, cubeCert{}
}

// TestCubeCertificateRejected: a certificate that does prove a primary is
// accepted, and each way of building it wrong is rejected by the check:
// a relation broken (a cell dropped, a sign flipped), the primary not
// moved, a published cell or a colluding singleton in its support, a
// bound violated.
func TestCubeCertificateRejected(t *testing.T) {
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	in, err := prepare(p, st, Options{Mode: ModeVerdicts})
	if err != nil {
		t.Fatal(err)
	}
	cs, prim, cert := someCertificate(t, in)
	sc := newCubeScratch()
	other := -1 // a cell of the support other than the primary
	for _, c := range cert.upCells {
		if c != prim {
			other = c
			break
		}
	}
	clone := func() ([]int, []int8) {
		return append([]int(nil), cert.upCells...), append([]int8(nil), cert.upSigns...)
	}
	for _, tc := range []struct {
		name   string
		mutate func(cells []int, signs []int8) ([]int, []int8, float64, func())
		want   string
	}{
		{"cell dropped", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			k := len(c) - 1
			if c[k] == prim {
				k--
			}
			return append(c[:k], c[k+1:]...), append(s[:k], s[k+1:]...), cert.up, nil
		}, "A d"},
		{"sign flipped", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			for k := range c {
				if c[k] != prim {
					s[k] = -s[k]
					break
				}
			}
			return c, s, cert.up, nil
		}, "A d"},
		{"primary not moved", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			for k := range c {
				if c[k] == prim {
					s[k] = 0
				}
			}
			return c, s, cert.up, nil
		}, "does not move"},
		{"published cell", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			old := in.status[other]
			in.status[other] = cellstatus.Safe
			return c, s, cert.up, func() { in.status[other] = old }
		}, "known to the attacker"},
		{"colluder moved", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			cs.fixed[other] = true
			return c, s, cert.up, func() { cs.fixed[other] = false }
		}, "known to the attacker"},
		{"bound violated", func(c []int, s []int8) ([]int, []int8, float64, func()) {
			return c, s, 2*in.hi[prim] + 1, nil
		}, "outside its bounds"},
	} {
		if err := cs.checkCertificate(prim, cert.upCells, cs.scaled(cert.upSigns, cert.up, sc), sc); err != nil {
			t.Fatalf("%s: the intact certificate is rejected: %v", tc.name, err)
		}
		c, s := clone()
		c, s, step, undo := tc.mutate(c, s)
		err := cs.checkCertificate(prim, c, cs.scaled(s, step, sc), sc)
		if undo != nil {
			undo()
		}
		if !errors.Is(err, errCertificate) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: check gave %v, want a rejection (%q)", tc.name, err, tc.want)
		}
	}
}

// TestCubeColludersFixed: under colluding singletons a single-respondent
// primary in another primary's certificate is fixed, so that certificate
// no longer proves it, while the singleton's own certificate may move it.
func TestCubeColludersFixed(t *testing.T) {
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	in, err := prepare(p, st, Options{Mode: ModeVerdicts})
	if err != nil {
		t.Fatal(err)
	}
	_, prim, cert := someCertificate(t, in)
	other := -1
	for _, c := range cert.upCells {
		if c != prim {
			other = c
			break
		}
	}
	q := *p
	q.Cells.Freq = append([]int64(nil), p.Cells.Freq...)
	q.Cells.Freq[other] = 1
	if !st[other].IsPrimary() {
		st = append([]cellstatus.Status(nil), st...)
		st[other] = cellstatus.UnsafeFreq
	}
	cin, err := prepare(&q, st, Options{Mode: ModeVerdicts, Singletons: SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	cs := cin.newCubeStage()
	if !cs.fixed[other] {
		t.Fatalf("the colluding singleton %d is not fixed", other)
	}
	if err := cs.checkCertificate(prim, cert.upCells, cs.scaled(cert.upSigns, cert.up, newCubeScratch()), newCubeScratch()); err == nil {
		t.Error("a certificate moving a colluding singleton was accepted")
	}
	if !cs.open(other, other) {
		t.Error("a colluding singleton may not move in its own certificate")
	}
}

// cubeFamilies are the tables of the comparisons: generated hierarchical
// ones with hypercube patterns and random ones, and the flat random grids
// of the local proofs' tests.
func cubeFamilies(t *testing.T) []struct {
	name string
	p    *pluginsdk.Problem
	st   []cellstatus.Status
} {
	var out []struct {
		name string
		p    *pluginsdk.Problem
		st   []cellstatus.Status
	}
	add := func(name string, p *pluginsdk.Problem, st []cellstatus.Status) {
		out = append(out, struct {
			name string
			p    *pluginsdk.Problem
			st   []cellstatus.Status
		}{name, p, st})
	}
	for _, shape := range []string{"t2.3xt3.2", "t2.2xt2.2xt2.2", "t3.2x4"} {
		for seed := uint64(1); seed <= 2; seed++ {
			p := hierTable(t, shape, seed)
			add(fmt.Sprintf("%s/%d/cubes", shape, seed), p, hierCubePattern(p, seed))
			add(fmt.Sprintf("%s/%d/random", shape, seed), p, randomStatuses(p, 0.5, seed))
		}
	}
	for seed := uint64(1); seed <= 2; seed++ {
		p, st := localGrid(seed, 0.6, true)
		add(fmt.Sprintf("grid/%d", seed), p, st)
	}
	return out
}

// TestCubeVerdictsAgree: on generated hierarchical tables and the flat
// test grids, with one attacker and with colluding singletons, the
// verdicts (and the reported intervals) with the cube certificates are
// those without them, and those of the whole table's LPs alone; the
// certificates do prove primaries (else the comparison would prove
// nothing), and SuppressionColluding's check agrees too.
func TestCubeVerdictsAgree(t *testing.T) {
	ctx := context.Background()
	certified := 0
	for _, f := range cubeFamilies(t) {
		for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
			name := fmt.Sprintf("%s/singletons%d", f.name, mode)
			o := Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: mode}
			with, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			o.noCube = true
			without, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			o.LocalCells = -1
			whole, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if without.Counts.Cube != 0 {
				t.Errorf("%s: %d certified with the stage off", name, without.Counts.Cube)
			}
			certified += with.Counts.Cube
			for i := range with.Verdicts {
				if with.Verdicts[i] != without.Verdicts[i] || with.Verdicts[i] != whole.Verdicts[i] || with.Verdict[i] != whole.Verdict[i] {
					t.Errorf("%s: cell %d: %v with certificates, %v without, %v on the whole table", name, i, with.Verdicts[i], without.Verdicts[i], whole.Verdicts[i])
				}
				if with.Verdict[i] == VerdictProtected && (with.Lower[i] != whole.Lower[i] || with.Upper[i] != whole.Upper[i]) {
					t.Errorf("%s: cell %d: [%g, %g] with certificates, [%g, %g] on the whole table", name, i, with.Lower[i], with.Upper[i], whole.Lower[i], whole.Upper[i])
				}
			}
			if with.Counts.Protected != whole.Counts.Protected || with.Counts.Primaries != whole.Counts.Primaries {
				t.Errorf("%s: counts %+v with certificates, %+v on the whole table", name, with.Counts, whole.Counts)
			}
		}
		o := Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries}
		r, c, err := SuppressionColluding(ctx, f.p, f.st, o)
		if err != nil {
			t.Fatal(err)
		}
		o.noCube = true
		r0, c0, err := SuppressionColluding(ctx, f.p, f.st, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Verdicts {
			if r.Verdicts[i] != r0.Verdicts[i] || c.Verdicts[i] != c0.Verdicts[i] {
				t.Errorf("%s colluding check: cell %d: %v/%v with certificates, %v/%v without", f.name, i, r.Verdicts[i], c.Verdicts[i], r0.Verdicts[i], c0.Verdicts[i])
			}
		}
	}
	if certified == 0 {
		t.Error("no primary certified: the comparison proves nothing")
	}
	t.Logf("%d primaries certified", certified)
}

// TestCubeNonAdditive: on a table whose values do not add up the
// certificates are not tried (the LPs report the inconsistency), and the
// verdicts are those without them.
func TestCubeNonAdditive(t *testing.T) {
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	q := *p
	q.Cells.Value = append([]float64(nil), p.Cells.Value...)
	q.Cells.Value[0] += 1000 // the grand total no longer adds up
	o := Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries}
	with, err := Suppression(context.Background(), &q, st, o)
	if err != nil {
		t.Fatal(err)
	}
	o.noCube = true
	without, err := Suppression(context.Background(), &q, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if with.Counts.Cube != 0 {
		t.Errorf("%d certificates on a table that does not add up", with.Counts.Cube)
	}
	for i := range with.Verdicts {
		if with.Verdicts[i] != without.Verdicts[i] {
			t.Errorf("cell %d: %v, without certificates %v", i, with.Verdicts[i], without.Verdicts[i])
		}
	}
}

// TestCubeBoundsModeExact: exact bounds (ModeBounds) are computed by the
// LPs whatever certificates exist: none is counted.
func TestCubeBoundsModeExact(t *testing.T) {
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	r, err := Suppression(context.Background(), p, st, Options{Threads: 2, Mode: ModeBounds})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.Cube != 0 {
		t.Errorf("%d certificates in exact-bounds mode", r.Counts.Cube)
	}
}

// cubeShapes are the shapes of the randomized checks.
var cubeShapes = []string{"t2.3xt3.2", "t2.2xt2.2xt2.2", "t3.2x4", "t2.2x3xt2.2"}

// TestCubeCertificatesRandom runs the checks of FuzzCubeCertificates on
// 32 random tables and patterns, and asserts that they met certificates.
func TestCubeCertificatesRandom(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 32; seed++ {
		checked += checkRandomCertificates(t, seed, uint8(seed/2), 0.3+0.02*float64(seed))
	}
	if checked == 0 {
		t.Fatal("no certificate checked")
	}
	t.Logf("%d certificates checked", checked)
}

// FuzzCubeCertificates: on random hierarchical tables and patterns, every
// certificate the search finds and the check accepts satisfies, over the
// table's relations built independently (package relations), A x = 0
// exactly (the relations' coefficients are ±1), moves no published cell,
// moves the primary by 1, and keeps the moved tables within the bounds
// and the relations within the audit tolerance.
func FuzzCubeCertificates(f *testing.F) {
	for seed := uint64(1); seed <= 4; seed++ {
		f.Add(seed, uint8(seed), 0.4+0.1*float64(seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, shape uint8, share float64) {
		if math.IsNaN(share) || share < 0 || share > 1 {
			return
		}
		checkRandomCertificates(t, seed, shape, share)
	})
}

// checkRandomCertificates checks the certificates of one random table
// and pattern (FuzzCubeCertificates) and returns how many it checked.
func checkRandomCertificates(t *testing.T, seed uint64, shape uint8, share float64) int {
	t.Helper()
	p := hierTable(t, cubeShapes[int(shape)%len(cubeShapes)], seed%64+1)
	st := randomStatuses(p, share, seed)
	if seed%2 == 0 {
		st = hierCubePattern(p, seed)
	}
	in, err := prepare(p, st, Options{Mode: ModeVerdicts})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := in.newCubeStage()
	sc := newCubeScratch()
	checked := 0
	for i := range p.NumCells() {
		if !st[i].IsPrimary() || !in.canonical(i) {
			continue
		}
		cert, ok := cs.find(i, sc)
		if !ok {
			continue
		}
		for _, x := range []struct {
			cells []int
			signs []int8
			step  float64
		}{{cert.upCells, cert.upSigns, cert.up}, {cert.downCells, cert.downSigns, -cert.down}} {
			if cs.checkCertificate(i, x.cells, cs.scaled(x.signs, x.step, sc), sc) != nil {
				continue
			}
			verifyIndependently(t, p, st, &rel, in, i, x.cells, x.signs, x.step)
			checked++
		}
	}
	return checked
}

// verifyIndependently checks an accepted certificate of primary prim
// against every relation of rel.
func verifyIndependently(t *testing.T, p *pluginsdk.Problem, st []cellstatus.Status, rel *pluginsdk.Relations, in *input, prim int, cells []int, signs []int8, step float64) {
	t.Helper()
	x := make([]float64, p.NumCells())
	for k, c := range cells {
		if !st[c].IsSuppressed() {
			t.Fatalf("primary %d: certificate moves published cell %d", prim, c)
		}
		x[c] = float64(signs[k])
	}
	if x[prim] != 1 {
		t.Fatalf("primary %d: moved by %g", prim, x[prim])
	}
	for k := range rel.Len() {
		terms, coef := rel.Terms(k)
		ax, res := 0.0, -rel.Rhs(k)
		for q, c := range terms {
			ax += coef[q] * x[c]
			res += coef[q] * (p.Cells.Value[c] + step*x[c])
		}
		if ax != 0 || math.Abs(res) > in.tol {
			t.Fatalf("primary %d: relation %d: A x = %g, moved residual %g", prim, k, ax, res)
		}
	}
	for c, xc := range x {
		if z := p.Cells.Value[c] + step*xc; xc != 0 && (z < in.lo[c]-in.tol || z > in.hi[c]+in.tol) {
			t.Fatalf("primary %d: cell %d moved to %g outside [%g, %g]", prim, c, z, in.lo[c], in.hi[c])
		}
	}
}
