// Command argus-method-ecta is the enhanced controlled tabular adjustment
// plugin: method ECTA publishes an adjusted, additive table with two
// parameters, α (the largest relative perturbation of a sensitive cell) and
// β (that of the other cells, minimised), such that an attacker who knows
// them cannot narrow any sensitive cell below its protection levels
// (package plugins/ecta/ecta; Hernández García and Salazar González 2012,
// "Exploratory report on the future of SDC-software tools in general and
// the ECTA method in more details", Data without Boundaries D11.1 Part A).
//
// Batch form (argus's extension of τ-Argus's syntax):
// ECTA(t[, alpha[, T[, K[, seed]]]]); the other parameters by name.
// α and β are returned as the result's published parameters.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "ecta", Version: version, Methods: []pluginsdk.Method{method{}}}
}
