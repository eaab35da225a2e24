package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/modular/hitas"
	"github.com/sdcengine/argus/pluginsdk"
)

// modular is the MOD method.
type modular struct{}

// Parameter names.
const (
	pMaxTime         = "max_time_per_subtable"
	pGap             = "subtable_gap"
	pMasterSolves    = "subtable_master_solves"
	pMasterStall     = "subtable_master_stall"
	pSingleSingle    = "single_single"
	pSingleMultiple  = "single_multiple"
	pMinFreq         = "min_freq"
	pMaxScaledCost   = "max_scaled_cost"
	pLowerMargin     = "lower_margin"
	pUpperMargin     = "upper_margin"
	pMinFrequency    = "min_frequency"
	pDistance        = "distance"
	pDistanceWeights = "distance_weights"
	pAudit           = "audit"
	pStart           = "start"
	pSearch          = "subtable_search"
)

// Info describes MOD.
func (modular) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "MOD",
		Summary: "modular cell suppression (HiTaS): sub-tables protected top down with the optimal engine",
		Description: "Splits every hierarchical table into non-hierarchical sub-tables (level tuples in increasing order), " +
			"solves each exactly with margins fixed as decided before (suppressed margins protected like primaries with " +
			"the secondaries' protection levels, safe margins expensive), backtracks when a margin has to be suppressed, " +
			"applies τ-Argus's singleton options per row, and finally audits the whole problem and repairs every primary " +
			"left under-protected across sub-tables.",
		Params: []pluginsdk.ParamSpec{
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "1", BatchPosition: 1, Min: "0",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "max time"},
				Help:  "time limit per sub-table (minutes, or a Go duration; 0: none); the best protected pattern of the sub-table is kept"},
			{Name: pGap, Type: pluginsdk.ParamFloat, Default: "0.02", Min: "0", Max: "1",
				Help: "relative gap (cost − bound) / cost at which a sub-table's solve stops (0: prove every sub-table's pattern optimal); " +
					"the pattern protects the sub-table whatever the gap, which only bounds how much dearer than the sub-table's optimum it may be"},
			{Name: pMasterSolves, Type: pluginsdk.ParamInt, Default: "7", Min: "-1",
				Help: "integer master solves per sub-table after its root (0: no bound, −1: none, the root's LP-guided pattern is kept); " +
					"they only prove and improve the sub-table's pattern, which protects the sub-table whatever their number"},
			{Name: pMasterStall, Type: pluginsdk.ParamInt, Default: "2", Min: "0",
				Help: "end a sub-table's master solves after this many in a row found no cheaper pattern (0: go on up to " + pMasterSolves + "); " +
					"like " + pMasterSolves + " it bounds work, never protection"},
			{Name: pStart, Type: pluginsdk.ParamEnum, Default: "net", Allowed: []string{"net", "none"},
				Help: "start pattern of each two-dimensional sub-table's exact solve: none, or net (NET's shortest-path pattern, " +
					"which the engine checks and completes, so protection never depends on it)"},
			{Name: pSearch, Type: pluginsdk.ParamEnum, Default: "auto", Allowed: []string{"auto", "full"},
				Help: "search of each sub-table: auto (the exact search on sub-tables of one or two dimensions; those of three or more end " +
					"with their pattern from hypercubes, cleaned up, as their LP bound is too weak for the search to pay) or full (the exact " +
					"search on every sub-table); either protects every sub-table"},
			{Name: pSingleSingle, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 2, Role: pluginsdk.RoleSingletonRule,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton-singleton"},
				Help:  "protect rows whose only primaries are two single-respondent cells"},
			{Name: pSingleMultiple, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 3, Role: pluginsdk.RoleSingletonRule,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton-multiple"},
				Help:  "protect rows whose only primaries are a single-respondent and another primary"},
			{Name: pMinFreq, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 4,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "min frequency"},
				Help:  "protect rows whose small primaries have frequencies adding up to less than the minimum frequency"},
			{Name: pMaxScaledCost, Type: pluginsdk.ParamFloat, Default: "20000", BatchPosition: 5, Min: "1",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "max scaling cost", NotLinked: true,
					Above: "0", InvalidMessage: "Illegal Max Scaling Cost: %s"},
				Help: "MSC: the weight of a sub-table's total after rescaling (weights are rounded up to integers)"},
			{Name: pLowerMargin, Type: pluginsdk.ParamFloat, Default: "0.99", BatchPosition: 6, Min: "0", Max: "1",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "lower margin", NotLinked: true},
				Help:  "LOWERMARG: a secondary's lower protection level is (1 − LOWERMARG)·|value|, at most the sub-table's largest"},
			{Name: pUpperMargin, Type: pluginsdk.ParamFloat, Default: "1.01", BatchPosition: 7, Min: "1",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "upper margin", NotLinked: true},
				Help:  "UPPERMARG: a secondary's upper protection level is (UPPERMARG − 1)·|value|, at most the sub-table's largest"},
			{Name: pMinFrequency, Type: pluginsdk.ParamInt, Default: "0", Min: "0",
				Help: "the minimum frequency of the frequency rule, for min_freq; 0: one more than the largest frequency of a frequency-unsafe cell (none without such cells)"},
			{Name: pDistance, Type: pluginsdk.ParamBool, Default: "false",
				Help: "τ-Argus's distance cost function: cells near a primary of their sub-table are cheaper"},
			{Name: pDistanceWeights, Type: pluginsdk.ParamString, Default: "",
				Help: "the distance costs D1..D5 per dimension, \"1,2,3,4,5;1,1,2,2,3\" (default 1 everywhere)"},
			{Name: pAudit, Type: pluginsdk.ParamBool, Default: "true",
				Help: "audit the whole problem at the end and repair the primaries left under-protected across sub-tables"},
		},
		Capabilities: pluginsdk.Capabilities{
			Output:         pluginsdk.OutputSuppression,
			NeedsFrequency: true,
			LinkedTables:   true,
			// Sub-tables run side by side only when they share no cell,
			// each on one engine worker, and their results are applied in
			// sub-table order: the walk one after the other.
			ThreadIndependent: true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked, pluginsdk.StructureGeneral},
	}
}

