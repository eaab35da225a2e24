package rda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpusDir = testcorpus.Dir()

// dump renders parsed metadata as stable text for golden comparisons.
func dump(m *Metadata) string {
	var b strings.Builder
	fmt.Fprintf(&b, "origin=%s format=%s separator=%q safe=%q unsafe=%q protect=%q\n",
		m.Origin, m.Format, m.Separator, m.Safe, m.Unsafe, m.Protect)
	for _, k := range sortedKeys(m.GlobalPos) {
		fmt.Fprintf(&b, "  global %s at %s\n", k, m.GlobalPos[k])
	}
	for _, v := range m.Variables {
		fmt.Fprintf(&b, "var %q at %s kind=%s start=%d length=%d missing=%q decimals=%d\n",
			v.Name, v.Pos, v.Kind, v.Start, v.Length, v.Missing, v.Decimals)
		fmt.Fprintf(&b, "  totcode=%q (total %q) codelist=%q truncable=%v\n", v.TotCode, v.TotalCode(), v.CodeList, v.Truncable)
		fmt.Fprintf(&b, "  hierarchy=%s levels=%v file=%q lead=%q\n", v.Hierarchy, v.HierLevels, v.HierFile, v.HierLeadString)
		if v.HasDistance {
			fmt.Fprintf(&b, "  distance=%v\n", v.Distance)
		}
		if v.Kind == Request {
			fmt.Fprintf(&b, "  request=%q\n", v.RequestCodes)
		}
		if v.PTableFile+v.PTableFileCont+v.PTableFileSep != "" {
			fmt.Fprintf(&b, "  ptables freq=%q cont=%q sep=%q\n", v.PTableFile, v.PTableFileCont, v.PTableFileSep)
		}
		if c := v.CKM; c.Type != "N" || c.Scaling != "" {
			fmt.Fprintf(&b, "  ckm type=%s topk=%d zeros=%v parity=%v separation=%v scaling=%q s0=%g s1=%g x*=%g q=%g eps=%v\n",
				c.Type, c.TopK, c.IncludeZeros, c.Parity, c.Separation, c.Scaling, c.Sigma0, c.Sigma1, c.XStar, c.Q, c.Epsilon)
		}
		for _, k := range sortedKeys(v.KeywordPos) {
			fmt.Fprintf(&b, "  %s at %s\n", k, v.KeywordPos[k])
		}
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(&b, "%s\n", w)
	}
	return b.String()
}

func sortedKeys(m map[string]poserr.Pos) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func parseFile(t *testing.T, path string, origin Origin) (*Metadata, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(f, filepath.Base(path), origin)
}

// tabularFiles lists the tabular metadata among the test and corpus files;
// everything else is microdata metadata (τ-Argus learns the origin from
// the batch command, not from the file).
var tabularFiles = map[string]bool{
	"pp.rda": true, "metadata_ex1.rda": true, "ex1.rda": true, "ex2.rda": true,
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.rda")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			origin := Microdata
			if tabularFiles[name] {
				origin = Tabular
			}
			m, err := parseFile(t, path, origin)
			if strings.HasPrefix(name, "rdata_") {
				if !errors.Is(err, ErrRData) {
					t.Fatalf("want ErrRData, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			golden.CheckString(t, filepath.Join("testdata", "golden", name+".golden"), dump(m))
		})
	}
}

// TestCorpus parses every .rda of the corpus: the 13 τ-Argus metadata files
// must parse, the 14 R workspace files (rtauargus/data, sdcTable/data) must
// be recognised as such.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("corpus not available")
	}
	var nMeta, nR int
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".rda") {
			return err
		}
		rel, _ := filepath.Rel(corpusDir, path)
		name := filepath.Base(path)
		origin := Microdata
		if tabularFiles[name] {
			origin = Tabular
		}
		isR := strings.Contains(rel, "rtauargus/data/") || strings.Contains(rel, "sdcTable/data/")
		t.Run(rel, func(t *testing.T) {
			m, err := parseFile(t, path, origin)
			if isR {
				nR++
				if !errors.Is(err, ErrRData) {
					t.Fatalf("R workspace not recognised: %v", err)
				}
				return
			}
			nMeta++
			if err != nil {
				t.Fatal(err)
			}
			goldenFile := filepath.Join("testdata", "corpus", strings.ReplaceAll(rel, string(filepath.Separator), "__")+".golden")
			golden.CheckString(t, goldenFile, dump(m))
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if nMeta != 13 || nR != 14 {
		t.Errorf("found %d metadata and %d R files, want 13 and 14", nMeta, nR)
	}
}
