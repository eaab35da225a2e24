package tabulate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
)

// benchMeta describes synthetic records: a 5-digit activity code with a
// 2-1-2 digit hierarchy, a 2-digit region with a 1-1 hierarchy, a size class,
// a holding and a turnover.
const benchMeta = `Act 1 5 99999
  <RECODEABLE>
  <HIERARCHICAL>
  <HIERLEVELS> 2 1 2
Region 6 2 99
  <RECODEABLE>
  <HIERARCHICAL>
  <HIERLEVELS> 1 1
Size 8 1 9
  <RECODEABLE>
Hold 9 6
  <HOLDING>
Turnover 15 10
  <NUMERIC>
  <DECIMALS> 0
`

// BenchmarkTabulate1M tabulates one million records into a three-dimensional
// hierarchical table (Act × Region × Size, about 130 000 cells) with
// NK(3,75), P(10,1) and holding-level P(10,1) rules, reporting records per
// second and the peak heap in use.
func BenchmarkTabulate1M(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "micro.asc")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 2))
	hold := 0
	for i := range n {
		if i%3 == 0 {
			hold++
		}
		fmt.Fprintf(w, "%02d%d%02d%d%d%d%06d%10d\n", 10+rng.IntN(40), rng.IntN(5), rng.IntN(20), 1+rng.IntN(3), rng.IntN(4), 1+rng.IntN(8), hold, rng.IntN(100000))
	}
	w.Flush()
	f.Close()
	meta, err := rda.Parse(strings.NewReader(benchMeta), "bench.rda", rda.Microdata)
	if err != nil {
		b.Fatal(err)
	}
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 3, K: 75}
	set.P[0] = &rules.P{P: 10, Q: 100, N: 1}
	set.P[2] = &rules.P{P: 10, Q: 100, N: 1}
	spec := Spec{Explanatory: []string{"Act", "Region", "Size"}, Response: "Turnover", Cost: table.NewCost(table.CostResponse, ""), Rules: &set}
	src := Source{Meta: meta, Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // sample the heap while tabulating
		defer close(done)
		var ms runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	cells := 0
	for b.Loop() {
		res, err := Build(context.Background(), src, []Spec{spec})
		if err != nil {
			b.Fatal(err)
		}
		ApplyRules(res[0], &set)
		cells = res[0].Table.Size()
	}
	close(stop)
	<-done
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(cells), "cells")
}