// ValidateParams checks the distance weights.
func (modular) ValidateParams(p pluginsdk.Params) []pluginsdk.Diagnostic {
	if _, err := parseDistance(p.String(pDistanceWeights)); err != nil {
		return []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityError, Code: "param.invalid", Param: pDistanceWeights,
			Summary: err.Error()}}
	}
	return nil
}

// parseDistance reads "d1,..,d5;d1,..,d5" into five weights per dimension.
func parseDistance(s string) ([][5]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out [][5]float64
	for _, dim := range strings.Split(s, ";") {
		f := strings.Split(dim, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("distance weights %q: want five numbers per dimension", dim)
		}
		var w [5]float64
		for k, x := range f {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("distance weights %q: %q is not a positive number", dim, x)
			}
			w[k] = v
		}
		out = append(out, w)
	}
	return out, nil
}

// Protect runs HiTaS, then the final audit and repair (package
// plugins/modular/hitas).
func (modular) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	dw, _ := parseDistance(req.Params.String(pDistanceWeights))
	o := hitas.Options{
		Options:     base.FromRequest(ctx, req, 0),
		PerSubtable: req.Params.Duration(pMaxTime), Gap: req.Params.Float(pGap), MasterSolves: req.Params.Int(pMasterSolves), MasterStall: req.Params.Int(pMasterStall),
		NetStart: req.Params.String(pStart) == "net", FullSearch: req.Params.String(pSearch) == "full",
		Singletons: hitas.Singletons{SingleSingle: req.Params.Bool(pSingleSingle),
			SingleMultiple: req.Params.Bool(pSingleMultiple), MinFreq: req.Params.Bool(pMinFreq)},
		MaxScaledCost: req.Params.Float(pMaxScaledCost), LowerMargin: req.Params.Float(pLowerMargin),
		UpperMargin: req.Params.Float(pUpperMargin), Distance: req.Params.Bool(pDistance), DistanceWeights: dw,
		MinFrequency: req.Params.Int(pMinFrequency), FinalAudit: req.Params.Bool(pAudit),
		Seed: req.Limits.Seed, Log: req.Log,
	}
	return hitas.Protect(ctx, req.Problem, o)
}
