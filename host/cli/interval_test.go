package cli

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestIntervalJob runs <SUPPRESS> IP(1) on Simple2D through the real host
// and plugins: the audit confirms the published intervals, every output
// type with a place for them is written (the CSV files parse with a fixed
// number of fields per line, as a spreadsheet reads them; the code-value
// file has every value inside its interval, safe cells published exactly,
// primaries and secondaries as proper intervals; the intermediate file is
// read back by argus's own reader), the run report carries the objective,
// the bound and the five classes, and types 4 and 6 are refused.
func TestIntervalJob(t *testing.T) {
	plugins := realPlugins(t)
	job := simple2DJob(t, "simple2d_ip.arb", "")
	dir := filepath.Dir(job)
	arb, err := os.ReadFile(job) // the job as written, varied below
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	report := filepath.Join(dir, "report.json")
	code, out, errOut := run(t, plugins, job, logbook, "--report="+report)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	for _, want := range []string{"Interval run successfully completed (optimal)", "Number of cells published as intervals:",
		"True value in its interval", "Audit: all 9 primary cells are protected by the published intervals"} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	// Type 3 with AS+: codes, value, lower, upper, status.
	b, err := os.ReadFile(filepath.Join(dir, "ip3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	upper := map[string]string{}
	primaries, secondaries := 0, 0
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 6 {
			t.Fatalf("code-value line %q: %d fields, want 6", line, len(f))
		}
		v, err1 := strconv.ParseFloat(f[2], 64)
		lo, err2 := strconv.ParseFloat(f[3], 64)
		hi, err3 := strconv.ParseFloat(f[4], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue // an empty cell: "-"
		}
		upper[f[0]+","+f[1]] = f[4]
		if lo > v || v > hi {
			t.Errorf("value outside its interval: %s", line)
		}
		st, _ := strconv.Atoi(f[5])
		switch {
		case st == 11:
			secondaries++
			if lo == hi {
				t.Errorf("secondary published exactly: %s", line)
			}
		case st >= 3 && st <= 9:
			primaries++
			if lo == hi {
				t.Errorf("primary published exactly: %s", line)
			}
		case st == 1 && lo != hi:
			t.Errorf("safe cell published as an interval: %s", line)
		}
	}
	if primaries != 9 || secondaries == 0 {
		t.Errorf("%d primaries and %d secondaries in the code-value file", primaries, secondaries)
	}
	// Types 1 and 2 parse as CSV with a fixed number of fields per record
	// (type 1: three per region code and the label; type 2: the header's).
	for _, f := range []struct {
		name   string
		fields int
	}{{"ip1.csv", 0}, {"ip2.csv", 5}} {
		fh, err := os.Open(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(fh)
		r.FieldsPerRecord = f.fields
		recs, err := r.ReadAll()
		fh.Close()
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if f.name == "ip1.csv" && (len(recs[0])-1)%3 != 0 {
			t.Errorf("ip1.csv: %d fields, want 1 + 3 per column", len(recs[0]))
		}
	}
	// Type 5 read back by argus's intermediate reader, the upper ends as
	// the response. The reader adds the totals up from the bottom cells,
	// as τ-Argus does, and upper ends do not add up: only the bottom cells
	// (Size and Region codes that are no totals) are compared.
	total := map[string]bool{`"Total"`: true, `"Nr"`: true, `"Os"`: true, `"Ws"`: true, `"Zd"`: true}
	back := "<OPENTABLEDATA> \"ip5.tab\"\n<OPENMETADATA> \"ip5.rda\"\n<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2_Upper\"||\n<SAFETYRULE>\n<READTABLE> 1\n" +
		"<WRITETABLE> (1, 3, AS+, \"back3.txt\")\n"
	backJob := filepath.Join(dir, "back.arb")
	if err := os.WriteFile(backJob, []byte(back), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, plugins, backJob, filepath.Join(dir, "back.txt")); code != ExitOK {
		t.Fatalf("reading the intermediate file back: exit %d\n%s%s", code, out, errOut)
	}
	b, err = os.ReadFile(filepath.Join(dir, "back3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ",")
		if want, ok := upper[f[0]+","+f[1]]; ok && !total[f[0]] && !total[f[1]] {
			read++
			if f[2] != want {
				t.Errorf("read back %s: upper end %s, want %s", line, f[2], want)
			}
		}
	}
	if read < 20 {
		t.Errorf("read back %d bottom cells of %d", read, len(upper))
	}
	// The run report: objective, bound, classes, the audit.
	rb, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Steps []struct {
			Method *struct {
				Objective float64            `json:"objective"`
				Figures   map[string]float64 `json:"figures"`
				Audit     *struct {
					Mode           string `json:"mode"`
					Primaries      int    `json:"primaries"`
					UnderProtected int    `json:"under_protected"`
				} `json:"audit"`
			} `json:"method"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(rb, &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Steps {
		m := s.Method
		if m == nil {
			continue
		}
		found = true
		x := m.Figures
		if m.Objective <= 0 || x["bound"] > m.Objective || x["intervals"] == 0 || x["mid_at_value"]+x["mid_minus"]+x["mid_plus"]+x["mid_at_minus50"]+x["mid_at_plus50"] < 0.999 {
			t.Errorf("report figures: objective %v, %v", m.Objective, x)
		}
		if m.Audit == nil || m.Audit.Mode != "intervals" || m.Audit.Primaries != 9 || m.Audit.UnderProtected != 0 {
			t.Errorf("report audit %+v", m.Audit)
		}
	}
	if !found {
		t.Errorf("no method step in the report:\n%s", rb)
	}
	// Types 4 and 6 have no place for an interval.
	for _, typ := range []string{"4", "6"} {
		bad := strings.Replace(string(arb), `<WRITETABLE> (1, 5, , "ip5.tab")`, `<WRITETABLE> (1, `+typ+`, , "ipbad.out")`, 1)
		if err := os.WriteFile(job, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, _ = run(t, plugins, job, logbook)
		lb, _ = os.ReadFile(logbook)
		if code != ExitError || !strings.Contains(string(lb), "Chosen output type "+typ+" is not allowed for this type of protection") {
			t.Errorf("type %s after IP: exit %d\n%s", typ, code, lb)
		}
	}
}
