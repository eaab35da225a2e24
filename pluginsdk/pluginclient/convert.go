package pluginclient

import (
	"fmt"
	"time"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// This file converts what the host receives from a plugin (its
// self-description, diagnostics, figures, progress) from the generated wire
// types and what it sends (limits, tables) to them; the plugin's directions
// are in pluginsdk, the chunked cell data in stream.go.

func infoFromProto(m *sdcpb.MethodInfo) pluginsdk.MethodInfo {
	c := m.GetCapabilities()
	out := pluginsdk.MethodInfo{
		Code: m.GetCode(), Aliases: m.GetAliases(), Summary: m.GetSummary(), Description: m.GetDescription(),
		Capabilities: pluginsdk.Capabilities{
			Output:            pluginsdk.OutputKind(c.GetOutput()),
			NeedsFrequency:    c.GetNeedsFrequency(),
			LinkedTables:      c.GetLinkedTables(),
			MaxDimensions:     int(c.GetMaxDimensions()),
			ThreadIndependent: c.GetThreadIndependent(),
		},
	}
	for _, s := range m.GetStructures() {
		out.Structures = append(out.Structures, pluginsdk.Structure(s))
	}
	for _, p := range m.GetParams() {
		out.Params = append(out.Params, pluginsdk.ParamSpec{
			Name: p.GetName(), Type: pluginsdk.ParamType(p.GetType()), Default: p.GetDefaultValue(), Required: p.GetRequired(),
			Help: p.GetHelp(), Allowed: p.GetAllowedValues(), BatchPosition: int(p.GetBatchPosition()),
			Min: p.GetMin(), Max: p.GetMax(), Batch: batchFormFromProto(p.GetBatch()),
			Role: pluginsdk.ParamRole(p.GetRole()), Levels: levelsFromProto(p.GetSingletonLevels()),
		})
	}
	return out
}

func levelsFromProto(ls []sdcpb.SingletonProtection) []pluginsdk.SingletonProtection {
	if len(ls) == 0 {
		return nil
	}
	out := make([]pluginsdk.SingletonProtection, len(ls))
	for i, l := range ls {
		out[i] = pluginsdk.SingletonProtection(l)
	}
	return out
}

func diagsFromProto(ds []*sdcpb.Diagnostic) []pluginsdk.Diagnostic {
	var out []pluginsdk.Diagnostic
	for _, d := range ds {
		out = append(out, pluginsdk.Diagnostic{
			Severity: pluginsdk.Severity(d.GetSeverity()), Code: d.GetCode(), Summary: d.GetSummary(), Detail: d.GetDetail(),
			Cells: wire.Ints(d.GetCells()), Relations: wire.Ints(d.GetRelations()), Param: d.GetParam(),
		})
	}
	return out
}

func statsFromProto(s *sdcpb.Stats) pluginsdk.Stats {
	return pluginsdk.Stats{
		Objective: s.GetObjective(), Bound: s.GetBound(), Gap: s.GetGap(), Iterations: s.GetIterations(),
		Nodes: s.GetNodes(), SolverTime: time.Duration(s.GetSolverTimeMs()) * time.Millisecond,
		WallTime: time.Duration(s.GetWallTimeMs()) * time.Millisecond, Secondaries: s.GetSecondaries(),
		SuppressedCost: s.GetSuppressedCost(), UnderProtectedBefore: s.GetUnderProtectedBefore(),
		UnderProtectedAfter: s.GetUnderProtectedAfter(), Extra: s.GetExtra(),
	}
}

func publishedFromProto(p *sdcpb.Published) *pluginsdk.Published {
	if p == nil {
		return nil
	}
	return &pluginsdk.Published{Alpha: p.GetAlpha(), Beta: p.GetBeta(), Extra: p.GetExtra()}
}

func progressFromProto(p *sdcpb.Progress) pluginsdk.Progress {
	return pluginsdk.Progress{Phase: p.GetPhase(), Fraction: p.GetFraction(), Iterations: p.GetIterations(),
		Objective: p.GetObjective(), Bound: p.GetBound(), Message: p.GetMessage()}
}

func limitsToProto(l pluginsdk.Limits) *sdcpb.Limits {
	return &sdcpb.Limits{TimeLimitMs: l.TimeLimit.Milliseconds(), Threads: int32(l.Threads), Seed: l.Seed,
		MemoryHintBytes: l.MemoryHint}
}

func tablesToProto(ts []pluginsdk.Table) []*sdcpb.TableSpec {
	out := make([]*sdcpb.TableSpec, 0, len(ts))
	for _, t := range ts {
		spec := &sdcpb.TableSpec{Name: t.Name}
		for _, d := range t.Dims {
			spec.Dimensions = append(spec.Dimensions, &sdcpb.Dimension{
				Name: d.Name, Codes: d.Codes, Parent: d.Parent, Depth: d.Depth, Trivial: d.Trivial,
			})
		}
		out = append(out, spec)
	}
	return out
}

func batchFormFromProto(f *sdcpb.BatchForm) pluginsdk.BatchForm {
	return pluginsdk.BatchForm{Syntax: pluginsdk.BatchSyntax(f.GetSyntax()), Label: f.GetLabel(), Above: f.GetAbove(),
		InvalidMessage: f.GetInvalidMessage(), NotLinked: f.GetNotLinked()}
}

// verdictsFromProto converts the verdict arrays of a ResultBlock; both
// have one entry per cell of the block, or are both empty. The wire enums
// number the kinds and reasons as package verdict does.
func verdictsFromProto(kinds []sdcpb.ProtectionVerdict, reasons []sdcpb.VerdictReason) ([]verdict.Verdict, error) {
	if len(kinds) != len(reasons) {
		return nil, fmt.Errorf("%d verdicts with %d reasons", len(kinds), len(reasons))
	}
	out := make([]verdict.Verdict, len(kinds))
	for i, k := range kinds {
		v := verdict.Verdict{Kind: verdict.Kind(k), Reason: verdict.Reason(reasons[i])}
		if k < 0 || reasons[i] < 0 || int64(k) > 255 || int64(reasons[i]) > 255 || !v.Kind.Valid() || !v.Reason.Valid() {
			return nil, fmt.Errorf("verdict %d with reason %d out of range", k, reasons[i])
		}
		out[i] = v
	}
	return out, nil
}
