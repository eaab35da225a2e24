// Command argus-method-interval is the interval protection plugin: method
// IP publishes every cell as an interval containing its value, so that no
// attacker who knows all intervals, the relations and the a-priori bounds
// can narrow a sensitive cell below its protection levels, at the least
// weighted total width (package plugins/interval/interval; Castro and Via
// 2016, "Revisiting interval protection, a.k.a. partial cell suppression,
// for tabular data", PSD 2016).
//
// Batch form: IP(t), an extension of τ-Argus's syntax; the parameters are
// set by name. At the time limit the best feasible intervals are returned
// with outcome TIME_LIMIT, the bound and the gap in the statistics.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "interval", Version: version, Methods: []pluginsdk.Method{method{}}}
}
