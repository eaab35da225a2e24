package main

import (
	"os"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/scalebench"
)

// BenchmarkScale protects the generated hierarchical 3-D and 4-D tables of
// about 10⁴, 10⁵ and 10⁶ cells (5 % primaries; batch/tablegen.ScaleSpec)
// with OPT under a time limit (ARGUS_SCALE_OPT, a max_time value, default
// 2m: the best protected pattern found by then; ARGUS_SCALE_OPT_START, a
// start value), through the plugin wire
// path, and audits every pattern (package plugins/internal/scalebench says
// how and what is reported). Run, one size per process:
//
//	ARGUS_SCALE_OPT=5m go test ./plugins/optimal/argus-method-optimal -run '^$' -bench 'Scale/4D/1e5' -benchtime 1x
func BenchmarkScale(b *testing.B) {
	limit := "2m"
	if s := os.Getenv("ARGUS_SCALE_OPT"); s != "" {
		limit = s
	}
	params := map[string]string{pMaxTime: limit}
	if s := os.Getenv("ARGUS_SCALE_OPT_START"); s != "" {
		params[pStart] = s
	}
	scalebench.Run(b, scalebench.Method{Plugin: plugin(), Code: "OPT", Params: params})
}
