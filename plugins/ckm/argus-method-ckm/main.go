// Command argus-method-ckm is the cell key method plugin: method CKM
// perturbs frequency and magnitude tables with the cell keys of their cells
// and p-tables made by the R package ptable (package plugins/ckm/ckm). The
// same cell key and value give the same noise in every table and on every
// machine; the perturbed values are published cell by cell and are not
// additive.
//
// τ-Argus form: CKM(t) [ptable] for a frequency table, CKM(t) [ptCont] |
// [ptSep] | [muC] for a magnitude table; the host passes the p-table files
// and the CKM settings of the .rda as the parameters below.
package main

import "github.com/sdcengine/argus/pluginsdk"

// version is the plugin's version.
const version = "0.1.0"

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	return pluginsdk.Plugin{Name: "ckm", Version: version, Methods: []pluginsdk.Method{method{}}}
}
