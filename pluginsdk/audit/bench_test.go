package audit

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func benchAudit(b *testing.B, p *pluginsdk.Problem, st []cellstatus.Status, opts Options) {
	b.Helper()
	var r *Report
	cpu0 := cputime.Used()
	for b.Loop() {
		var err error
		if r, err = Suppression(context.Background(), p, st, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s")
	ct := r.Counts
	b.ReportMetric(float64(ct.hidden), "hidden")
	b.ReportMetric(float64(ct.differenced), "differenced")
	b.ReportMetric(float64(ct.LargestComponent), "largest")
	b.ReportMetric(float64(ct.LPs), "LPs")
	b.ReportMetric(float64(ct.Partial+ct.Exact), "failing")
	b.ReportMetric(float64(ct.settled), "settled")
	b.ReportMetric(float64(ct.certified), "certified")
	b.ReportMetric(float64(ct.SimplexIterations), "iterations")
	b.ReportMetric(float64(ct.Local), "local")
	b.ReportMetric(float64(ct.Cube), "cube")
	b.ReportMetric(float64(ct.Witness), "witness")
	b.ReportMetric(float64(ct.Narrowed), "narrowed")
	b.ReportMetric(float64(len(r.Unverified)), "unverified")
	if ct.aggregateLPs > 0 {
		b.ReportMetric(float64(ct.aggregateLPs), "aggLPs")
		b.ReportMetric(float64(ct.aggregateIterations), "aggIterations")
		b.ReportMetric(float64(ct.aggregateSettled), "aggSettled")
	}
}

// allSuppressed hides every cell of p (primaries keep their status).
func allSuppressed(p *pluginsdk.Problem) []cellstatus.Status {
	st := make([]cellstatus.Status, p.NumCells())
	for i, s := range p.Cells.Status {
		st[i] = cellstatus.Secondary
		if s.IsPrimary() {
			st[i] = s
		}
	}
	return st
}

// BenchmarkIndustrySize audits the 6399-cell IndustryCode × Size tables:
// Var2 with its 1018 primaries hidden; Var1 with its 657 primaries and
// about 350 random secondaries (~1000 hidden); Var1 with every cell
// hidden (one component of 6399 cells), exact bounds and verdicts only.
func BenchmarkIndustrySize(b *testing.B) {
	b.Run("Var2-primaries", func(b *testing.B) {
		p := industrySize(b, "Var2_dom3_75.jj")
		benchAudit(b, p, nil, Options{})
	})
	b.Run("Var1-mixed", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, randomStatuses(p, 0.135, 1), Options{})
	})
	b.Run("Var1-all", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, allSuppressed(p), Options{})
	})
	b.Run("Var1-all-verdicts", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, allSuppressed(p), Options{Mode: ModeVerdicts})
	})
}

// BenchmarkGrid100k audits synthetic 47 × 47 × 47 (103 823 cells) tables
// (plugintest.Grid, one level of totals, a-priori bounds [0, 10·value]):
// 5 % random primaries, which differencing settles completely; 6 % and 8 %,
// where a large component remains (exact bounds, and verdicts only).
func BenchmarkGrid100k(b *testing.B) {
	for _, tc := range []struct {
		name string
		pf   float64
		mode Mode
	}{
		{"primaries5%", 0.05, ModeBounds},
		{"primaries6%", 0.06, ModeBounds},
		{"primaries6%-verdicts", 0.06, ModeVerdicts},
		{"primaries8%-verdicts", 0.08, ModeVerdicts},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{46, 46, 46}, Seed: 1, PrimaryFraction: tc.pf})
			benchAudit(b, p, nil, Options{Mode: tc.mode})
		})
	}
}

// BenchmarkGrid30 audits a synthetic 30 × 30 × 30 table with one level of
// totals (31 × 31 × 31 = 29 791 cells; plugintest.Grid, a-priori bounds
// [0, 10·value]) with 5 % random primaries and 40 % of the other cells
// hidden as secondaries (about 12 800 hidden cells in one large
// component, the size of a time-limited exact pattern of that table):
// exact bounds (the attacker intervals AR+ writes) and verdicts only.
func BenchmarkGrid30(b *testing.B) { benchGridCube(b, 30) }

// BenchmarkGrid20 is BenchmarkGrid30 on a 20 × 20 × 20 table (9261 cells,
// about 4000 hidden): the same shape, a tenth of the exact-bounds time.
func BenchmarkGrid20(b *testing.B) { benchGridCube(b, 20) }

// Exact bounds ("bounds") try an aggregated LP of aggregateTargets targets
// before each task's own LP (aggregate.go); the variants (not matched by
// -bench 'GridNN/bounds$'): "aggN" N targets, "plain" none (one LP per open
// direction, the figure before); "-1" on one worker.
func benchGridCube(b *testing.B, n int) {
	for _, mode := range []struct {
		name    string
		mode    Mode
		agg     int
		threads int
	}{{"bounds", ModeBounds, 0, 0}, {"verdicts", ModeVerdicts, 0, 0}, {"bounds-1", ModeBounds, 0, 1},
		{"plain", ModeBounds, -1, 0}, {"plain-1", ModeBounds, -1, 1}, {"agg2", ModeBounds, 2, 0},
		{"agg8", ModeBounds, 8, 0}, {"agg16", ModeBounds, 16, 0}} {
		b.Run(mode.name, func(b *testing.B) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{n, n, n}, Seed: 5, PrimaryFraction: 0.05})
			benchAudit(b, p, randomStatuses(p, 0.40, 1), Options{Mode: mode.mode, aggregate: mode.agg, Threads: mode.threads})
		})
	}
}

