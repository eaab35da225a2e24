// Command argus-method-hypercube is the hypercube plugin: method GH,
// τ-Argus's hypercube (GHMiter) for hierarchical, k-dimensional and linked
// tables, followed by an audit-driven repair of under-protected primaries
// (package plugins/hypercube/gh).
package main

import (
	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/pluginsdk"
)

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "hypercube", Version: "0.1.0", Methods: []pluginsdk.Method{gh.Method{}}}
}
