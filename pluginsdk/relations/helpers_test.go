package relations

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// dim builds a dimension from parent indices (codes named c0, c1, …).
func dim(name string, parent ...int32) pluginsdk.Dimension {
	d := pluginsdk.Dimension{Name: name, Parent: parent}
	for i := range parent {
		d.Codes = append(d.Codes, name+itoa(i))
	}
	d.Depth = make([]int32, len(parent))
	for i := 1; i < len(parent); i++ {
		d.Depth[i] = d.Depth[parent[i]] + 1
	}
	return d
}

// flat builds a flat dimension with n codes below the total.
func flat(name string, n int) pluginsdk.Dimension {
	par := make([]int32, n+1)
	par[0] = -1
	return dim(name, par...)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// fullProblem returns a problem with one cell per coordinate tuple of the
// table spanned by dims, in cell order, with additive values built from
// random leaf values.
func fullProblem(seed uint64, dims ...pluginsdk.Dimension) *pluginsdk.Problem {
	t := pluginsdk.Table{Name: "t", Dims: dims}
	g, err := NewGrid(&t)
	if err != nil {
		panic(err)
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{t}}
	n := g.Len()
	p.Cells.Value = make([]float64, n)
	p.Cells.Status = make([]cellstatus.Status, n)
	p.Cells.Coords = make([]int32, 0, n*len(dims))
	isLeaf := make([][]bool, len(dims))
	for d := range dims {
		isLeaf[d] = make([]bool, len(dims[d].Codes))
		for i := range isLeaf[d] {
			isLeaf[d][i] = true
		}
		for i := 1; i < len(dims[d].Codes); i++ {
			isLeaf[d][dims[d].Parent[i]] = false
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var c []int32
	for i := range n {
		c = g.Coords(i, c)
		p.Cells.Coords = append(p.Cells.Coords, c...)
		p.Cells.Status[i] = cellstatus.Safe
	}
	// Add every leaf value to all its ancestors' cells.
	anc := make([][]int32, len(dims))
	for i := range n {
		c = g.Coords(i, c)
		leaf := true
		for d := range dims {
			leaf = leaf && isLeaf[d][c[d]]
		}
		if !leaf {
			continue
		}
		v := float64(1 + rng.IntN(100))
		for d := range dims {
			anc[d] = anc[d][:0]
			for a := c[d]; a >= 0; a = dims[d].Parent[a] {
				anc[d] = append(anc[d], a)
			}
		}
		idx := make([]int32, len(dims))
		var rec func(d int)
		rec = func(d int) {
			if d == len(dims) {
				p.Cells.Value[g.Index(idx)] += v
				return
			}
			for _, a := range anc[d] {
				idx[d] = a
				rec(d + 1)
			}
		}
		rec(0)
	}
	return p
}

// randomHierarchy returns a random dimension in depth-first order with n
// codes below the total and some single-child chains.
func randomHierarchy(rng *rand.Rand, name string, n int) pluginsdk.Dimension {
	par := []int32{-1}
	var build func(parent int32, budget, depth int)
	build = func(parent int32, budget, depth int) {
		for budget > 0 {
			me := int32(len(par))
			par = append(par, parent)
			budget--
			if depth < 3 && budget > 0 && rng.IntN(3) == 0 {
				k := 1 + rng.IntN(min(budget, 4))
				build(me, k, depth+1)
				budget -= k
			}
		}
	}
	build(0, n, 0)
	return dim(name, par...)
}

var corpusDir = testcorpus.Path("derived", "tau_testW_IndustryCode_x_Size")

// industrySize builds the IndustryCode × Size table of the corpus (711 × 9
// cells, as in the JJ files) and returns it with the JJ file's content.
func industrySize(t testing.TB, jjName string) (*pluginsdk.Problem, *jj.File) {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "codes_IndustryCode.txt"))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	ind := pluginsdk.Dimension{Name: "IndustryCode"}
	pos := map[string]int32{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		code := strings.TrimSpace(sc.Text())
		if code == "" {
			continue
		}
		par := int32(-1)
		switch {
		case code == "Total":
		case code == "99999" || len(code) == 3:
			par = 0
		default:
			par = pos[code[:len(code)-1]]
		}
		pos[code] = int32(len(ind.Codes))
		ind.Codes = append(ind.Codes, code)
		ind.Parent = append(ind.Parent, par)
	}
	ind.Depth = make([]int32, len(ind.Codes))
	for i := 1; i < len(ind.Codes); i++ {
		ind.Depth[i] = ind.Depth[ind.Parent[i]] + 1
	}
	size := pluginsdk.Dimension{Name: "Size", Codes: []string{"Total", "2", "4", "5", "6", "7", "8", "9", "99"},
		Parent: []int32{-1, 0, 0, 0, 0, 0, 0, 0, 0}, Depth: []int32{0, 1, 1, 1, 1, 1, 1, 1, 1}}
	jf, err := os.Open(filepath.Join(corpusDir, jjName))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer jf.Close()
	file, err := jj.Read(jf, jjName)
	if err != nil {
		t.Fatal(err)
	}
	tab := pluginsdk.Table{Name: "IndustryCode x Size", Dims: []pluginsdk.Dimension{ind, size}}
	g, err := NewGrid(&tab)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != len(file.Cells) {
		t.Fatalf("grid has %d cells, JJ file %d", g.Len(), len(file.Cells))
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{tab}}
	n := g.Len()
	c := &p.Cells
	c.Value = make([]float64, n)
	c.Status = make([]cellstatus.Status, n)
	var co []int32
	for i, jc := range file.Cells {
		c.Value[i] = jc.Value
		c.Status[i] = cellstatus.Safe
		co = g.Coords(i, co)
		c.Coords = append(c.Coords, co...)
	}
	return p, file
}
