package relations

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// twoLevel returns a dimension: total → groups → leaves per group.
func twoLevel(name string, groups, leaves int) pluginsdk.Dimension {
	par := []int32{-1}
	for range groups {
		g := int32(len(par))
		par = append(par, 0)
		for range leaves {
			par = append(par, g)
		}
	}
	return dim(name, par...)
}

// gridProblem returns a problem with one zero-valued cell per coordinate
// tuple of dims.
func gridProblem(b testing.TB, dims ...pluginsdk.Dimension) *pluginsdk.Problem {
	t := pluginsdk.Table{Dims: dims}
	g, err := NewGrid(&t)
	if err != nil {
		b.Fatal(err)
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{t}}
	n := g.Len()
	p.Cells.Value = make([]float64, n)
	p.Cells.Status = make([]cellstatus.Status, n)
	p.Cells.Coords = make([]int32, 0, n*len(dims))
	var c []int32
	for i := range n {
		c = g.Coords(i, c)
		p.Cells.Coords = append(p.Cells.Coords, c...)
	}
	return p
}

// BenchmarkBuild3D1M builds the relations of a 101 × 101 × 101 (1 030 301
// cells) three-dimensional table, each dimension total → 10 groups → 9
// leaves: 3 × 11 × 10 201 relations, 3.4 million nonzeros.
func BenchmarkBuild3D1M(b *testing.B) {
	d := twoLevel("A", 10, 9)
	p := gridProblem(b, d, twoLevel("B", 10, 9), twoLevel("C", 10, 9))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := Build(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.Len() != 3*11*101*101 {
			b.Fatalf("%d relations", r.Len())
		}
	}
}

// BenchmarkBuildIndustrySize builds the 4419 relations of the 6399-cell
// IndustryCode × Size table.
func BenchmarkBuildIndustrySize(b *testing.B) {
	p, _ := industrySize(b, "Var1_dom3_75.jj")
	for b.Loop() {
		if _, err := Build(p, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
