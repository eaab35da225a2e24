package pluginsdk

import (
	"time"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// This file converts what a plugin sends (its self-description, diagnostics,
// figures, progress) to the generated wire types and what it receives
// (limits, tables) from them; the host's directions are in
// pluginsdk/pluginclient, the chunked cell data in stream.go.

func infoToProto(m MethodInfo) *sdcpb.MethodInfo {
	out := &sdcpb.MethodInfo{
		Code: m.Code, Aliases: m.Aliases, Summary: m.Summary, Description: m.Description,
		Capabilities: &sdcpb.Capabilities{
			Output:            sdcpb.OutputKind(m.Capabilities.Output),
			NeedsFrequency:    m.Capabilities.NeedsFrequency,
			LinkedTables:      m.Capabilities.LinkedTables,
			MaxDimensions:     int32(m.Capabilities.MaxDimensions),
			ThreadIndependent: m.Capabilities.ThreadIndependent,
		},
	}
	for _, s := range m.Structures {
		out.Structures = append(out.Structures, sdcpb.TableStructure(s))
	}
	for _, p := range m.Params {
		out.Params = append(out.Params, &sdcpb.ParamSpec{
			Name: p.Name, Type: sdcpb.ParamType(p.Type), DefaultValue: p.Default, Required: p.Required,
			Help: p.Help, AllowedValues: p.Allowed, BatchPosition: int32(p.BatchPosition), Min: p.Min, Max: p.Max,
			Batch: batchFormToProto(p.Batch), Role: sdcpb.ParamRole(p.Role), SingletonLevels: levelsToProto(p.Levels),
		})
	}
	return out
}

func levelsToProto(ls []SingletonProtection) []sdcpb.SingletonProtection {
	if len(ls) == 0 {
		return nil
	}
	out := make([]sdcpb.SingletonProtection, len(ls))
	for i, l := range ls {
		out[i] = sdcpb.SingletonProtection(l)
	}
	return out
}

// batchFormToProto returns nil for the zero form (nothing on the wire).
func batchFormToProto(f BatchForm) *sdcpb.BatchForm {
	if f == (BatchForm{}) {
		return nil
	}
	return &sdcpb.BatchForm{Syntax: sdcpb.BatchSyntax(f.Syntax), Label: f.Label, Above: f.Above,
		InvalidMessage: f.InvalidMessage, NotLinked: f.NotLinked}
}

func diagsToProto(ds []Diagnostic) []*sdcpb.Diagnostic {
	out := make([]*sdcpb.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, &sdcpb.Diagnostic{
			Severity: sdcpb.Severity(d.Severity), Code: d.Code, Summary: d.Summary, Detail: d.Detail,
			Cells: wire.Int64s(d.Cells), Relations: wire.Int64s(d.Relations), Param: d.Param,
		})
	}
	return out
}

func statsToProto(s Stats) *sdcpb.Stats {
	return &sdcpb.Stats{
		Objective: s.Objective, Bound: s.Bound, Gap: s.Gap, Iterations: s.Iterations, Nodes: s.Nodes,
		SolverTimeMs: s.SolverTime.Milliseconds(), WallTimeMs: s.WallTime.Milliseconds(),
		Secondaries: s.Secondaries, SuppressedCost: s.SuppressedCost,
		UnderProtectedBefore: s.UnderProtectedBefore, UnderProtectedAfter: s.UnderProtectedAfter,
		Extra: s.Extra,
	}
}

func publishedToProto(p *Published) *sdcpb.Published {
	if p == nil {
		return nil
	}
	return &sdcpb.Published{Alpha: p.Alpha, Beta: p.Beta, Extra: p.Extra}
}

func progressToProto(p Progress) *sdcpb.Progress {
	return &sdcpb.Progress{Phase: p.Phase, Fraction: p.Fraction, Iterations: p.Iterations,
		Objective: p.Objective, Bound: p.Bound, Message: p.Message}
}

func limitsFromProto(l *sdcpb.Limits) Limits {
	return Limits{TimeLimit: time.Duration(l.GetTimeLimitMs()) * time.Millisecond, Threads: int(l.GetThreads()),
		Seed: l.GetSeed(), MemoryHint: l.GetMemoryHintBytes()}
}

func tablesFromProto(ts []*sdcpb.TableSpec) []Table {
	var out []Table
	for _, t := range ts {
		tab := Table{Name: t.GetName()}
		for _, d := range t.GetDimensions() {
			tab.Dims = append(tab.Dims, Dimension{
				Name: d.GetName(), Codes: d.GetCodes(), Parent: d.GetParent(), Depth: d.GetDepth(), Trivial: d.GetTrivial(),
			})
		}
		out = append(out, tab)
	}
	return out
}

// verdictsToProto converts protection verdicts into the verdict and
// verdict_reason arrays of a ResultBlock. The wire enums number the kinds
// and reasons as package verdict does.
func verdictsToProto(vs []verdict.Verdict) ([]sdcpb.ProtectionVerdict, []sdcpb.VerdictReason) {
	if len(vs) == 0 {
		return nil, nil
	}
	kinds, reasons := make([]sdcpb.ProtectionVerdict, len(vs)), make([]sdcpb.VerdictReason, len(vs))
	for i, v := range vs {
		kinds[i], reasons[i] = sdcpb.ProtectionVerdict(v.Kind), sdcpb.VerdictReason(v.Reason)
	}
	return kinds, reasons
}
