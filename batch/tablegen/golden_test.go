package tablegen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/internal/golden"
)

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
			golden.Check(t, filepath.Join("testdata", name+".golden"), got.Bytes())
		})
	}
}
