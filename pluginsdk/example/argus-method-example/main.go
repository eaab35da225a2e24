// Command example is a complete, minimal protection-method plugin written only
// against the public SDK: a rectangle heuristic for two-dimensional tables,
// served under the method code RECT. It is the starting point for writing
// your own method; see the README's "Write your own method" section.
//
// For every primary cell the method suppresses the cheapest rectangle of four
// cells that has the primary as a corner: the primary's row and column each
// get one more suppressed cell, and so does the cell where they cross. It does
// not check protection levels, so its result is audited by the host like
// every other.
package main

import "github.com/sdcengine/argus/pluginsdk"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "example", Version: "0.1.0", Methods: []pluginsdk.Method{rectangle{}}}
}
