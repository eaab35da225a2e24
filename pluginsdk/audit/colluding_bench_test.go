package audit

import (
	"context"
	"encoding/gob"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// patternDump is a method's pattern with its witnesses, as
// BenchmarkColludingPattern reads it (gob).
type patternDump struct {
	P         *pluginsdk.Problem
	Status    []cellstatus.Status
	Witnesses []pluginsdk.Witness
}

// BenchmarkColludingPattern runs the host's audit with its colluding check
// (SuppressionColluding, verdicts of the primaries, the method's
// witnesses) on the pattern dumped in the file AUDIT_PATTERN (skipped
// without it; MOD's BenchmarkGenerated writes one with MOD_BENCH_DUMP);
// AUDIT_LIMIT sets a time limit, AUDIT_NO_WITNESSES=1 drops the
// witnesses, AUDIT_NO_NARROW=1 the failures proven on relaxations. It
// logs both audits' effort:
//
//	AUDIT_PATTERN=/tmp/t5.gob go test ./pluginsdk/audit -run '^$' -bench ColludingPattern -benchtime 1x
func BenchmarkColludingPattern(b *testing.B) {
	path := os.Getenv("AUDIT_PATTERN")
	if path == "" {
		b.Skip("AUDIT_PATTERN names no file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var d patternDump
	err = gob.NewDecoder(f).Decode(&d)
	f.Close()
	if err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	o := Options{Mode: ModeVerdicts, Targets: TargetsPrimaries, Witnesses: d.Witnesses, noNarrow: os.Getenv("AUDIT_NO_NARROW") != ""}
	if os.Getenv("AUDIT_NO_WITNESSES") != "" {
		o.Witnesses = nil
	}
	if v := os.Getenv("AUDIT_LIMIT"); v != "" {
		if o.TimeLimit, err = time.ParseDuration(v); err != nil {
			b.Fatal(err)
		}
	}
	var r, c *Report
	cpu0 := cputime.Used()
	start := time.Now()
	for b.Loop() {
		if r, c, err = SuppressionColluding(context.Background(), d.P, d.Status, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s")
	failed := 0
	for _, v := range c.Verdicts {
		if v.Failed() {
			failed++
		}
	}
	b.Logf("%d witnesses; audit: %d LPs, %d witness, %d unverified, %d under; check: %d LPs, %d local, %d cube, %d witness, %d failed (%d on relaxations), timed out %v; %v",
		len(o.Witnesses), r.Counts.LPs, r.Counts.Witness, len(r.Unverified), len(r.UnderProtected),
		c.Counts.LPs, c.Counts.Local, c.Counts.Cube, c.Counts.Witness, failed, c.Counts.Narrowed, c.TimedOut, time.Since(start)/time.Duration(b.N))
}
