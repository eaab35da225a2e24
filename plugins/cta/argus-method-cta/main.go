// Command argus-method-cta is the controlled tabular adjustment plugin:
// method CTA publishes an adjusted, additive table in which every sensitive
// cell has left its protection interval, at the least weighted L1 distance
// from the original table (package plugins/cta/cta; Castro 2006,
// "Minimum-distance controlled perturbation methods for large-scale tabular
// data protection", European Journal of Operational Research 171).
//
// τ-Argus form: CTA(t), no positional parameters; the others are set by
// name. At the time limit the best protected table found is returned with
// outcome TIME_LIMIT, its lower bound and gap in the statistics.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "cta", Version: version, Methods: []pluginsdk.Method{method{}}}
}
