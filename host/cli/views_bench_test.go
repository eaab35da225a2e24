package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// BenchmarkConfidentialAudit audits, in this process (for -cpuprofile), the
// confidential view IndustryCode × Region of the tutorial microdata through
// the published IndustryCode × Size and Size × Region, each protected alone
// by MOD (NK(3,75) on Var1): the problem of the cover table IndustryCode ×
// Size × Region (89 586 cells, 83 070 hidden), audited as the batch audit
// of the views does (verdicts of the primaries). ARGUS_VIEWS_AUDIT_LIMIT
// (a Go duration, default 10m) is the audit's time limit.
//
//	go test -run '^$' -bench BenchmarkConfidentialAudit -benchtime 1x -cpuprofile cpu.out ./host/cli/
func BenchmarkConfidentialAudit(b *testing.B) {
	plugins := realPlugins(b)
	dir := b.TempDir()
	copyDemo(b, dir)
	b.Setenv("TMPDIR", b.TempDir())
	head := "<OPENMICRODATA> \"tau_testW.asc\"\n<OPENMETADATA> \"tau_testW.rda\"\n"
	runLinkedJob(b, plugins, dir, "published", head+
		"<SPECIFYTABLE> \"IndustryCode\"\"Size\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n"+
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n<READMICRODATA>\n"+
		"<SUPPRESS> MOD(1,5,1,1,1)\n<SUPPRESS> MOD(2,5,1,1,1)\n"+
		"<WRITETABLE> (1, 5, AR+, \"t1.tab\")\n<WRITETABLE> (2, 5, AR+, \"t2.tab\")\n")
	runLinkedJob(b, plugins, dir, "internal", head+
		"<SPECIFYTABLE> \"IndustryCode\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n"+
		"<SPECIFYTABLE> \"IndustryCode\"\"Size\"\"Region\"|\"Var1\"||\n<SAFETYRULE> FREQ(1,10)\n<READMICRODATA>\n"+
		"<WRITETABLE> (1, 5, AS+, \"c.tab\")\n<WRITETABLE> (2, 5, AS+, \"cover.tab\")\n")
	limit := 10 * time.Minute
	if s := os.Getenv("ARGUS_VIEWS_AUDIT_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		limit = d
	}
	s, err := readLinkedSet(b.Context(), []string{filepath.Join(dir, "t1.tab"), filepath.Join(dir, "t2.tab")},
		viewFiles{confidential: []string{filepath.Join(dir, "c.tab")}, cover: filepath.Join(dir, "cover.tab")})
	if err != nil {
		b.Fatal(err)
	}
	p := s.problem
	hidden, primaries := 0, 0
	for _, st := range p.Cells.Status {
		if st.IsSuppressed() {
			hidden++
		}
		if st.IsPrimary() {
			primaries++
		}
	}
	b.ResetTimer()
	for range b.N {
		cpu := cputime.Used()
		start := time.Now()
		rep, err := audit.Suppression(b.Context(), p, p.Cells.Status, audit.Options{Mode: audit.ModeVerdicts,
			Targets: audit.TargetsPrimaries, TimeLimit: limit, Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%d cells (%d hidden), %d primaries: %d under-protected, %d unverified, timed out %v; %.1f s wall, %.1f CPU s; %+v",
			p.NumCells(), hidden, primaries, len(rep.UnderProtected), len(rep.Unverified), rep.TimedOut,
			time.Since(start).Seconds(), (cputime.Used() - cpu).Seconds(), rep.Counts)
	}
}
