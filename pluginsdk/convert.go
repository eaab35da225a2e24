package pluginsdk

import (
	"time"

	"github.com/sdcengine/argus/internal/sdcpb"
	"github.com/sdcengine/argus/internal/wire"
)

// This file converts between the SDK's Go types and the generated wire types
// for everything except the chunked cell data (stream.go).

func infoToProto(m MethodInfo) *sdcpb.MethodInfo {
	out := &sdcpb.MethodInfo{
		Code: m.Code, Aliases: m.Aliases, Summary: m.Summary, Description: m.Description,
		Capabilities: &sdcpb.Capabilities{
			Output:                   sdcpb.OutputKind(m.Capabilities.Output),
			NeedsRelations:           m.Capabilities.NeedsRelations,
			NeedsHierarchy:           m.Capabilities.NeedsHierarchy,
			NeedsFrequency:           m.Capabilities.NeedsFrequency,
			NeedsTopContributions:    m.Capabilities.NeedsTopContributions,
			ReportsProgress:          m.Capabilities.ReportsProgress,
			HonoursCancellation:      m.Capabilities.HonoursCancellation,
			Deterministic:            m.Capabilities.Deterministic,
			PartialResultOnTimeLimit: m.Capabilities.PartialResultOnTimeLimit,
			LinkedTables:             m.Capabilities.LinkedTables,
			MaxDimensions:            int32(m.Capabilities.MaxDimensions),
			GuaranteesProtection:     m.Capabilities.GuaranteesProtection,
		},
	}
	for _, s := range m.Structures {
		out.Structures = append(out.Structures, sdcpb.TableStructure(s))
	}
	for _, p := range m.Params {
		out.Params = append(out.Params, &sdcpb.ParamSpec{
			Name: p.Name, Type: sdcpb.ParamType(p.Type), DefaultValue: p.Default, Required: p.Required,
			Help: p.Help, AllowedValues: p.Allowed, BatchPosition: int32(p.BatchPosition), Min: p.Min, Max: p.Max,
		})
	}
	return out
}

func infoFromProto(m *sdcpb.MethodInfo) MethodInfo {
	c := m.GetCapabilities()
	out := MethodInfo{
		Code: m.GetCode(), Aliases: m.GetAliases(), Summary: m.GetSummary(), Description: m.GetDescription(),
		Capabilities: Capabilities{
			Output:                   OutputKind(c.GetOutput()),
			NeedsRelations:           c.GetNeedsRelations(),
			NeedsHierarchy:           c.GetNeedsHierarchy(),
			NeedsFrequency:           c.GetNeedsFrequency(),
			NeedsTopContributions:    c.GetNeedsTopContributions(),
			ReportsProgress:          c.GetReportsProgress(),
			HonoursCancellation:      c.GetHonoursCancellation(),
			Deterministic:            c.GetDeterministic(),
			PartialResultOnTimeLimit: c.GetPartialResultOnTimeLimit(),
			LinkedTables:             c.GetLinkedTables(),
			MaxDimensions:            int(c.GetMaxDimensions()),
			GuaranteesProtection:     c.GetGuaranteesProtection(),
		},
	}
	for _, s := range m.GetStructures() {
		out.Structures = append(out.Structures, Structure(s))
	}
	for _, p := range m.GetParams() {
		out.Params = append(out.Params, ParamSpec{
			Name: p.GetName(), Type: ParamType(p.GetType()), Default: p.GetDefaultValue(), Required: p.GetRequired(),
			Help: p.GetHelp(), Allowed: p.GetAllowedValues(), BatchPosition: int(p.GetBatchPosition()),
			Min: p.GetMin(), Max: p.GetMax(),
		})
	}
	return out
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

func diagsFromProto(ds []*sdcpb.Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		out = append(out, Diagnostic{
			Severity: Severity(d.GetSeverity()), Code: d.GetCode(), Summary: d.GetSummary(), Detail: d.GetDetail(),
			Cells: wire.Ints(d.GetCells()), Relations: wire.Ints(d.GetRelations()), Param: d.GetParam(),
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

func statsFromProto(s *sdcpb.Stats) Stats {
	return Stats{
		Objective: s.GetObjective(), Bound: s.GetBound(), Gap: s.GetGap(), Iterations: s.GetIterations(),
		Nodes: s.GetNodes(), SolverTime: time.Duration(s.GetSolverTimeMs()) * time.Millisecond,
		WallTime: time.Duration(s.GetWallTimeMs()) * time.Millisecond, Secondaries: s.GetSecondaries(),
		SuppressedCost: s.GetSuppressedCost(), UnderProtectedBefore: s.GetUnderProtectedBefore(),
		UnderProtectedAfter: s.GetUnderProtectedAfter(), Extra: s.GetExtra(),
	}
}

func publishedToProto(p *Published) *sdcpb.Published {
	if p == nil {
		return nil
	}
	return &sdcpb.Published{Alpha: p.Alpha, Beta: p.Beta, Extra: p.Extra}
}

func publishedFromProto(p *sdcpb.Published) *Published {
	if p == nil {
		return nil
	}
	return &Published{Alpha: p.GetAlpha(), Beta: p.GetBeta(), Extra: p.GetExtra()}
}

func progressToProto(p Progress) *sdcpb.Progress {
	return &sdcpb.Progress{Phase: p.Phase, Fraction: p.Fraction, Iterations: p.Iterations,
		Objective: p.Objective, Bound: p.Bound, Message: p.Message}
}

func progressFromProto(p *sdcpb.Progress) Progress {
	return Progress{Phase: p.GetPhase(), Fraction: p.GetFraction(), Iterations: p.GetIterations(),
		Objective: p.GetObjective(), Bound: p.GetBound(), Message: p.GetMessage()}
}

func limitsToProto(l Limits) *sdcpb.Limits {
	return &sdcpb.Limits{TimeLimitMs: l.TimeLimit.Milliseconds(), Threads: int32(l.Threads), Seed: l.Seed,
		MemoryHintBytes: l.MemoryHint}
}

func limitsFromProto(l *sdcpb.Limits) Limits {
	return Limits{TimeLimit: time.Duration(l.GetTimeLimitMs()) * time.Millisecond, Threads: int(l.GetThreads()),
		Seed: l.GetSeed(), MemoryHint: l.GetMemoryHintBytes()}
}

func tablesToProto(ts []Table) []*sdcpb.TableSpec {
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
