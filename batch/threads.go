package batch

import (
	"fmt"
	"runtime"

	"github.com/sdcengine/argus/pluginsdk"
)

// DefaultCores is the number of cores a job uses when Config.Cores is 0:
// GOMAXPROCS, which is the machine's CPUs, or fewer under a CPU affinity
// mask, a cgroup CPU limit or the GOMAXPROCS environment variable.
func DefaultCores() int { return max(1, runtime.GOMAXPROCS(0)) }

// threadsFor returns the number of threads a method (or the audit) with
// info may use, and why: Config.Threads when set; else the job's cores
// (Config.Cores, else DefaultCores) when the method declares its result
// independent of the thread count; else one, so that a rerun on another
// machine gives the same result.
func (e *engine) threadsFor(info pluginsdk.MethodInfo) (n int, why string) {
	switch {
	case e.cfg.Threads > 0:
		return e.cfg.Threads, "set by --threads"
	case info.Capabilities.ThreadIndependent:
		if e.cfg.Cores > 0 {
			return e.cfg.Cores, "its result does not depend on the thread count; the job's cores (--cores)"
		}
		return DefaultCores(), "its result does not depend on the thread count; the machine's cores"
	}
	return 1, "its result may depend on the thread count (--threads=N sets it)"
}

// threadsLine is the logbook's line saying how many threads who uses.
func threadsLine(who string, n int, why string) string {
	unit := "threads"
	if n == 1 {
		unit = "thread"
	}
	return fmt.Sprintf("%s uses %d %s: %s", who, n, unit, why)
}

// auditThreads returns the number of threads the next audit uses and
// writes it to the logbook when it is the job's first audit or the number
// changed.
func (e *engine) auditThreads() int {
	ref, ok := e.cfg.Protector.Method(AuditMethod)
	if !ok {
		return 0
	}
	n, why := e.threadsFor(ref.Info)
	if n != e.lastAuditThreads {
		e.logf("%s", threadsLine("The audit", n, why))
		e.lastAuditThreads = n
	}
	return n
}
