// Command argus-method-keep is a test method plugin serving KEEP: it adds
// no secondary suppression, so every primary with published margins is
// disclosed, and the host's audit must say so.
package main

import (
	"context"
	"slices"

	"github.com/sdcengine/argus/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{Name: "keep", Version: "0.0.1", Methods: []pluginsdk.Method{method{}}})
}

type method struct{}

func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:         "KEEP",
		Summary:      "test method: the primaries only",
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression, LinkedTables: true},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked, pluginsdk.StructureGeneral},
	}
}

func (method) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	return &pluginsdk.Result{Status: slices.Clone(req.Problem.Cells.Status), Outcome: pluginsdk.OutcomeFeasible}, nil
}
