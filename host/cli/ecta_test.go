package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestECTAJob runs <SUPPRESS> ECTA(1,0.3,10,0,7) on Simple2D through the
// real host and plugins: α and β are in the logbook, the JSON report and
// the HTML report of every output; the host's audit with them finds every
// primary protected; the adjusted table is written by every output type
// allowed after an adjusted table, additive as written (within the
// rounding to the table's decimals), every sensitive cell within α/2 and
// every other cell within β/2 of its value, the changed safe cells
// secondaries (11); the same seed writes the same table; type 4 is refused
// as after CTA.
func TestECTAJob(t *testing.T) {
	plugins := realPlugins(t)
	job := simple2DJob(t, "simple2d_ecta.arb", "")
	dir := filepath.Dir(job)
	arb, err := os.ReadFile(job) // the job as written, varied below
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	reportFile := filepath.Join(dir, "report.json")
	code, out, errOut := run(t, plugins, job, logbook, "--report="+reportFile)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	for _, want := range []string{"ECTA run successfully completed", "Published with α = 0.3 (largest relative perturbation of a sensitive cell) and β = ",
		"Audit: with the published α and β all 9 primary cells are protected; the adjusted table is additive"} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	var rep struct {
		Steps []struct {
			Method *struct {
				Code      string             `json:"code"`
				Figures   map[string]float64 `json:"figures"`
				Published *struct{ Alpha, Beta float64 }
				Audit     *struct {
					UnderProtected int                `json:"under_protected"`
					Figures        map[string]float64 `json:"figures"`
				}
			}
		}
	}
	b, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	beta := math.NaN()
	for _, s := range rep.Steps {
		if m := s.Method; m != nil && m.Code == "ECTA" {
			if m.Published == nil || m.Published.Alpha != 0.3 || !(m.Published.Beta > 0) || m.Audit == nil ||
				m.Audit.UnderProtected != 0 || m.Audit.Figures["ecta"] != 1 || m.Audit.Figures["beta"] != m.Published.Beta {
				t.Fatalf("report: %s", b)
			}
			if f := m.Figures; f["protected"]+f["protected_doubled"] < 1 || f["rounds"] < 1 {
				t.Errorf("figures %v", f)
			}
			beta = m.Published.Beta
		}
	}
	if math.IsNaN(beta) {
		t.Fatalf("no ECTA step in the report: %s", b)
	}
	for _, f := range []string{"ecta1.html", "ecta2.html", "ecta3.html", "ecta6.html"} {
		h, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(h), "Published with α = 0.3") {
			t.Errorf("%s lacks α and β (%v)", f, err)
		}
	}
	// Type 3 with AS+: codes, adjusted, original, status; 2 decimals.
	ecta3, err := os.ReadFile(filepath.Join(dir, "ecta3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const half = 0.005 // half a unit of the last decimal written
	sensitive, secondaries := 0, 0
	for line := range strings.Lines(strings.TrimSpace(string(ecta3))) {
		f := strings.Split(strings.TrimSpace(line), ",")
		adj, err1 := strconv.ParseFloat(f[2], 64)
		orig, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			continue // an empty cell: "-"
		}
		bound := beta / 2
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
		default:
			sensitive++
			bound = 0.3 / 2
		}
		if math.Abs(adj-orig) > bound*math.Abs(orig)+2*half {
			t.Errorf("cell moved by more than its bound %g: %s", bound, line)
		}
	}
	if sensitive != 9 || secondaries == 0 {
		t.Errorf("%d sensitive cells, %d secondaries", sensitive, secondaries)
	}
	// Type 1 (rows Size, columns Region): every column's sizes add up to
	// its total row, as written, within the rounding of each term.
	b, err = os.ReadFile(filepath.Join(dir, "ecta1.csv"))
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
		if math.Abs(sum-total) > float64(len(rows)-1)*half {
			t.Errorf("column %s: sizes add up to %.2f, total %.2f", rows[0][j], sum, total)
		}
	}
	for _, f := range []string{"ecta2.csv", "ecta6.jj"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, len(b))
		}
	}
	// The same seed writes the same table.
	if code, _, _ = run(t, plugins, job, logbook); code != ExitOK {
		t.Fatalf("second run: exit %d", code)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "ecta3.txt")); string(again) != string(ecta3) {
		t.Errorf("the same seed wrote another table")
	}
	// The SBS output is refused after ECTA as after CTA.
	bad := strings.Replace(string(arb), `<WRITETABLE> (1, 6, , "ecta6.jj")`, `<WRITETABLE> (1, 4, , "ecta4.sbs")`, 1)
	if err := os.WriteFile(job, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ = run(t, plugins, job, logbook)
	lb, _ = os.ReadFile(logbook)
	if code != ExitError || !strings.Contains(string(lb), "Chosen output type 4 is not allowed for this type of protection") {
		t.Errorf("type 4 after ECTA: exit %d\n%s", code, lb)
	}
}
