package cli

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simple2DJob copies checkTauArgus's Simple2D inputs and the scenario job
// of testdata/scenarios (or the job text given) into a new directory and
// returns the job's path.
func simple2DJob(t *testing.T, scenario, text string) string {
	t.Helper()
	doc := filepath.Join(corpusDir, "sdcTools", "checkTauArgus", "inst", "doc")
	inputs := []string{
		filepath.Join(doc, "Simple2D_InputData.unzipped", "tau_testW.asc"),
		filepath.Join(doc, "Simple2D_InputData.unzipped", "region2.hrc"),
		filepath.Join(doc, "Simple2D_InputData.unzipped", "region.cdl"),
		filepath.Join(corpusDir, "sdcTools", "tauargus", "data", "Tau_TestW.rda"),
	}
	dir := t.TempDir()
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			t.Skipf("corpus not available: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(in)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if scenario != "" {
		b, err := os.ReadFile(filepath.Join(repoDir, "testdata", "scenarios", scenario))
		if err != nil {
			t.Fatal(err)
		}
		text = string(b)
	}
	job := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job
}

// checkRoundedOutput reads a type 3 output with AS+ (codes, rounded,
// original) and checks that every value is a multiple of base, at most one
// multiple from the original (zero-restricted, no steps), and that the
// Size totals of the Region total add up: Σ_size (size, Total) = (Total,
// Total). With partitioned, the Size totals (the sums of the rounded Size
// categories) may be further off. It returns the number of cells whose
// value changed.
func checkRoundedOutput(t *testing.T, path string, base float64, partitioned bool) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed, cells := 0, 0
	var sizeSum, total float64
	for line := range strings.Lines(strings.TrimSpace(string(b))) {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 4 {
			t.Fatalf("%s: line %q: want codes, rounded, original", path, line)
		}
		r, err1 := strconv.ParseFloat(f[2], 64)
		a, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			continue // an empty cell: "-"
		}
		cells++
		if k := r / base; k != math.Round(k) {
			t.Errorf("%s: %q: %v is not a multiple of %v", path, line, r, base)
		}
		if math.Abs(r-a) >= base && !(partitioned && strings.Trim(f[0], `"`) == "Total") {
			t.Errorf("%s: %q: rounded %v one multiple or more from %v", path, line, r, a)
		}
		if r != a {
			changed++
		}
		if strings.Trim(f[1], `"`) == "Total" {
			if strings.Trim(f[0], `"`) == "Total" {
				total = r
			} else {
				sizeSum += r
			}
		}
	}
	if cells == 0 || math.Abs(sizeSum-total) > 1e-6 {
		t.Errorf("%s: %d cells; the Size cells of the Region total add up to %v, the total is %v", path, cells, sizeSum, total)
	}
	return changed
}

// TestRoundingJob runs RND jobs through the real host and the rounding
// plugin: a frequency table as rtauargus writes the job, with every output
// type τ-Argus allows after rounding, and Var2 with the arguments after the
// base omitted. The rounded tables are written, multiples of the base,
// zero-restricted and additive; the logbook has τ-Argus's rounding lines.
func TestRoundingJob(t *testing.T) {
	plugins := realPlugins(t)
	t.Setenv("TMPDIR", t.TempDir())
	for _, tc := range []struct {
		scenario, out string
		base          float64
		partitioned   bool
	}{
		{"simple2d_rnd_freq.arb", "rnd3.txt", 5, false},
		{"simple2d_rnd_var2.arb", "var2_3.txt", 3000, false},
		{"simple2d_rnd_part.arb", "part3.txt", 5, true},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			job := simple2DJob(t, tc.scenario, "")
			dir := filepath.Dir(job)
			logbook := filepath.Join(dir, "logbook.txt")
			report := filepath.Join(dir, "report.json")
			code, out, errOut := run(t, plugins, job, logbook, "-", "--report="+report)
			lb, _ := os.ReadFile(logbook)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
			}
			start := "Start of the rounding procedure for table: Size x Region"
			if tc.partitioned {
				start += " | <freq> (with partitions)"
			}
			for _, want := range []string{start,
				"Table has been rounded", "Rounding base:   " + strconv.Itoa(int(tc.base)),
				"End of the rounding procedure", "Check of the rounded table"} {
				if !strings.Contains(string(lb), want) {
					t.Errorf("logbook lacks %q:\n%s", want, lb)
				}
			}
			if n := checkRoundedOutput(t, filepath.Join(dir, tc.out), tc.base, tc.partitioned); n == 0 {
				t.Error("no cell changed by rounding")
			}
			rep, err := os.ReadFile(report)
			if err != nil || strings.Contains(string(rep), `"jumps": 0`) == tc.partitioned || !strings.Contains(string(rep), `"mode": "rounded"`) {
				t.Errorf("run report: %v\n%s", err, rep)
			}
			if tc.scenario != "simple2d_rnd_freq.arb" {
				return
			}
			for f, want := range map[string]string{"rnd1.csv": "", "rnd2.csv": "\"Freq\"", "rnd4.sbs": "", "rnd5.tab": ""} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || len(b) == 0 || !strings.Contains(string(b), want) {
					t.Errorf("%s: %v, %d bytes, lacks %q", f, err, len(b), want)
				}
				if strings.Contains(string(b), ",x") {
					t.Errorf("%s shows x after rounding:\n%s", f, b)
				}
			}
		})
	}
}

// TestRoundingBadArguments: τ-Argus's refusals of RND arguments, with its
// messages in the logbook and exit code 2, and no output written: a base
// below the table's minimum (the frequency rule's 3), stop rule 3, output
// type 6 after rounding.
func TestRoundingBadArguments(t *testing.T) {
	plugins := realPlugins(t)
	t.Setenv("TMPDIR", t.TempDir())
	head := "<OPENMICRODATA> \"tau_testW.asc\"\r\n<OPENMETADATA> \"Tau_TestW.rda\"\r\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"<freq>\"||\r\n<SAFETYRULE> FREQ(3,10)\r\n<READMICRODATA>\r\n"
	for _, tc := range []struct{ name, lines, want string }{
		{"base below minimum", "<SUPPRESS> RND(1,2,0,10,0,2)\r\n<WRITETABLE> (1,3,AS+,\"out.txt\")\r\n",
			"The rounding base is too small\n                       A minimum of 3 is required"},
		{"stop rule 3", "<SUPPRESS> RND(1,5,0,10,0,3)\r\n<WRITETABLE> (1,3,AS+,\"out.txt\")\r\n",
			"Illegal value for Stopping Rule (valid: 1,2,3): 3"},
		{"type 6", "<SUPPRESS> RND(1,5)\r\n<WRITETABLE> (1,6,,\"out.txt\")\r\n", "is not allowed for this type of protection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := simple2DJob(t, "", head+tc.lines)
			dir := filepath.Dir(job)
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, job, logbook)
			lb, _ := os.ReadFile(logbook)
			text := strings.ReplaceAll(string(lb), "\r\n", "\n")
			if code != ExitError || !strings.Contains(text, tc.want) || !strings.Contains(text, "Error in batch file") {
				t.Errorf("exit %d (want %d); logbook lacks %q:\n%s%s\n%s", code, ExitError, tc.want, out, errOut, lb)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
				t.Error("an output was written")
			}
		})
	}
}
