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

// publishedInterval is one line of a type-3 file with AS+ written after
// IP: the value, the published interval and the status.
type publishedInterval struct {
	line          string
	value, lo, hi float64
	status        int
}

// readIntervals reads back the type-3 file (codes, value, lower, upper,
// status) of an IP job; empty cells ("-") are left out.
func readIntervals(t *testing.T, path string) []publishedInterval {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cells []publishedInterval
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		line = strings.TrimSpace(line)
		f := strings.Split(line, ",")
		if len(f) != 6 {
			t.Fatalf("%s: line %q: %d fields, want 6", path, line, len(f))
		}
		v, err1 := strconv.ParseFloat(f[2], 64)
		lo, err2 := strconv.ParseFloat(f[3], 64)
		hi, err3 := strconv.ParseFloat(f[4], 64)
		st, err4 := strconv.Atoi(f[5])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		cells = append(cells, publishedInterval{line, v, lo, hi, st})
	}
	return cells
}

// midpointAudit is the part of the run report this test reads.
type midpointAudit struct {
	Warnings []string `json:"warnings"`
	Steps    []struct {
		Method *struct {
			Figures map[string]float64 `json:"figures"`
			Audit   *struct {
				Primaries        int  `json:"primaries"`
				UnderProtected   int  `json:"under_protected"`
				Midpoint         int  `json:"midpoint"`
				MidpointAccepted bool `json:"midpoint_accepted"`
			} `json:"audit"`
		} `json:"method"`
	} `json:"steps"`
}

