package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// TestDescribe checks the batch positions of τ-Argus's GH(t, aprioriPct,
// modelSize, singleton) and their defaults.
func TestDescribe(t *testing.T) {
	info := plugin().Methods[0].Info()
	if info.Code != "GH" || !info.Capabilities.LinkedTables {
		t.Fatalf("code %q linked %v", info.Code, info.Capabilities.LinkedTables)
	}
	want := map[int][2]string{1: {"apriori_pct", "100"}, 2: {"model_size", "0"}, 3: {"singleton", "true"}}
	for _, p := range info.Params {
		if p.BatchPosition == 0 {
			continue
		}
		w, ok := want[p.BatchPosition]
		if !ok || w[0] != p.Name || w[1] != p.Default {
			t.Errorf("position %d: %s default %q", p.BatchPosition, p.Name, p.Default)
		}
		delete(want, p.BatchPosition)
	}
	if len(want) > 0 {
		t.Errorf("missing batch positions %v", want)
	}
	// τ-Argus writes the singleton flag as 0/1.
	for _, v := range []map[string]string{{"singleton": "0"}, {"singleton": "1"}, {"apriori_pct": "50", "model_size": "1"}} {
		if _, diags := pluginsdk.ValidateParams(plugin().Methods[0], v); len(diags) > 0 {
			t.Errorf("%v: %v", v, diags)
		}
	}
}
