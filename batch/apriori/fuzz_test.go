package apriori_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch/apriori"
)

// FuzzApply applies arbitrary a-priori files: Apply must not panic, and the
// table must keep valid statuses and finite levels for valid numbers.
func FuzzApply(f *testing.F) {
	f.Add("N;f;u\nN1;f;pl;1;2\n", ";", uint8(0))
	f.Add("Total;m;s\n;;c;0\n", ";", uint8(1))
	f.Add("\"N1\",\"f\",ML\n", ",", uint8(2))
	f.Add("N|f|ab|1|2\n", "|", uint8(3))
	f.Add("3;f;x\n4;f;w;-1\n", ";", uint8(1))
	f.Add("\xef\xbb\xbfN,f,pl,5\nN,f,c,1e400\n", ",", uint8(0))
	f.Fuzz(func(t *testing.T, hst, sep string, mode uint8) {
		tab := testTable(t)
		opt := apriori.Options{Separator: sep, IgnoreError: mode&1 != 0, ExpandTrivial: mode&2 != 0, Rules: testRules()}
		res, _ := apriori.Apply(context.Background(), tab, strings.NewReader(hst), "f.hst", opt)
		if res == nil {
			t.Fatal("nil result")
		}
		for i := range tab.Cells {
			if st := tab.Cells[i].Status; !st.Valid() {
				t.Fatalf("cell %d: status %d", i, st)
			}
		}
		if err := tab.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