// BenchmarkJJFile audits the JJ file named by AUDIT_JJ (skipped without
// it), for instance a batch job's <WRITETABLE> type 6 after <SUPPRESS>: its
// own pattern and every cell hidden; verdicts of every hidden cell, of the
// primaries only (the host's final audit) and exact bounds.
func BenchmarkJJFile(b *testing.B) {
	path := os.Getenv("AUDIT_JJ")
	if path == "" {
		b.Skip("AUDIT_JJ names no JJ file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	file, err := jj.Read(f, path)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	p, err := problem.FromJJ(file)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		all     bool
		mode    Mode
		targets Targets
	}{{"pattern-verdicts", false, ModeVerdicts, TargetsDefault}, {"pattern-verdicts-primaries", false, ModeVerdicts, TargetsPrimaries},
		{"pattern-bounds", false, ModeBounds, TargetsDefault},
		{"all-verdicts", true, ModeVerdicts, TargetsDefault}, {"all-verdicts-primaries", true, ModeVerdicts, TargetsPrimaries},
		{"all-bounds", true, ModeBounds, TargetsDefault}} {
		b.Run(tc.name, func(b *testing.B) {
			var st []cellstatus.Status
			if tc.all {
				st = allSuppressed(p)
			}
			benchAudit(b, p, st, Options{Mode: tc.mode, Targets: tc.targets})
		})
	}
}

// cubePattern hides, for every primary of a 3-D plugintest.Grid of n codes
// per dimension, the corners of a hypercube through it and a random other
// interior cell (as a hypercube method's pattern, totals published).
func cubePattern(p *pluginsdk.Problem, n int, seed uint64) []cellstatus.Status {
	rng := rand.New(rand.NewPCG(seed, 11))
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	ext := n + 1
	at := func(x, y, z int) int { return (x*ext+y)*ext + z }
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		c := p.Coords(i)
		var o [3]int
		for d := range o {
			o[d] = 1 + rng.IntN(n-1)
			if o[d] >= int(c[d]) {
				o[d]++
			}
		}
		for mask := range 8 {
			x, y, z := int(c[0]), int(c[1]), int(c[2])
			if mask&1 != 0 {
				x = o[0]
			}
			if mask&2 != 0 {
				y = o[1]
			}
			if mask&4 != 0 {
				z = o[2]
			}
			j := at(x, y, z)
			if sec, ok := st[j].ToSecondary(); ok {
				st[j] = sec
			}
		}
	}
	return st
}

// BenchmarkCubes audits hypercube patterns (cubePattern, 5 % primaries)
// on n × n × n grids, verdicts on the primaries as the host asks them:
// with local proofs on 1 and 2 workers and, up to 10⁵ cells, the whole
// table alone. 100 × 100 × 100 is 1 030 301 cells.
func BenchmarkCubes(b *testing.B) {
	for _, n := range []int{30, 46, 100} {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{n, n, n}, Seed: 3, PrimaryFraction: 0.05})
		st := cubePattern(p, n, 1)
		for _, tc := range []struct {
			name    string
			workers int
			whole   bool
		}{{"local-1", 1, false}, {"local-2", 2, false}, {"whole-2", 2, true}} {
			b.Run(fmt.Sprintf("%d/%s", n, tc.name), func(b *testing.B) {
				if tc.whole && n > 46 {
					b.Skip("the whole table alone takes too long")
				}
				benchAudit(b, p, st, Options{Threads: tc.workers, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: wholeTable(tc.whole)})
			})
		}
	}
}

// wholeTable is Options.LocalCells for a benchmark that audits every
// target on the whole table (whole) or with local proofs.
func wholeTable(whole bool) int {
	if whole {
		return -1
	}
	return 0
}

// BenchmarkProblemGob audits the pluginsdk.Problem gob-encoded in the file
// named by AUDIT_GOB (skipped without it) with its own statuses as the
// pattern, as a host's final audit asks it: verdicts of the primaries,
// colluding singletons, local proofs then the whole table. Such a dump of
// GH's pattern of the generated table t4.11 × t4.11 × t4.11 (117 649
// cells, 33 743 hidden in one component) is issue 30's figure.
func BenchmarkProblemGob(b *testing.B) {
	path := os.Getenv("AUDIT_GOB")
	if path == "" {
		b.Skip("AUDIT_GOB names no file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	// The problem, then optionally the method's witnesses, each by an
	// encoder of its own.
	var p pluginsdk.Problem
	var ws []pluginsdk.Witness
	br := bufio.NewReader(f)
	err = gob.NewDecoder(br).Decode(&p)
	if err == nil {
		if werr := gob.NewDecoder(br).Decode(&ws); werr != nil && werr != io.EOF {
			err = werr
		}
	}
	f.Close()
	if err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	// AUDIT_NO_CUBE=1 switches the hypercube certificates off, to compare;
	// AUDIT_LIMIT sets a time limit (a duration).
	// AUDIT_NO_NARROW=1 switches the failures proven on relaxations off.
	o := Options{Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: SingletonsCollude, noCube: os.Getenv("AUDIT_NO_CUBE") != "",
		noNarrow: os.Getenv("AUDIT_NO_NARROW") != "", Witnesses: ws}
	if v := os.Getenv("AUDIT_LIMIT"); v != "" {
		if o.TimeLimit, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	// AUDIT_NARROW_WHOLE replaces narrowWhole (−1: every stage for every
	// target).
	if v := os.Getenv("AUDIT_NARROW_WHOLE"); v != "" {
		if o.narrowWhole, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	benchAudit(b, &p, p.Cells.Status, o)
}
