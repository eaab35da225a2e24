package gh

import (
	"testing"

	"github.com/sdcengine/argus/plugins/internal/scalebench"
	"github.com/sdcengine/argus/pluginsdk"
)

// BenchmarkScale protects the generated hierarchical 3-D and 4-D tables of
// about 10⁴, 10⁵ and 10⁶ cells (5 % primaries; batch/tablegen.ScaleSpec)
// with GH at τ-Argus's defaults (singleton protection and the repair on),
// through the plugin wire path, and audits every pattern (package
// plugins/internal/scalebench says how and what is reported). Run, one
// size per process for a clean peak RSS:
//
//	ARGUS_SCALE_MAX=2e6 go test ./plugins/hypercube/gh -run '^$' -bench 'Scale/3D/1e6' -benchtime 1x
//	/usr/bin/time -v go test … (or the compiled test binary) for the max RSS
func BenchmarkScale(b *testing.B) {
	scalebench.Run(b, scalebench.Method{
		Plugin: pluginsdk.Plugin{Name: "hypercube", Version: "bench", Methods: []pluginsdk.Method{Method{}}},
		Code:   "GH",
	})
}
