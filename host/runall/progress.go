package runall

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress keeps one status line: jobs done of all, running, failed.
type progress struct {
	mu                           sync.Mutex
	w                            io.Writer
	total, done, running, failed int
	start0                       time.Time
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, start0: time.Now()}
}

func (p *progress) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running++
	p.draw()
}

func (p *progress) finish(r *Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	p.done++
	if r.Failed() {
		p.failed++
	}
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s", progressLine(p.done, p.total, p.running, p.failed, time.Since(p.start0)))
}

// progressLine is the status line of a run.
func progressLine(done, total, running, failed int, elapsed time.Duration) string {
	return fmt.Sprintf("[%d/%d] %d running, %d failed, %s", done, total, running, failed, elapsed.Round(time.Second))
}

func (p *progress) end() {
	if p.w != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
