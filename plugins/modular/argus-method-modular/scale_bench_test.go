package main

import (
	"testing"

	"github.com/sdcengine/argus/plugins/internal/scalebench"
)

// BenchmarkScale protects the generated hierarchical 3-D and 4-D tables of
// about 10⁴, 10⁵ and 10⁶ cells (5 % primaries; batch/tablegen.ScaleSpec)
// with MOD at its defaults, through the plugin wire path, and audits every
// pattern (package plugins/internal/scalebench says how and what is
// reported). ARGUS_SCALE_LIMIT (default 10m) is the soft time limit of the
// whole run. Run, one size per process for a clean peak RSS:
//
//	go test ./plugins/modular/argus-method-modular -run '^$' -bench 'Scale/3D/1e4' -benchtime 1x
func BenchmarkScale(b *testing.B) {
	scalebench.Run(b, scalebench.Method{Plugin: plugin(), Code: "MOD"})
}
