package views

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// paperInstance draws random instances as the paper's experiments do
// (randomInstance) until one has at least one upper-bound and three
// lower-bound disclosures, the paper's retention rule. Beyond n = 10 an
// upper-bound disclosure is rare (1 in about 1500 draws at n = 22, 3/n²
// large values), so only the three lower-bound disclosures are required.
func paperInstance(tb testing.TB, rng *rand.Rand, n int) *Instance {
	for range 10000 {
		in := randomInstance(rng, n)
		if l, u := in.Disclosures(in.NewPattern()); l >= 3 && (u >= 1 || n > 10) {
			return in
		}
	}
	tb.Fatalf("no %d×%d×%d instance with the paper's disclosures in 10000 draws", n, n, n)
	return nil
}

// cpuSeconds is the process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkViews protects the confidential view of random n×n×n tables
// (the paper's §7 generator and retention rule; five instances per size)
// with the greedy heuristic, the tabu search (its default 2000 moves; at
// n = 22 stopped after 10 s) and
// the exact method (time limit 60 s per instance, tabu's pattern as its
// checked start), for the paper's sizes n = 4..10 and n = 22 (about 10×
// the cells of 10×10×10; see randomInstance and paperInstance for the
// generator there). Reported per size, summed over the instances:
// suppressions of each method, the exact bound, the tabu gap to the exact
// optimum (%), and CPU seconds of the heuristic and of the exact method.
// Run once: go test -run '^$' -bench BenchmarkViews -benchtime 1x ./plugins/internal/views/
func BenchmarkViews(b *testing.B) {
	for _, n := range []int{4, 6, 8, 10, 22} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				rng := rand.New(rand.NewPCG(uint64(n), 2002))
				var greedy, tabu, exact, bound, heurCPU, exactCPU float64
				optimal := 0
				for range 5 {
					in := paperInstance(b, rng, n)
					c0 := cpuSeconds()
					g := in.Greedy()
					ctx, cancel := context.WithCancel(context.Background())
					if n > 10 {
						// Beyond the paper's sizes the swaps of 2000 moves take
						// minutes: the search stops at 10 s (wall).
						ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
					}
					tb := in.Tabu(ctx, g, TabuOptions{Seed: 1})
					cancel()
					c1 := cpuSeconds()
					ex, err := in.Exact(context.Background(), tb, time.Minute)
					if err != nil {
						b.Fatal(err)
					}
					c2 := cpuSeconds()
					if !in.Protected(tb) || !in.Protected(ex.Pattern) || !in.Protected(g) {
						b.Fatal("unprotected pattern")
					}
					greedy += float64(g.Count())
					tabu += float64(tb.Count())
					exact += ex.Cost
					bound += ex.Bound
					if ex.Optimal {
						optimal++
					}
					heurCPU += c1 - c0
					exactCPU += c2 - c1
				}
				b.ReportMetric(greedy, "greedy")
				b.ReportMetric(tabu, "tabu")
				b.ReportMetric(exact, "exact")
				b.ReportMetric(bound, "bound")
				b.ReportMetric(float64(optimal), "optimal")
				b.ReportMetric(100*(tabu-exact)/exact, "gap%")
				b.ReportMetric(heurCPU/5, "heurCPUs/inst")
				b.ReportMetric(exactCPU/5, "exactCPUs/inst")
			}
		})
	}
}
