// Command argus-method-rounding is the controlled rounding plugin: method
// RND rounds every cell of a table, totals included, to a multiple of the
// rounding base so that the table stays additive, at the least distance
// from the original (package plugins/rounding/rounding).
//
// τ-Argus form: RND(t, base[, steps[, max time[, partitions[, stop rule[,
// unit cost]]]]]), read by the host with τ-Argus's checks; the gap is set
// by name. The rounded table is checked (pluginsdk/rounded) before it is
// returned.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "rounding", Version: version, Methods: []pluginsdk.Method{method{}}}
}
