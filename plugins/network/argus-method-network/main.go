// Command argus-method-network is the network plugin: method NET, Castro's
// shortest-paths heuristic for two-dimensional tables (Castro 2007, "A
// shortest-paths heuristic for statistical data protection in positive
// tables", INFORMS Journal on Computing 19(4)), for flat and 1H2D tables as
// τ-Argus and for tables hierarchical in both dimensions, followed by a
// clean-up of redundant secondaries and an audit-driven repair (package
// plugins/network/netflow).
//
// τ-Argus form: NET(t). The order of the primaries and the singleton
// switches are keyword parameters.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "network", Version: version, Methods: []pluginsdk.Method{network{}}}
}
