package tablegen

import (
	"errors"
	"testing"
)

// FuzzParseShape: any string gives a shape within the limits or ErrShape,
// never a panic, and every parsed dimension is in depth-first order.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{"3x4", "t2.3", "h13", "r76p5x18", "hier16x16x16", "castro3", "nine5d", "t3.2xt3.2x9x9", "x", "h10", "r5p4", "t0.1", "1×2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dims, err := ParseShape(s)
		if err != nil {
			if !errors.Is(err, ErrShape) {
				t.Fatalf("ParseShape(%q): error %v is not ErrShape", s, err)
			}
			return
		}
		cells := 1
		for _, h := range dims {
			cells *= h.Len()
			if h.Len() < 2 || h.Parent[0] != -1 {
				t.Fatalf("ParseShape(%q): dimension without codes below its total", s)
			}
			for i := 1; i < h.Len(); i++ {
				if p := h.Parent[i]; p < 0 || int(p) >= i || h.Depth[i] != h.Depth[p]+1 {
					t.Fatalf("ParseShape(%q): code %d not depth-first", s, i)
				}
			}
		}
		if len(dims) == 0 || len(dims) > 10 || cells > maxCells {
			t.Fatalf("ParseShape(%q): %d dimensions, %d cells", s, len(dims), cells)
		}
	})
}

// FuzzParseRule: ParseRule and ParseProtection accept a string or fail
// with ErrSyntax; what they accept prints back to itself.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"frac:0.05", "count:3", "nk:3,75", "p:15", "freq:3", "frac:0.05,0.2", "rule", "nk:,", "p:1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRule(s); err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseRule(%q): %v is not ErrSyntax", s, err)
			}
		} else if again, err := ParseRule(r.String()); err != nil || again != r || r.check() != nil {
			t.Fatalf("ParseRule(%q) = %+v; again %+v, %v", s, r, again, err)
		}
		if p, err := ParseProtection(s); err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseProtection(%q): %v is not ErrSyntax", s, err)
			}
		} else if again, err := ParseProtection(p.String()); err != nil || again != p {
			t.Fatalf("ParseProtection(%q) = %+v; again %+v, %v", s, p, again, err)
		}
	})
}

// FuzzParseNames: ParseValues and ParseCost accept a name or fail; what
// they accept prints back to a name they accept again.
func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"uniform", "roehrig", "micro", "value", "unit", "freq", "inverse", " Micro ", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseValues(s); err == nil {
			if again, err := ParseValues(v.String()); err != nil || again != v {
				t.Fatalf("ParseValues(%q) = %v; again %v, %v", s, v, again, err)
			}
		}
		if c, err := ParseCost(s); err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("ParseCost(%q): %v is not ErrSyntax", s, err)
			}
		} else if again, err := ParseCost(c.String()); err != nil || again != c {
			t.Fatalf("ParseCost(%q) = %v; again %v, %v", s, c, again, err)
		}
	})
}
