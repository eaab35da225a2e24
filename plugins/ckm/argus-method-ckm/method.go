package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/plugins/ckm/ckm"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// method is the cell key method.
type method struct{}

// Parameter names.
const (
	pTable      = "table"
	pPTable     = "ptable"
	pPTableCont = "ptable_cont"
	pPTableSep  = "ptable_sep"
	pType       = "type"
	pTopK       = "top_k"
	pParity     = "parity"
	pSeparation = "separation"
	pScaling    = "scaling"
	pSigma0     = "sigma0"
	pSigma1     = "sigma1"
	pXStar      = "xstar"
	pQ          = "q"
	pEpsilon    = "epsilon"
	pMuC        = "mu_c"
	pKeyDec     = "key_decimals"
	pWeighted   = "weighted"
)

// Info describes CKM.
func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "CKM",
		Summary: "cell key method: noise from p-tables chosen by each cell's key, the same for the same cell in every table",
		Description: "Perturbs every cell by noise drawn from a perturbation table (p-table, as the R package ptable " +
			"exports it) with the cell's key (the fractional part of the sum of its records' keys) as the random number, " +
			"as τ-Argus 4.2 does. Frequency tables: the count's row of the p-table. Magnitude tables: the top k " +
			"contributions (or the mean, the largest minus the smallest contribution, or the value) scaled by the flex function, unsafe cells pushed by muC, small " +
			"contributions perturbed with the separation p-table. Empty cells stay 0, protected cells keep their value. " +
			"The perturbed values are published cell by cell and are not additive.",
		Params: []pluginsdk.ParamSpec{
			{Name: pTable, Type: pluginsdk.ParamEnum, Default: "frequency", Allowed: []string{"frequency", "magnitude"},
				Help: "frequency: perturb the counts with the frequency p-table; magnitude: perturb the values with the magnitude p-tables"},
			{Name: pPTable, Type: pluginsdk.ParamString, Help: "frequency p-table file (columns i;j;p;v;p_int_ub)"},
			{Name: pWeighted, Type: pluginsdk.ParamBool, Default: "false",
				Help: "the table applies weights: frequency tables scale the perturbed count by the cell's mean weight; magnitude tables of type T weight the top contributions, of type M take the weighted mean"},
			{Name: pPTableCont, Type: pluginsdk.ParamString, Help: "magnitude p-table file (columns i;j;p;v;p_int_ub;type)"},
			{Name: pPTableSep, Type: pluginsdk.ParamString, Help: "separation p-table file for small contributions (rows of type all)"},
			{Name: pType, Type: pluginsdk.ParamEnum, Default: "T", Allowed: []string{"T", "M", "D", "V"},
				Help: "magnitude CKM type: T top k contributions, M the mean contribution, D the largest minus the smallest contribution, V the cell value"},
			{Name: pTopK, Type: pluginsdk.ParamInt, Default: "1", Min: "1", Max: "1000", Help: "k of type T"},
			{Name: pParity, Type: pluginsdk.ParamBool, Default: "false", Help: "even and odd frequencies use the p-table's even and odd rows"},
			{Name: pSeparation, Type: pluginsdk.ParamBool, Default: "false", Help: "small contributions use the separation p-table"},
			{Name: pScaling, Type: pluginsdk.ParamEnum, Default: "N", Allowed: []string{"F", "N"},
				Help: "F: the flex function of sigma0, sigma1, xstar and q; N: sigma1 alone"},
			{Name: pSigma0, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Help: "relative noise of large contributions (scaling F)"},
			{Name: pSigma1, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Help: "relative noise of small contributions"},
			{Name: pXStar, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Help: "x*: where the flex function starts to fall (scaling F)"},
			{Name: pQ, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Help: "q: how fast the flex function falls (scaling F)"},
			{Name: pEpsilon, Type: pluginsdk.ParamString, Default: "1",
				Help: "epsilon_1,…,epsilon_k, comma-separated: the weights of the k contributions (epsilon_1 is 1)"},
			{Name: pMuC, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Help: "muC: extra push of unsafe cells"},
			{Name: pKeyDec, Type: pluginsdk.ParamInt, Default: "15", Min: "1", Max: strconv.Itoa(ckm.MaxKeyDecimals),
				Help: "decimals of the record key: the cell key digits shifted between draws (magnitude)"},
		},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputPerturbed, NeedsFrequency: true, ThreadIndependent: true},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureGeneral},
	}
}

