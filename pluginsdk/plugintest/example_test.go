package plugintest_test

import (
	"fmt"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// myPlugin stands for the plugin a method author tests; see
// pluginsdk/example/argus-method-example for a complete one.
func myPlugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "mine", Version: "0.1.0", Methods: nil /* your methods */}
}

// Run is called from a test of the plugin's main package: it serves the
// plugin in-process through the real wire path and runs the conformance
// suite as subtests.
func ExampleRun() {
	// In argus-method-mine/main_test.go:
	testConformance := func(t *testing.T) {
		plugintest.Run(t, myPlugin(), nil)
	}
	_ = testConformance
}

// Grid builds a synthetic table to test a method on: here 3 × 2 interior
// cells with a total per dimension, a third of the interior cells primary.
func ExampleGrid() {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 2}, Seed: 1, PrimaryFraction: 0.34})
	primaries := 0
	for _, s := range p.Cells.Status {
		if s.IsPrimary() {
			primaries++
		}
	}
	fmt.Println("cells:", p.NumCells(), "relations:", p.NumRelations(), "valid:", p.Validate() == nil)
	fmt.Println("codes of dimension A:", p.Tables[0].Dims[0].Codes)
	fmt.Println("primaries:", primaries)
	// Output:
	// cells: 12 relations: 7 valid: true
	// codes of dimension A: [T 1 2 3]
	// primaries: 2
}
