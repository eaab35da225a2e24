package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func testdata(name string) string {
	p, err := filepath.Abs(filepath.Join("..", "testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

// addKeys gives every cell a cell key derived from its index (the suite's
// tables have none).
func addKeys(p *pluginsdk.Problem) {
	p.Cells.CellKey = make([]float64, p.NumCells())
	for i := range p.Cells.CellKey {
		p.Cells.CellKey[i] = float64((i*7919)%1000) / 1000
	}
}

func TestConformance(t *testing.T) {
	for name, params := range map[string]map[string]string{
		"frequency": {pPTable: testdata("freq_D2.csv")},
		"magnitude": {pTable: "magnitude", pPTableCont: testdata("cont_all.csv"), pType: "M", pSigma1: "0.1", pKeyDec: "3"},
		"magnitude separation parity": {pTable: "magnitude", pPTableCont: testdata("cont_parity.csv"),
			pPTableSep: testdata("sep_all.csv"), pType: "V", pSigma1: "0.2", pKeyDec: "3", pParity: "true",
			pSeparation: "true", pScaling: "F", pSigma0: "0.05", pXStar: "100", pQ: "2", pMuC: "1"},
	} {
		t.Run(name, func(t *testing.T) {
			plugintest.Run(t, plugin(), &plugintest.Options{Params: map[string]map[string]string{"CKM": params}, Prepare: addKeys})
		})
	}
}

func protect(t *testing.T, p *pluginsdk.Problem, params map[string]string) *pluginsdk.Result {
	t.Helper()
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "CKM", Problem: p, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFrequencyFigures: the report's distribution of the noise.
func TestFrequencyFigures(t *testing.T) {
	S := cellstatus.Safe
	p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{1, 2, 10, 0, 3}, Freq: []int64{1, 2, 10, 0, 3},
		Status: []cellstatus.Status{S, S, S, cellstatus.Empty, S}, CellKey: []float64{0.3, 0.96, 0.01, 0.5, 0.2}}}
	res := protect(t, p, map[string]string{pPTable: testdata("freq_D2.csv")})
	want := []float64{1, 4, 8, 0, 2}
	for i, w := range want {
		if res.Values[i] != w {
			t.Errorf("cell %d: %g, want %g", i, res.Values[i], w)
		}
	}
	for k, w := range map[string]float64{"cells": 4, "empty": 1, "changed": 3, "noise_0": 1, "noise_2": 1, "noise_-2": 1,
		"noise_-1": 1, "noise_min": -2, "noise_max": 2, "mean_abs_noise": 5.0 / 4} {
		if got := res.Stats.Extra[k]; got != w {
			t.Errorf("figure %s = %g, want %g", k, got, w)
		}
	}
}

// TestBadInput: a missing or malformed p-table and a table without cell
// keys are errors that say what is wrong.
func TestBadInput(t *testing.T) {
	p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{1}, Freq: []int64{1},
		Status: []cellstatus.Status{cellstatus.Safe}, CellKey: []float64{0.5}}}
	for _, c := range []struct {
		params map[string]string
		msg    string
	}{
		{map[string]string{}, "no frequency p-table"},
		{map[string]string{pPTable: testdata("nosuch.csv")}, "no such file"},
		{map[string]string{pPTable: testdata("cont_all.csv")}, "cont_all.csv:4:3: field j"},
		{map[string]string{pTable: "magnitude", pPTableCont: testdata("freq_D2.csv"), pSigma1: "0.1"}, "header has 5 columns"},
		{map[string]string{pTable: "magnitude", pPTableCont: testdata("cont_all.csv"), pSigma1: "0.1", pTopK: "2", pEpsilon: "1"}, "1 epsilons for top k 2"},
		{map[string]string{pTable: "magnitude", pPTableCont: testdata("cont_all.csv"), pSigma1: "0.1", pEpsilon: "x"}, "not a number"},
	} {
		res := protect(t, p, c.params)
		if res.Outcome != pluginsdk.OutcomeInvalidParams || len(res.Diagnostics) == 0 || !strings.Contains(res.Diagnostics[0].Summary, c.msg) {
			t.Errorf("%v: outcome %v %v, want invalid params saying %q", c.params, res.Outcome, res.Diagnostics, c.msg)
		}
	}
	p.Cells.CellKey = nil
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "CKM", Problem: p,
		Params: map[string]string{pPTable: testdata("freq_D2.csv")}})
	if err == nil && (res.Outcome.HasResult() || len(res.Diagnostics) == 0 || !strings.Contains(res.Diagnostics[0].Summary, "no cell keys")) {
		t.Errorf("no cell keys: outcome %v %v", res.Outcome, res.Diagnostics)
	}
	if err != nil && !strings.Contains(err.Error(), "no cell keys") {
		t.Errorf("no cell keys: %v", err)
	}
}
