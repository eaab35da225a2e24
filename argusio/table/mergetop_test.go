package table

import (
	"slices"
	"testing"
)

func TestMergeTop(t *testing.T) {
	tests := []struct {
		name          string
		a, aw, b, bw  []float64
		wantA, wantAW []float64
	}{
		{"interleave", []float64{9, 5, 1, 0}, nil, []float64{7, 6, 2}, nil, []float64{9, 7, 6, 5}, nil},
		{"b smaller", []float64{9, 8}, nil, []float64{3, 2}, nil, []float64{9, 8}, nil},
		{"b larger", []float64{3, 2}, nil, []float64{9, 8, 7}, nil, []float64{9, 8}, nil},
		{"ties keep a first", []float64{5, 0}, nil, []float64{5}, nil, []float64{5, 5}, nil},
		{"weights follow", []float64{9, 5, 0}, []float64{1, 2, 0}, []float64{7}, []float64{3}, []float64{9, 7, 5}, []float64{1, 3, 2}},
		{"missing weight is 0", []float64{9, 0}, []float64{1, 0}, []float64{4}, nil, []float64{9, 4}, []float64{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			MergeTop(tt.a, tt.aw, tt.b, tt.bw)
			if !slices.Equal(tt.a, tt.wantA) || !slices.Equal(tt.aw, tt.wantAW) {
				t.Errorf("got %v %v, want %v %v", tt.a, tt.aw, tt.wantA, tt.wantAW)
			}
		})
	}
}
