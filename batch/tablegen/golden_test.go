package tablegen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden pins the generated tables: benchmarks quote figures by spec
// and seed, so a change of the random stream or of the layout must be
// deliberate (go test -run TestGolden -update, and say so).
func TestGolden(t *testing.T) {
	for name, s := range map[string]Spec{
		"uniform_t2.2x3": {Shape: "t2.2x3", Seed: 1, Protection: Protection{Lower: 0.05, Upper: 0.2}},
		"micro_h11x3":    {Shape: "h11x3", Seed: 2, Values: ValuesMicro, Units: 60, Primary: Rule{Kind: RuleDominance, N: 2, K: 80}, Protection: Protection{FromRule: true}},
		"roehrig_r6p2x2": {Shape: "r6p2x2", Seed: 3, Values: ValuesRoehrig, Primary: Rule{Kind: RuleFrequency, N: 3}, Cost: CostFreq},
	} {
		t.Run(name, func(t *testing.T) {
			in := generate(t, s)
			var got bytes.Buffer
			if err := in.WriteJJ(&got, nil); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := in.WriteJob(Job{Dir: dir, Name: "job"}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"job.tab", "job.arb"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				got.WriteString("==> " + f + "\n")
				got.Write(b)
			}
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s differs from %s (run with -update if intended)\n%s", name, path, got.String())
			}
		})
	}
}
