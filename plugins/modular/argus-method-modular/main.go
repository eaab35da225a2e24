// Command argus-method-modular is the modular (HiTaS) cell suppression
// plugin: method MOD decomposes every hierarchical table into its
// non-hierarchical sub-tables, protects them one by one, top down, with the
// exact engine of plugins/internal/csp, and propagates protection through
// the margins of later sub-tables (de Wolf 2002; package
// plugins/modular/hitas). This package declares the method's parameters
// and turns them into hitas.Options.
//
// τ-Argus form: MOD(t, maxMinPerSubtable, singleSingle, singleMultiple,
// minFreq[, MSC, LOWERMARG, UPPERMARG]); table 0 protects the linked set.
//
// Beyond τ-Argus: any number of dimensions, a final audit of the whole
// problem (pluginsdk/audit) and the repair of every primary the sub-tables
// left under-protected, so the returned pattern protects every primary
// against the attacker of the audit.
package main

import (
	"github.com/sdcengine/argus/plugins/modular/hitas"
	"github.com/sdcengine/argus/pluginsdk"
)

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	// The sub-tables of a wave go out as work items (hitas.ItemKind),
	// which a worker of the host's work queue runs with --item.
	return pluginsdk.Plugin{Name: "modular", Version: version, Methods: []pluginsdk.Method{modular{}},
		Items: map[string]pluginsdk.ItemFunc{hitas.ItemKind: hitas.RunItem}}
}