// TestIntervalMidpointJob runs IP(1) on Simple2D (Var2, printed with two
// decimals) through the host and reads back the type-3 file it writes.
// By default no primary's true value lies within the last decimal (0.01)
// of its published interval's midpoint (symmetric levels put all 9 there),
// the audit counts none, and the same seed gives the same file, another
// seed another. midpoint=keep, asked for by name, publishes all 9 at their
// midpoint with the plugin's warning and the audit's count as a warning in
// the logbook and the run report; the same intervals audited as a
// disclosure (the audit's own parameter) are withheld, exit 2.
func TestIntervalMidpointJob(t *testing.T) {
	plugins := realPlugins(t)
	job := simple2DJob(t, "simple2d_ip.arb", "")
	dir := filepath.Dir(job)
	t.Setenv("TMPDIR", t.TempDir())
	type outcome struct {
		code  int
		log   string
		file  []byte
		cells []publishedInterval
		rep   midpointAudit
	}
	runIP := func(params ...string) outcome {
		t.Helper()
		os.Remove(filepath.Join(dir, "ip3.txt"))
		logbook, report := filepath.Join(dir, "logbook.txt"), filepath.Join(dir, "report.json")
		code, out, errOut := run(t, plugins, append([]string{job, logbook, "--report=" + report}, params...)...)
		lb, _ := os.ReadFile(logbook)
		o := outcome{code: code, log: string(lb)}
		if code != ExitOK && code != ExitError {
			t.Fatalf("%v: exit %d\n%s%s\n%s", params, code, out, errOut, lb)
		}
		if rb, err := os.ReadFile(report); err != nil {
			t.Fatal(err)
		} else if err := json.Unmarshal(rb, &o.rep); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ip3.txt")); err == nil {
			o.file = b
			o.cells = readIntervals(t, filepath.Join(dir, "ip3.txt"))
		}
		return o
	}
	audit := func(o outcome) (primaries, under, midpoint int, accepted bool) {
		for _, s := range o.rep.Steps {
			if s.Method != nil && s.Method.Audit != nil {
				a := s.Method.Audit
				return a.Primaries, a.UnderProtected, a.Midpoint, a.MidpointAccepted
			}
		}
		t.Fatalf("no audit in the run report")
		return
	}
	// atMidpoint counts the primaries of the file whose value lies within
	// the last decimal of their interval's midpoint.
	atMidpoint := func(o outcome) (primaries, at int) {
		for _, c := range o.cells {
			if c.status < 3 || c.status > 9 {
				continue
			}
			primaries++
			if math.Abs(c.value-(c.lo+c.hi)/2) <= 0.01+1e-9 {
				at++
				t.Logf("at its midpoint: %s", c.line)
			}
		}
		return primaries, at
	}

	def := runIP()
	if def.code != ExitOK {
		t.Fatalf("default: exit %d\n%s", def.code, def.log)
	}
	if n, at := atMidpoint(def); n != 9 || at != 0 {
		t.Errorf("default: %d of %d primaries at their published interval's midpoint, want 0 of 9", at, n)
	}
	if p, under, mid, _ := audit(def); p != 9 || under != 0 || mid != 0 {
		t.Errorf("default: audit of %d primaries: %d under-protected, %d at the midpoint; want 9, 0, 0", p, under, mid)
	}
	if strings.Contains(def.log, "midpoint_kept") || strings.Contains(def.log, "at the midpoint of their published interval") {
		t.Errorf("default: a midpoint warning in the logbook:\n%s", def.log)
	}
	if again := runIP(); string(again.file) != string(def.file) {
		t.Errorf("default run twice: different files\n%s\n%s", def.file, again.file)
	}
	s5, s5again := runIP("--param=IP.seed=5"), runIP("--param=IP.seed=5")
	if string(s5.file) != string(s5again.file) || string(s5.file) == string(def.file) {
		t.Errorf("seed 5 twice equal %v, equal to the default seed's %v; want true, false",
			string(s5.file) == string(s5again.file), string(s5.file) == string(def.file))
	}
	if n, at := atMidpoint(s5); n != 9 || at != 0 {
		t.Errorf("seed 5: %d of %d primaries at their midpoint, want 0 of 9", at, n)
	}

	keep := runIP("--param=IP.midpoint=keep")
	if keep.code != ExitOK {
		t.Fatalf("keep: exit %d\n%s", keep.code, keep.log)
	}
	if n, at := atMidpoint(keep); n != 9 || at != 9 {
		t.Errorf("keep: %d of %d primaries at their midpoint, want 9 of 9 (the levels are symmetric)", at, n)
	}
	if p, under, mid, acc := audit(keep); p != 9 || under != 0 || mid != 9 || !acc {
		t.Errorf("keep: audit of %d primaries: %d under-protected, %d at the midpoint (accepted %v); want 9, 0, 9, true", p, under, mid, acc)
	}
	for _, want := range []string{"WARNING ip.midpoint_kept: midpoint=keep was asked for: 9 of 9 sensitive cells",
		"WARNING: 9 of 9 primary cells have their true value at the midpoint of their published interval"} {
		if !strings.Contains(keep.log, want) {
			t.Errorf("keep: logbook lacks %q:\n%s", want, keep.log)
		}
	}
	if w := strings.Join(keep.rep.Warnings, "\n"); !strings.Contains(w, "9 of 9 primary cells have their true value at the midpoint") {
		t.Errorf("keep: run report warnings %q", w)
	}

	strict := runIP("--param=IP.midpoint=keep", "--param=AUDIT.midpoint=disclosure")
	if strict.code != ExitError || strict.file != nil {
		t.Errorf("keep audited as a disclosure: exit %d, type-3 file written %v; want exit 2, withheld\n%s", strict.code, strict.file != nil, strict.log)
	}
	if p, under, mid, acc := audit(strict); p != 9 || under != 9 || mid != 9 || acc {
		t.Errorf("keep audited as a disclosure: %d primaries, %d under-protected, %d at the midpoint (accepted %v); want 9, 9, 9, false", p, under, mid, acc)
	}
	if !strings.Contains(strict.log, "9 of 9 primary cells have their true value at the midpoint of their published interval (a disclosure") {
		t.Errorf("keep audited as a disclosure: logbook\n%s", strict.log)
	}
}
