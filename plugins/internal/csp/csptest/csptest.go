// Package csptest builds the reference tables of the suppression plugins'
// tests and benchmarks from the τ-Argus tutorial microdata in the shared
// corpus: Simple2D (Size × Region | Var2, P(15,1); checkTauArgus) and the
// two IndustryCode × Size tables of Table 2 of Castro (2012, "Recent advances in optimization techniques for statistical tabular data protection", EJOR) (Var1, Var2,
// NK(3,75)), as the batch engine would hand them to a method plugin
// (costs = response, τ-Argus's a-priori bounds, relations filled).
package csptest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Corpus is the shared corpus directory.
var Corpus = testcorpus.Dir()

var (
	simple2D = filepath.Join(Corpus, "sdcTools/checkTauArgus/inst/doc/Simple2D_InputData.unzipped")
	tauRDA   = filepath.Join(Corpus, "sdcTools/tauargus/data/Tau_TestW.rda")
)

func readMeta(tb testing.TB) *rda.Metadata {
	tb.Helper()
	f, err := os.Open(tauRDA)
	if err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	m, err := rda.Parse(f, tauRDA, rda.Microdata)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func source(meta *rda.Metadata, trees map[string]*hrc.Tree) tabulate.Source {
	data := filepath.Join(simple2D, "tau_testW.asc")
	return tabulate.Source{Meta: meta, Name: data, Hierarchies: trees,
		Open: func() (io.ReadCloser, error) { return os.Open(data) }}
}

// toProblem turns a built table into a method problem with relations.
func toProblem(tb testing.TB, t *table.Table) *pluginsdk.Problem {
	tb.Helper()
	p, _, err := problem.Build([]*table.Table{t})
	if err != nil {
		tb.Fatal(err)
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		tb.Fatal(err)
	}
	return p
}

// regionTree reads the Region hierarchy region2.hrc of the tutorial data.
func regionTree(tb testing.TB, meta *rda.Metadata) *hrc.Tree {
	tb.Helper()
	region := meta.Find("Region")
	path := filepath.Join(simple2D, "region2.hrc")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	tree, err := hrc.Read(f, path, hrc.Options{LeadString: region.HierLeadString, Missing: region.Missing[:]})
	if err != nil {
		tb.Fatal(err)
	}
	return tree
}

// p15 is the rule set P(15,1) of the Simple2D scenario.
func p15() rules.Set {
	set := rules.NewSet()
	set.P[0] = &rules.P{P: 15, Q: 100, N: 1}
	set.Decimals = 2
	return set
}

// Simple2D builds checkTauArgus's Simple2D table: Size × Region (hierarchy
// region2.hrc) of Var2 with P(15,1), 162 cells, 9 primaries.
func Simple2D(tb testing.TB) *pluginsdk.Problem {
	tb.Helper()
	meta := readMeta(tb)
	tree := regionTree(tb, meta)
	set := p15()
	res, err := tabulate.Build(context.Background(), source(meta, map[string]*hrc.Tree{"REGION": tree}),
		[]tabulate.Spec{{Explanatory: []string{"Size", "Region"}, Response: "Var2",
			Cost: table.NewCost(table.CostResponse, ""), Rules: &set}})
	if err != nil {
		tb.Fatal(err)
	}
	tabulate.ApplyRules(res[0], &set)
	return toProblem(tb, res[0].Table)
}

// IndustryBySize builds the 6399-cell IndustryCode × Size table of resp
// ("Var1" or "Var2") with NK(3,75): 657 or 1018 primaries.
func IndustryBySize(tb testing.TB, resp string) *pluginsdk.Problem {
	tb.Helper()
	meta := readMeta(tb)
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 3, K: 75}
	set.Decimals = meta.Find(resp).Decimals
	res, err := tabulate.Build(context.Background(), source(meta, nil),
		[]tabulate.Spec{{Explanatory: []string{"IndustryCode", "Size"}, Response: resp,
			Cost: table.NewCost(table.CostResponse, ""), Rules: &set}})
	if err != nil {
		tb.Fatal(err)
	}
	tabulate.ApplyRules(res[0], &set)
	return toProblem(tb, res[0].Table)
}

// Audit audits a pattern with the audit's defaults and returns the report.
func Audit(tb testing.TB, p *pluginsdk.Problem, status []cellstatus.Status) *audit.Report {
	tb.Helper()
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// Summary counts the secondaries of a pattern and their cost.
func Summary(p *pluginsdk.Problem, status []cellstatus.Status) (secondaries int, cost float64) {
	n, cost := pluginsdk.Secondaries(p, status)
	return int(n), cost
}

// Linked builds the linked set of Size × Region (hierarchy region2.hrc)
// and Size × Year of Var2 with P(15,1): one problem whose shared cells (the
// Size margin and the grand total) appear once, with links.
func Linked(tb testing.TB) *pluginsdk.Problem {
	tb.Helper()
	meta := readMeta(tb)
	tree := regionTree(tb, meta)
	set := p15()
	spec := func(v string) tabulate.Spec {
		return tabulate.Spec{Explanatory: []string{"Size", v}, Response: "Var2",
			Cost: table.NewCost(table.CostResponse, ""), Rules: &set}
	}
	res, err := tabulate.Build(context.Background(), source(meta, map[string]*hrc.Tree{"REGION": tree}),
		[]tabulate.Spec{spec("Region"), spec("Year")})
	if err != nil {
		tb.Fatal(err)
	}
	tabs := make([]*table.Table, len(res))
	for i, r := range res {
		tabulate.ApplyRules(r, &set)
		tabs[i] = r.Table
	}
	p, _, err := problem.Build(tabs)
	if err != nil {
		tb.Fatal(err)
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		tb.Fatal(err)
	}
	return p
}
