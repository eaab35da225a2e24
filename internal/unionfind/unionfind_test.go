package unionfind

import "testing"

func TestSets(t *testing.T) {
	s := New(6)
	s.Union(4, 2)
	s.Union(2, 5)
	if r := s.Union(1, 3); r != 1 {
		t.Errorf("root of {1, 3}: %d, want 1", r)
	}
	want := []int32{0, 1, 2, 1, 2, 2}
	for i, w := range want {
		if got := s.Find(int32(i)); got != w {
			t.Errorf("Find(%d) = %d, want %d", i, got, w)
		}
	}
}
