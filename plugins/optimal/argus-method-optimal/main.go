// Command argus-method-optimal is the optimal cell suppression plugin:
// method OPT finds the secondary suppressions of least total cost that
// protect every primary cell of the whole table (any number of dimensions,
// hierarchies, linked tables, or general linear relations) against the
// attacker of the audit, by Benders decomposition with HiGHS (package
// plugins/internal/csp; Castro 2012, "Recent advances in optimization
// techniques for statistical tabular data protection", European Journal of
// Operational Research, §4.1).
//
// τ-Argus form: OPT(t, maxMinutes). At the time limit the best protected
// pattern found is returned with outcome TIME_LIMIT, its lower bound and
// gap in the statistics.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin { return optimal{}.plugin() }

// plugin is the plugin serving opt.
func (opt optimal) plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "optimal", Version: version, Methods: []pluginsdk.Method{opt}}
}
