package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCTAJob runs <SUPPRESS> CTA(1) on Simple2D through the real host and
// plugins with unit weights: the adjusted table is written by every output
// type τ-Argus allows after CTA, is additive as written, its distance is
// the optimum τ-Argus's own CTA program finds (5 157.1), the changed safe
// cells are secondaries (11); type 4 after CTA is refused with τ-Argus's
// message.
func TestCTAJob(t *testing.T) {
	plugins := realPlugins(t)
	job := simple2DJob(t, "simple2d_cta.arb", "")
	dir := filepath.Dir(job)
	arb, err := os.ReadFile(job) // the job as written, varied below
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	code, out, errOut := run(t, plugins, job, logbook, "--param=CTA.weights=unit", "--param=CTA.gap=0")
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	for _, want := range []string{"CTA run successfully completed", "Number of changed cells (secondaries): 5",
		"Audit: all 9 primary cells are protected; the adjusted table is additive"} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	// Type 3 with AS+: codes, adjusted, original, status.
	b, err := os.ReadFile(filepath.Join(dir, "cta3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dist, secondaries := 0.0, 0
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ",")
		adj, err1 := strconv.ParseFloat(f[2], 64)
		orig, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			continue // an empty cell: "-"
		}
		dist += math.Abs(adj - orig)
		switch f[4] {
		case "11":
			secondaries++
			if adj == orig {
				t.Errorf("secondary unchanged: %s", line)
			}
		case "1":
			if adj != orig {
				t.Errorf("safe cell changed: %s", line)
			}
		}
	}
	if math.Abs(dist-5157.1) > 0.005 || secondaries != 5 {
		t.Errorf("distance %.2f with %d secondaries, want 5157.10 and 5", dist, secondaries)
	}
	// Type 1 (rows Size, columns Region): every column's sizes add up to
	// its total row, as written.
	b, err = os.ReadFile(filepath.Join(dir, "cta1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		rows = append(rows, strings.Split(strings.TrimSpace(line), ","))
	}
	for j := 1; j < len(rows[1]); j++ {
		total, _ := strconv.ParseFloat(rows[1][j], 64)
		sum := 0.0
		for _, r := range rows[2:] {
			v, _ := strconv.ParseFloat(r[j], 64) // "-" (empty) counts 0
			sum += v
		}
		if math.Abs(sum-total) > 0.005 {
			t.Errorf("column %s: sizes add up to %.2f, total %.2f", rows[0][j], sum, total)
		}
	}
	for _, f := range []string{"cta2.csv", "cta6.jj"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, len(b))
		}
	}
	// τ-Argus refuses the SBS output after CTA.
	bad := strings.Replace(string(arb), `<WRITETABLE> (1, 6, , "cta6.jj")`, `<WRITETABLE> (1, 4, , "cta4.sbs")`, 1)
	if err := os.WriteFile(job, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ = run(t, plugins, job, logbook, "--param=CTA.weights=unit")
	lb, _ = os.ReadFile(logbook)
	if code != ExitError || !strings.Contains(string(lb), "Chosen output type 4 is not allowed for this type of protection") {
		t.Errorf("type 4 after CTA: exit %d\n%s", code, lb)
	}
}
