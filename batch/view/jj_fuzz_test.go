package view

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
)

// FuzzFromJJ: whatever JJ file the reader accepts, recovering its
// dimensions from its relations neither panics nor loses a cell, and the
// recovered dimensions, when there are any, account for every cell.
func FuzzFromJJ(f *testing.F) {
	for _, name := range []string{"size_region_p15.jj"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "argusio", "jj", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("0\n3\n0 10 1 u 0 10 0 0 0 0\n1 4 1 s 0 4 0 0 0 0\n2 6 1 s 0 6 0 0 0 0\n1\n0 3 : 0 (-1) 1 (1) 2 (1)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := jj.Read(bytes.NewReader(data), "fuzz.jj")
		if err != nil {
			return
		}
		v := FromJJ(file, "fuzz.jj", false)
		if len(v.Cells) != len(file.Cells) {
			t.Fatalf("%d cells in the view, %d in the file", len(v.Cells), len(file.Cells))
		}
		if len(v.Dims) > 0 {
			n := 1
			for _, d := range v.Dims {
				n *= len(d.Codes)
			}
			if n != len(v.Cells) {
				t.Fatalf("dimensions of %d cells for %d cells", n, len(v.Cells))
			}
		}
	})
}
