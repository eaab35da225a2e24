package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFailBeforeWork: a job that would fail on something that needs no
// data (an output type its method's result does not allow, an output
// folder that is missing, an unmapped Windows output path, an input file
// that is not there, a rounding base below the minimum of the frequency
// rule, a table number never specified) ran every line before the bad one
// (tables computed and protected, outputs written) and failed only there.
// It is refused before the first command runs: exit 2, the batch line and
// column of the field, no command executed, nothing written.
func TestFailBeforeWork(t *testing.T) {
	plugins := realPlugins(t)
	t.Setenv("TMPDIR", t.TempDir())
	scenario := func(name string) string {
		b, err := os.ReadFile(filepath.Join(repoDir, "testdata", "scenarios", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ip, rnd := scenario("simple2d_ip.arb"), scenario("simple2d_rnd_freq.arb")
	for _, c := range []struct {
		name, job string
		want      []string
		not       []string          // in neither logbook nor stderr
		files     map[string]string // inputs replaced
	}{
		{"IP and type 6", strings.Replace(ip, `(1, 5, , "ip5.tab")`, `(1, 6, , "ip6.jj")`, 1),
			[]string{"job.arb:14:18: Chosen output type 6 is not allowed for this type of protection"}, nil, nil},
		{"missing output folder", strings.Replace(ip, `"ip5.tab"`, `"nodir/ip5.tab"`, 1),
			[]string{`job.arb:14:23: output folder "nodir" does not exist`}, nil, nil},
		{"unmapped output path", strings.Replace(ip, `"ip5.tab"`, `"Z:\out\ip5.tab"`, 1),
			[]string{`job.arb:14:23: Z:\out\ip5.tab: no path mapping covers this Windows path`, `pathmap Z:\ <directory>`}, nil, nil},
		{"missing input after the work", ip + "<CLEAR>\n<OPENMICRODATA> \"nosuch.asc\"\n",
			[]string{"job.arb:16:17: file: nosuch.asc could not be found"}, nil, nil},
		{"rounding base below the frequency rule", strings.Replace(rnd, "RND(1,5,", "RND(1,2,", 1),
			[]string{"job.arb:11:18: The rounding base is too small", "A minimum of 3 is required"}, nil, nil},
		{"table never specified", strings.Replace(ip, `(1, 5, , "ip5.tab")`, `(2, 5, , "ip5.tab")`, 1),
			[]string{"job.arb:14:15: Illegal table number (2)"}, nil, nil},
		{"unmapped input path", strings.Replace(ip, `"tau_testW.asc"`, `"U:\data\tau_testW.asc"`, 1),
			[]string{`job.arb:5:17: U:\data\tau_testW.asc: no path mapping covers this Windows path`, `pathmap U:\ <directory>`},
			[]string{"is used as given"}, nil},
		{"version file in a missing folder", ip + "<VERSIONINFO> \"nodir/v.txt\"\n",
			[]string{`job.arb:15:15: output folder "nodir" does not exist`}, nil, nil},
		{"keyword out of order after the work", ip + "<SAFETYRULE> P(15,1)\n",
			[]string{"job.arb:15:1: This keyword (<SAFETYRULE>) is not allowed in this position"}, nil, nil},
		{"malformed line after the work", ip + "<NOSUCH> 1\n", []string{"job.arb:15:1: Unknown keyword <NOSUCH>"}, nil, nil},
		{"bad <SUPPRESS> argument after the work", ip + "<SUPPRESS> GH(1,100,x)\n",
			[]string{"job.arb:15:21: Illegal value (x) for model size in GH"}, nil, nil},
		{"binary hierarchy file", ip, []string{"job.arb:6:16: the file of <HIERCODELIST> of variable Region", "region2.hrc:1:3: a NUL byte"}, nil,
			map[string]string{"region2.hrc": "PK\x00\x01;\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := simple2DJob(t, "", c.job)
			dir := filepath.Dir(job)
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := listDir(t, dir)
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, job, logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitError {
				t.Fatalf("exit %d, want %d\n%s%s\n%s", code, ExitError, out, errOut, lb)
			}
			for _, w := range c.want {
				if !strings.Contains(string(lb), w) || !strings.Contains(errOut, w) {
					t.Errorf("logbook or stderr lacks %q:\n%s\n%s", w, lb, errOut)
				}
			}
			for _, w := range c.not {
				if strings.Contains(string(lb), w) || strings.Contains(errOut, w) {
					t.Errorf("logbook or stderr says %q:\n%s\n%s", w, lb, errOut)
				}
			}
			if !strings.Contains(string(lb), "refused before the job started") || strings.Contains(string(lb), "<READMICRODATA>") {
				t.Errorf("the job ran before the refusal:\n%s", lb)
			}
			after := slices.DeleteFunc(listDir(t, dir), func(n string) bool { return n == "logbook.txt" || n == "job.report.json" })
			if !slices.Equal(before, after) {
				t.Errorf("files written: before %q, after %q", before, after)
			}
		})
	}
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestBadInputRefused: bad input that was accepted silently (a .tab line
// with more or fewer fields than the .rda declares, a negative frequency
// or protection level, a binary file as a-priori file or metadata, whose
// lines were skipped as incorrect and the file called applied) is an error
// naming the file, line and field: exit 2, no output.
func TestBadInputRefused(t *testing.T) {
	const rda = "<SEPARATOR> \";\"\nA\n  <RECODEABLE>\n  <TOTCODE> \"T\"\nV\n  <NUMERIC>\nN\n  <FREQUENCY>\n" +
		"S\n  <STATUS>\nL\n  <NUMERIC> <LOWERPL>\nU\n  <NUMERIC> <UPPERPL>\n"
	const tab = "a;1;1;S;;\nb;2;1;U;1;1\nT;3;2;S;;\n"
	const job = "<OPENTABLEDATA> \"t.tab\"\n<OPENMETADATA> \"t.rda\"\n<SPECIFYTABLE> \"A\"|\"V\"||\n<SAFETYRULE> MAN(10)\n" +
		"<READTABLE> 1\n<APRIORI> \"t.hst\", 1, \";\", 1, 0\n<WRITETABLE> (1,3,AS+,\"out.txt\")\n"
	binary := "PK\x03\x04\x14\x00;\x00\x08\x00\n" + strings.Repeat("\x00\x9c;\x01\xff\n", 50)
	for _, c := range []struct {
		name  string
		files map[string]string // replaced files
		want  []string
	}{
		{"a .tab line with a field too many", map[string]string{"t.tab": strings.Replace(tab, "b;2;1;U;1;1", "b;2;1;U;1;1;7", 1)},
			[]string{"t.tab on line 2", "the line has 7 fields, the metadata declares 6 (A;V;N;S;L;U)"}},
		{"a .tab line with fields missing", map[string]string{"t.tab": strings.Replace(tab, "a;1;1;S;;", "a;1", 1)},
			[]string{"t.tab on line 1", "the line has 2 fields, the metadata declares 6"}},
		{"a negative protection level in a .tab", map[string]string{"t.tab": strings.Replace(tab, "b;2;1;U;1;1", "b;2;1;U;-1;1", 1)},
			[]string{"t.tab on line 2", "field 5 (L): a protection level cannot be negative"}},
		{"a negative frequency in a .tab", map[string]string{"t.tab": strings.Replace(tab, "b;2;1;U;1;1", "b;2;-1;U;1;1", 1)},
			[]string{"t.tab on line 2", "field 3 (N): a frequency cannot be negative"}},
		{"a binary a-priori file", map[string]string{"t.hst": binary},
			[]string{"job.arb:6:11: ", "t.hst:1:6: a NUL byte: this is not a text file"}},
		{"a binary metadata file", map[string]string{"t.rda": binary},
			[]string{"job.arb:2:16: ", "t.rda:1:6: a NUL byte"}},
		{"a .tab in UTF-16", map[string]string{"t.tab": "\xff\xfea\x00;\x001\x00"},
			[]string{"job.arb:1:17: ", "t.tab:1:4: a NUL byte"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"t.rda": rda, "t.tab": tab, "t.hst": "a;S\n", "job.arb": job}
			for name, text := range c.files {
				files[name] = text
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, t.TempDir(), filepath.Join(dir, "job.arb"), logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitError {
				t.Fatalf("exit %d, want %d\n%s%s\n%s", code, ExitError, out, errOut, lb)
			}
			for _, w := range c.want {
				if !strings.Contains(string(lb), w) || !strings.Contains(errOut, w) {
					t.Errorf("logbook or stderr lacks %q:\n%s\n%s", w, lb, errOut)
				}
			}
			if strings.Contains(string(lb), "has been applied") {
				t.Errorf("logbook says the a-priori file was applied:\n%s", lb)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
				t.Error("out.txt written")
			}
		})
	}
}

// TestBadCommandLine: negative (and, where 0 means nothing sensible,
// zero) durations and counts on the command line were taken as "none" or
// the default, or made the job fail with a misleading message
// (--time-limit=-5s: "job time limit reached"); an output folder that does
// not exist was reported through the temporary file's name. Each is refused
// before any work, naming the option, with exit 2 and no logbook.
func TestBadCommandLine(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(job, []byte("<OPENTABLEDATA> \"t.tab\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logbook := filepath.Join(dir, "log.txt")
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{job, logbook, "--time-limit=-5s"}, "option --time-limit: -5s: must not be negative"},
		{[]string{job, logbook, "--time-limit=0s"}, "option --time-limit: 0s: must be more than zero"},
		{[]string{job, logbook, "--suppress-limit=-1m"}, "option --suppress-limit: -1m: must not be negative"},
		{[]string{job, logbook, "--audit-limit=0"}, "option --audit-limit: 0: must be more than zero"},
		{[]string{job, logbook, "--threads=-2"}, "option --threads: -2: must be at least 1"},
		{[]string{job, logbook, "--transient-status=-1"}, "option --transient-status: -1: must not be negative"},
		{[]string{job, logbook, "--transient-status=300"}, "an exit status is at most 255"},
		{[]string{job, logbook, "--report=nodir/r.json"}, `option --report=nodir/r.json: report folder "nodir" does not exist`},
		{[]string{"run-all", "-workers", "-1", dir}, `invalid value "-1" for flag -workers: -1: must not be negative`},
		{[]string{"run-all", "-retries=-1", dir}, `invalid value "-1" for flag -retries`},
		{[]string{"run-all", "-time-limit=-5s", dir}, `invalid value "-5s" for flag -time-limit: -5s: must not be negative`},
		{[]string{"run-all", dir, "--", "--time-limit=-5s"}, "job options after --: option --time-limit: -5s: must not be negative"},
		{[]string{"worker", "-nats", "nats://127.0.0.1:1", "-ack-wait=0s"}, `invalid value "0s" for flag -ack-wait`},
		{[]string{"worker", "-nats", "nats://127.0.0.1:1", "-max-deliveries=0"}, `invalid value "0" for flag -max-deliveries: 0: must be at least 1`},
		{[]string{"worker", "-nats", "nats://127.0.0.1:1", "--", "--threads=0"}, "job options after --: option --threads: 0: must be at least 1"},
		{[]string{"status", "-nats", "nats://127.0.0.1:1", "-wait=-1s"}, `invalid value "-1s" for flag -wait`},
		{[]string{"generate", "-shape", "4x3", "-maxfreq", "-3", "-jj", "x.jj"}, `invalid value "-3" for flag -maxfreq`},
		{[]string{"generate", "-shape", "4x3", "-units", "-2", "-jj", "x.jj"}, `invalid value "-2" for flag -units`},
		{[]string{"generate", "-shape", "4x3", "-job", "gen/t"}, `-job gen/t: output folder "gen" does not exist`},
		{[]string{"generate", "-shape", "4x3", "-jj", "x.jj", "-job", "gen/t"}, `-job gen/t: output folder "gen" does not exist`},
	} {
		t.Run(strings.Join(c.args[max(0, len(c.args)-2):], " "), func(t *testing.T) {
			code, out, errOut := run(t, t.TempDir(), c.args...)
			if code != ExitError || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q, want %q\n%s", code, errOut, c.want, out)
			}
			for _, f := range []string{logbook, "x.jj", "gen"} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s written", f)
					os.RemoveAll(f)
				}
			}
		})
	}
}

// TestAprioriSkippedWarned: an a-priori file whose lines are skipped or
// refused under IgnoreError (τ-Argus's batch default: a negative
// protection level or cost, an unknown code or action) was reported as
// "has been applied" and nothing more; the logbook and stderr now warn,
// naming the lines.
func TestAprioriSkippedWarned(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"t.rda": "<SEPARATOR> \";\"\nA\n  <RECODEABLE>\n  <TOTCODE> \"T\"\nV\n  <NUMERIC>\nN\n  <FREQUENCY>\n" +
			"S\n  <STATUS>\nL\n  <NUMERIC> <LOWERPL>\nU\n  <NUMERIC> <UPPERPL>\n",
		"t.tab": "a;1;1;S;;\nb;2;1;U;1;1\nT;3;2;S;;\n",
		"t.hst": "b;PL;-1;2\na;C;-5\nzz;S\na;X\na;S\n",
		"job.arb": "<OPENTABLEDATA> \"t.tab\"\n<OPENMETADATA> \"t.rda\"\n<SPECIFYTABLE> \"A\"|\"V\"||\n<SAFETYRULE> MAN(10)\n" +
			"<READTABLE> 1\n<APRIORI> \"t.hst\", 1, \";\", 1, 0\n<WRITETABLE> (1,3,AS+,\"out.txt\")\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logbook := filepath.Join(dir, "logbook.txt")
	report := filepath.Join(dir, "report.json")
	code, out, errOut := run(t, t.TempDir(), filepath.Join(dir, "job.arb"), logbook, "--report="+report)
	lb, _ := os.ReadFile(logbook)
	rep, _ := os.ReadFile(report)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	want := "a-priori file t.hst: 4 of its 5 lines skipped or refused (IgnoreError): line 1: Illegal values for the protection levels; " +
		"line 2: Illegal new cost value; line 3: Code number 1 code: zz could not be found; line 4: Illegal apriori command(X)"
	if !strings.Contains(string(lb), "WARNING: "+want) || !strings.Contains(string(rep), "job.arb:6: warning: "+want) {
		t.Errorf("logbook or run report lacks the warning %q:\n%s\n%s", want, lb, rep)
	}
}
