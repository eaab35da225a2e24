package ptable

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
)

func FuzzRead(f *testing.F) {
	for _, name := range []string{"freq_D2.csv", "cont_all.csv", "cont_parity.csv", "sep_all.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, name != "freq_D2.csv")
	}
	f.Add([]byte("i;j;p;v;p_int_ub\n0;0;1;0;1\n1;0;0.5;-1;0.5\n1;2;0.5;1;1\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, magnitude bool) {
		kind := Frequency
		if magnitude {
			kind = Magnitude
		}
		tab, err := Read(bytes.NewReader(data), "f.csv", kind)
		if err != nil {
			var pe *poserr.Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not a malformed-p-table parse error", err)
			}
			return
		}
		for typ, rows := range tab.Rows {
			if len(rows) == 0 || rows[0].I != 0 {
				t.Fatalf("%s rows do not start at 0", typ)
			}
			for k, r := range rows {
				if kind == Frequency && r.I != k {
					t.Fatalf("frequency row %d has i = %d", k, r.I)
				}
				if r.Entries[len(r.Entries)-1].UB != 1 {
					t.Fatalf("row %d does not end at 1", r.I)
				}
			}
			// every key in [0,1) finds a transition
			for _, key := range []float64{0, 0.5, 0.9999999999} {
				if kind == Frequency {
					n := tab.FrequencyNoise(int64(len(rows)+3), key)
					if float64(len(rows)-1)+float64(n) < 0 {
						t.Fatalf("negative perturbed count")
					}
				} else {
					_ = tab.Noise(typ, 2.5, key)
				}
			}
		}
	})
}
