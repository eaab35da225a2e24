package microdata

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// writeTauTestWLike writes n records shaped like tau_testW.asc (99 bytes plus
// CRLF, layout of Tau_TestW.rda) to path.
func writeTauTestWLike(path string, n int) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fd, 1<<20)
	seed := uint64(42)
	rnd := func(m uint64) uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % m
	}
	for range n {
		fmt.Fprintf(w, "%2d %5d%2d %2d %4.1f%9d%10.2f", 84+rnd(5), 10000+rnd(89999), 2+rnd(8), 1+rnd(12),
			float64(rnd(100))/10, rnd(1_000_000), float64(rnd(100_000_000))/100)
		for range 6 {
			fmt.Fprintf(w, "%10d", rnd(10_000_000))
		}
		fmt.Fprintf(w, " %d\r\n", rnd(3))
	}
	if err := w.Flush(); err != nil {
		fd.Close()
		return err
	}
	return fd.Close()
}

// BenchmarkReadFixed1M reads a generated fixed-format file of one million
// tau_testW-shaped records with all 14 fields of Tau_TestW.rda per op.
// It reports records/s, the peak HeapInuse sampled every 50,000 records,
// and allocations per record.
func BenchmarkReadFixed1M(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "tau_testW_1M.asc")
	if err := writeTauTestWLike(path, n); err != nil {
		b.Fatal(err)
	}
	layout := tauTestWLayout()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	startMallocs := ms.Mallocs
	peak := ms.HeapInuse
	b.ResetTimer()
	var sum float64
	for range b.N {
		fd, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := NewReader(fd, "bench.asc", layout)
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			sum += rec.Float(5)
			count++
			if count%50_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		fd.Close()
		if count != n {
			b.Fatalf("read %d records, want %d", count, n)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(ms.Mallocs-startMallocs)/(float64(n)*float64(b.N)), "allocs/record")
	if sum == 0 {
		b.Fatal("no data")
	}
}
