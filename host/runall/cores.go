package runall

import "sync"

// coreShare shares a run's cores among its concurrent jobs: a job started
// gets the free cores divided among the jobs that start with it (the free
// workers, at most the jobs not yet started), at least one, and gives them
// back when it ends. Jobs × cores stay within the run's cores while there
// are at least as many cores as workers: a job running alone gets them
// all, N jobs at once about a Nth each, and a job that starts when few
// remain gets the cores the ended ones left.
type coreShare struct {
	mu      sync.Mutex
	free    int // cores not given to a running job (may go below 0 when workers > cores)
	workers int // jobs run at once
	running int // jobs holding cores
	pending int // jobs not yet started
}

// newCoreShare shares cores among workers concurrent jobs of a run of
// jobs jobs.
func newCoreShare(cores, workers, jobs int) *coreShare {
	return &coreShare{free: max(cores, 1), workers: max(workers, 1), pending: jobs}
}

// take gives a starting job its cores.
func (s *coreShare) take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	slots := max(1, min(s.workers-s.running, s.pending))
	n := max(1, s.free/slots)
	s.free -= n
	s.running++
	s.pending = max(0, s.pending-1)
	return n
}

// skip counts a job that does not run (complete from an earlier run).
func (s *coreShare) skip() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = max(0, s.pending-1)
}

// give returns an ended job's n cores.
func (s *coreShare) give(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += n
	s.running--
}
