package main

import (
	"path/filepath"
	"testing"
)

// TestRtauargusJobs runs MOD on the two jobs rtauargus writes
// (testdata/rtauargus_dt1: datatest1 with split_tab and its a-priori file;
// rtauargus_splitvig: the split_tab vignette's first call) as the host sends
// them and asks for a pattern the audit finds clean. datatest1 crashed the
// plugin: a hypercube was searched around a primary whose own capacity
// (its a-priori bound) was below the amount to move.
func TestRtauargusJobs(t *testing.T) {
	for _, name := range []string{"rtauargus_dt1", "rtauargus_splitvig"} {
		t.Run(name, func(t *testing.T) {
			_, n, _ := runJob(t, batchJob(t, filepath.Join("testdata", name)))
			if n == 0 {
				t.Fatal("no secondary suppression: the job's primaries need some")
			}
		})
	}
}
