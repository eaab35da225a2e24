package arb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpusDir = testcorpus.Dir()

// dump renders a parsed job as stable text for golden comparisons.
func dump(j *Job, err error) string {
	var b strings.Builder
	for _, c := range j.Commands {
		h := c.Head()
		fmt.Fprintf(&b, "%s %s %q\n", h.Pos, h.Keyword, h.Line)
		switch c := c.(type) {
		case *SafetyRule:
			fmt.Fprintf(&b, "    statusOnly=%v holding=%v\n", c.StatusOnly, c.Holding)
			for _, r := range c.Rules {
				fmt.Fprintf(&b, "    %s %+v\n", r.Name(), r)
			}
		case *Suppress:
			fmt.Fprintf(&b, "    method=%s table=%d", c.Method, c.Table)
			for _, a := range c.Args {
				if a.Err != nil {
					fmt.Fprintf(&b, " arg@%d:%v", a.Comma.Column, a.Err)
				} else {
					fmt.Fprintf(&b, " arg@%d=%q", a.Pos.Column, a.Text)
				}
			}
			fmt.Fprintf(&b, " end@%d=%q rest=%q\n", c.EndPos.Column, c.End, c.Rest)
		default:
			s := fmt.Sprintf("%+v", c)
			// drop the header, already printed
			if i := strings.Index(s, "} "); i >= 0 && strings.HasPrefix(s, "&{Header:") {
				s = "{" + s[i+2:]
			} else {
				s = ""
			}
			if s != "" {
				fmt.Fprintf(&b, "    %s\n", s)
			}
		}
	}
	for _, w := range j.Warnings {
		fmt.Fprintf(&b, "%s\n", w)
	}
	if err != nil {
		fmt.Fprintf(&b, "ERROR %v\n", err)
	}
	if oerr := j.CheckOrder(); oerr != nil {
		fmt.Fprintf(&b, "ORDER %v\n", oerr)
	}
	return b.String()
}

func parseFile(t *testing.T, path, name string) (*Job, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(f, name)
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.arb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			j, err := parseFile(t, path, name)
			if err != nil {
				t.Errorf("unexpected error: %v", err)
			}
			golden.CheckString(t, filepath.Join("testdata", "golden", name+".golden"), dump(j, err))
		})
	}
}

// TestCorpus parses every .arb of the corpus. All of them are accepted by
// τ-Argus 4.2.5 (as specified) and must parse without error and pass the
// ordering rules.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("corpus not available")
	}
	n := 0
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".arb") {
			return err
		}
		rel, _ := filepath.Rel(corpusDir, path)
		n++
		t.Run(rel, func(t *testing.T) {
			j, err := parseFile(t, path, filepath.Base(path))
			if err != nil {
				t.Fatal(err)
			}
			if err := j.CheckOrder(); err != nil {
				t.Fatal(err)
			}
			goldenFile := filepath.Join("testdata", "corpus", strings.ReplaceAll(rel, string(filepath.Separator), "__")+".golden")
			golden.CheckString(t, goldenFile, dump(j, nil))
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("found %d .arb files in the corpus, want 6", n)
	}
}

// TestRealLogbook rebuilds the batch jobs recorded in the real τ-Argus
// 4.2.3 logbook of the rtauargus vignette (every command line is logged
// before it runs, and all these runs ended with "End of TauArgus run"):
// every job must parse and respect the ordering rules.
func TestRealLogbook(t *testing.T) {
	path := filepath.Join(corpusDir, "InseeFrLab", "rtauargus", "vignettes", "logbook.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip("corpus not available")
	}
	var jobs []string
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		i := strings.Index(line, " : ")
		if i < 0 || !strings.Contains(line[:i], ":") {
			continue // continuation line
		}
		msg := line[i+3:]
		switch {
		case strings.HasPrefix(msg, "Start of batch procedure"):
			jobs = append(jobs, "")
		case strings.HasPrefix(msg, "<") && len(jobs) > 0:
			jobs[len(jobs)-1] += msg + "\n"
		}
	}
	if len(jobs) != 7 {
		t.Fatalf("found %d runs, want 7", len(jobs))
	}
	for i, job := range jobs {
		j, err := Parse(strings.NewReader(job), fmt.Sprintf("run%d.arb", i+1))
		if err != nil {
			t.Errorf("run %d: %v", i+1, err)
			continue
		}
		if err := j.CheckOrder(); err != nil {
			t.Errorf("run %d: %v", i+1, err)
		}
		if len(j.Warnings) != 0 {
			t.Errorf("run %d: warnings %v", i+1, j.Warnings)
		}
	}
}

// TestConfidential: <CONFIDENTIAL> n (an argus extension) parses to its
// table number and is allowed where <SUPPRESS> is.
func TestConfidential(t *testing.T) {
	src := "<OPENMICRODATA> \"d.asc\"\n<OPENMETADATA> \"d.rda\"\n<SPECIFYTABLE> \"A\"\"B\"|\"V\"||\n<SAFETYRULE> NK(3,75)\n" +
		"<CONFIDENTIAL> 1\n<READMICRODATA>\n"
	job, err := Parse(strings.NewReader(src), "c.arb")
	if err != nil {
		t.Fatal(err)
	}
	var got *Confidential
	for _, c := range job.Commands {
		if cc, ok := c.(*Confidential); ok {
			got = cc
		}
	}
	if got == nil || got.Table != 1 {
		t.Fatalf("got %+v", got)
	}
	if err := job.CheckOrder(); err != nil {
		t.Fatal(err)
	}
}