func invalid(param, format string, args ...any) *pluginsdk.Result {
	return &pluginsdk.Result{Outcome: pluginsdk.OutcomeInvalidParams, Diagnostics: []pluginsdk.Diagnostic{{
		Severity: pluginsdk.SeverityError, Code: "param.invalid", Param: param, Summary: fmt.Sprintf(format, args...)}}}
}

// readTable reads the p-table file of parameter param.
func readTable(params pluginsdk.Params, param string, kind ptable.Kind) (*ptable.Table, *pluginsdk.Result) {
	name := params.String(param)
	if name == "" {
		return nil, invalid(param, "no %s p-table file given (parameter %s)", kind, param)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, invalid(param, "p-table: %v", err)
	}
	defer f.Close()
	t, err := ptable.Read(f, name, kind)
	if err != nil {
		return nil, invalid(param, "%v", err)
	}
	return t, nil
}

// Protect perturbs the table.
func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	params := req.Params
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Values: []float64{}, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	var res *ckm.Result
	var err error
	magnitude := params.String(pTable) == "magnitude"
	if !magnitude {
		pt, bad := readTable(params, pPTable, ptable.Frequency)
		if bad != nil {
			return bad, nil
		}
		res, err = ckm.Frequency(ctx, p, pt, params.Bool(pWeighted))
	} else {
		m := ckm.Magnitude{Type: ckm.Type(params.String(pType)), TopK: params.Int(pTopK), Parity: params.Bool(pParity),
			Separation: params.Bool(pSeparation), FlexScaling: params.String(pScaling) == "F",
			Sigma0: params.Float(pSigma0), Sigma1: params.Float(pSigma1), XStar: params.Float(pXStar), Q: params.Float(pQ),
			MuC: params.Float(pMuC), KeyDecimals: params.Int(pKeyDec), Weighted: params.Bool(pWeighted)}
		for _, s := range strings.Split(params.String(pEpsilon), ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return invalid(pEpsilon, "epsilon %q is not a number", s), nil
			}
			m.Epsilon = append(m.Epsilon, x)
		}
		var bad *pluginsdk.Result
		if m.Cont, bad = readTable(params, pPTableCont, ptable.Magnitude); bad != nil {
			return bad, nil
		}
		if m.Separation {
			if m.Sep, bad = readTable(params, pPTableSep, ptable.Magnitude); bad != nil {
				return bad, nil
			}
		}
		if err := m.Check(); err != nil {
			return invalid("", "%v", err), nil
		}
		res, err = m.Perturb(ctx, p)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, pluginsdk.Errorf("ckm.input", "cell key method: %v", err)
	}
	out := &pluginsdk.Result{Status: status, Values: res.Values, Outcome: pluginsdk.OutcomeOptimal}
	out.Stats = pluginsdk.Stats{WallTime: time.Since(start), Extra: figures(p, res, magnitude)}
	return out, nil
}

// figures is the distribution of the perturbations: τ-Argus's counts of
// cells per (rounded) difference for frequency tables ("noise_<d>"), and
// for both kinds the non-empty cells, the changed ones, the smallest and
// largest difference, the mean absolute difference and, for magnitude
// tables, quantiles of the absolute relative difference.
func figures(p *pluginsdk.Problem, r *ckm.Result, magnitude bool) map[string]float64 {
	f := map[string]float64{"cells": 0, "empty": 0, "changed": 0, "noise_min": 0, "noise_max": 0, "mean_abs_noise": 0}
	var rel []float64
	sum := 0.0
	for i, s := range p.Cells.Status {
		if s == cellstatus.Empty {
			f["empty"]++
			continue
		}
		d := r.Noise[i]
		f["cells"]++
		if d != 0 {
			f["changed"]++
		}
		f["noise_min"] = math.Min(f["noise_min"], d)
		f["noise_max"] = math.Max(f["noise_max"], d)
		sum += math.Abs(d)
		if !magnitude {
			f["noise_"+strconv.FormatInt(int64(math.Round(d)), 10)]++
		} else if x := p.Cells.Value[i]; x != 0 {
			rel = append(rel, math.Abs(d/x))
		}
	}
	if f["cells"] > 0 {
		f["mean_abs_noise"] = sum / f["cells"]
	}
	if len(rel) > 0 {
		sort.Float64s(rel)
		for _, q := range []int{50, 90, 99} {
			f["rel_noise_p"+strconv.Itoa(q)] = rel[(len(rel)-1)*q/100]
		}
		f["rel_noise_max"] = slices.Max(rel)
	}
	return f
}
