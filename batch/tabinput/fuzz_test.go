package tabinput_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
)

// FuzzRead reads arbitrary .tab contents with a flat and a hierarchical
// layout, in every mode: Read must not panic, and a table it returns must
// be valid.
func FuzzRead(f *testing.F) {
	f.Add(totals, uint8(0))
	f.Add(basal, uint8(1))
	f.Add(basal+";;22;13;U\n", uint8(5))
	f.Add("1;x;NaN;1;S\n", uint8(1))
	f.Add("N;m;1\n 1;f;2\nS;;3\n", uint8(2))
	f.Add("\"a;b\";\"\";1e308;1;M\n", uint8(3))
	metaFlat, err := rda.Parse(strings.NewReader(rda2), "t.rda", rda.Tabular)
	if err != nil {
		f.Fatal(err)
	}
	metaHier, err := rda.Parse(strings.NewReader(rdaHier), "h.rda", rda.Tabular)
	if err != nil {
		f.Fatal(err)
	}
	tree, err := tabinput.ReadHierarchy(strings.NewReader(hrcR), "r.hrc", metaHier.Find("R"))
	if err != nil {
		f.Fatal(err)
	}
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 3, Range: 10}
	f.Fuzz(func(t *testing.T, data string, mode uint8) {
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }
		srcs := []struct {
			src  tabinput.Source
			spec tabinput.Spec
		}{
			{tabinput.Source{Meta: metaFlat, Name: "t.tab", Open: open}, spec2},
			{tabinput.Source{Meta: metaHier, Name: "h.tab", Open: open, Hierarchies: map[string]*hrc.Tree{"R": tree}},
				tabinput.Spec{Explanatory: []string{"R", "G"}, Response: "V", Cost: table.NewCost(table.CostFrequency, "")}},
		}
		opt := tabinput.Options{Additivity: tabinput.Additivity(mode % 3), KeepStatus: mode&4 != 0, StatusOnly: mode&8 == 0}
		if !opt.StatusOnly {
			opt.Rules = &set
		}
		for _, s := range srcs {
			res, err := tabinput.Read(context.Background(), s.src, s.spec, opt)
			if err != nil {
				continue
			}
			if err := res.Table.Validate(); err != nil {
				t.Fatalf("invalid table: %v", err)
			}
			for i := range res.Table.Cells {
				if st := res.Table.Cells[i].Status; !st.Valid() {
					t.Fatalf("cell %d has status %d", i, st)
				}
			}
		}
	})
}
