//go:build linux

package solver

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestNoStdout redirects file descriptor 1 to a pipe while creating Solvers
// and solving LPs, MIPs, infeasible, unbounded, time-limited and cancelled
// models with every method, and fails if a single byte was written: a plugin's
// stdout carries the go-plugin handshake.
func TestNoStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	saved, err := syscall.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(saved)
	captured := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		captured <- b
	}()
	if err := syscall.Dup3(int(w.Fd()), 1, 0); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if restored {
			return
		}
		restored = true
		flushCStdout()
		os.Stdout.Sync()
		if err := syscall.Dup3(saved, 1, 0); err != nil {
			panic(err) // cannot report: stdout is gone
		}
		w.Close()
	}
	defer restore()

	// Nothing below may call t.Log, t.Run or print: stdout is captured.
	var failures []error
	run := func(m *Model, opts Options, ctx context.Context) {
		s, err := New(m, opts)
		if err != nil {
			failures = append(failures, err)
			return
		}
		defer s.Close()
		if _, err := s.Solve(ctx); err != nil && ctx.Err() == nil {
			failures = append(failures, err)
		}
		// Modify and re-solve (hot start path).
		if s.NumCols() > 0 {
			_ = s.SetColBounds(0, 0, 0.5)
			_, _ = s.Solve(ctx)
		}
	}
	bg := context.Background()
	for _, method := range []Method{MethodAuto, MethodSimplex, MethodIPM} {
		opts := Options{Method: method}
		run(wyndor(t), opts, bg)
		run(transport(t), opts, bg)
		run(randomLP(t, 300, 600, 8, 1), opts, bg)
		inf := NewModel(Minimize)
		_, _ = inf.AddCols([]float64{1, 1}, []float64{0, 0}, []float64{Inf(), Inf()}, nil)
		_, _ = inf.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, 1})
		_, _ = inf.AddRow(2, Inf(), []int{0, 1}, []float64{1, 1})
		run(inf, opts, bg)
		unb := NewModel(Maximize)
		_, _ = unb.AddCols([]float64{1, 1}, []float64{0, 0}, []float64{Inf(), Inf()}, nil)
		_, _ = unb.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, -1})
		run(unb, opts, bg)
	}
	run(knapsack(t, 40, 3, 3), Options{}, bg)
	run(knapsack(t, 300, 10, 1), Options{TimeLimit: 200 * time.Millisecond, MIPRelGap: -1}, bg)
	ctx, cancel := context.WithTimeout(bg, 150*time.Millisecond)
	run(knapsack(t, 300, 10, 1), Options{MIPRelGap: -1}, ctx)
	cancel()
	run(NewModel(Minimize), Options{}, bg)
	// Error paths: a rejected option value inside HiGHS and a bad basis.
	if s, err := New(wyndor(t), Options{}); err == nil {
		_ = s.SetBasis(&Basis{Cols: []BasisStatus{Basic, Basic}, Rows: []BasisStatus{Basic, Basic, Basic}})
		_, _ = s.Solve(bg)
		s.Close()
	}

	restore()
	out := <-captured
	for _, err := range failures {
		t.Error(err)
	}
	if len(out) > 0 {
		t.Fatalf("HiGHS wrote %d bytes to stdout:\n%s", len(out), out)
	}
}
