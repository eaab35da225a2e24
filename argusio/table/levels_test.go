package table

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestLevelBounds(t *testing.T) {
	tests := []struct {
		widths, want []int
	}{
		{nil, nil},
		{[]int{0, 0}, nil},
		{[]int{1, 2, 0, 3}, []int{1, 3, 6}},
	}
	for _, tt := range tests {
		if got := LevelBounds(tt.widths); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("LevelBounds(%v) = %v, want %v", tt.widths, got, tt.want)
		}
	}
}

func TestAppendLevelCodes(t *testing.T) {
	bounds := []int{1, 3}
	byLength := func(c string) (int, error) {
		for i, b := range bounds {
			if len(c) == b {
				return i + 1, nil
			}
		}
		return 0, fmt.Errorf("bad length %q", c)
	}
	noParent := func(c, p string) error { return fmt.Errorf("%q without %q", c, p) }
	tests := []struct {
		name    string
		codes   []string
		want    []Code
		wantErr string
	}{
		{"sorted with parents", []string{"212", "1", "2", "101", "102"}, []Code{
			{Label: "", Parent: -1},
			{Label: "1", Parent: 0, Level: 1},
			{Label: "101", Parent: 1, Level: 2},
			{Label: "102", Parent: 1, Level: 2},
			{Label: "2", Parent: 0, Level: 1},
			{Label: "212", Parent: 4, Level: 2},
		}, ""},
		{"missing parent", []string{"1", "212"}, nil, `"212" without "2"`},
		{"level error first", []string{"1", "12", "212"}, nil, `bad length "12"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Dimension{Codes: []Code{{Label: "", Parent: -1}}}
			err := d.AppendLevelCodes(tt.codes, bounds, byLength, noParent)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Codes, tt.want) {
				t.Errorf("codes %+v, want %+v", d.Codes, tt.want)
			}
		})
	}
	sentinel := errors.New("level")
	d := Dimension{}
	if err := d.AppendLevelCodes([]string{"1"}, bounds, func(string) (int, error) { return 0, sentinel }, noParent); err != sentinel {
		t.Errorf("the error of level comes back as %v, want it unchanged", err)
	}
}
