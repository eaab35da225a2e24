package runall

import "testing"

// TestCoreShare: a job alone gets every core; concurrent jobs share them
// (jobs × cores ≤ cores); a job starting when others ended gets what they
// left; more workers than cores give one core each.
func TestCoreShare(t *testing.T) {
	type step struct {
		take bool // else give back the job started at index give
		give int
		want int // cores of a take
	}
	for _, tc := range []struct {
		name                 string
		cores, workers, jobs int
		steps                []step
	}{
		{"alone", 8, 1, 3, []step{{take: true, want: 8}, {give: 0}, {take: true, want: 8}}},
		{"one job, many workers", 8, 8, 1, []step{{take: true, want: 8}}},
		{"two at once", 2, 2, 10, []step{{take: true, want: 1}, {take: true, want: 1}, {give: 0}, {take: true, want: 1}}},
		{"remainder", 8, 3, 3, []step{{take: true, want: 2}, {take: true, want: 3}, {take: true, want: 3}}},
		{"tail gets the rest", 8, 4, 5, []step{{take: true, want: 2}, {take: true, want: 2}, {take: true, want: 2}, {take: true, want: 2},
			{give: 0}, {give: 1}, {give: 2}, {take: true, want: 6}}},
		{"more workers than cores", 2, 4, 4, []step{{take: true, want: 1}, {take: true, want: 1}, {take: true, want: 1}, {take: true, want: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCoreShare(tc.cores, tc.workers, tc.jobs)
			var given []int
			used := 0
			for i, st := range tc.steps {
				if !st.take {
					s.give(given[st.give])
					used -= given[st.give]
					continue
				}
				n := s.take()
				given = append(given, n)
				used += n
				if n != st.want {
					t.Errorf("step %d: job got %d cores, want %d", i, n, st.want)
				}
				if tc.workers <= tc.cores && used > tc.cores {
					t.Errorf("step %d: %d cores in use, more than the run's %d", i, used, tc.cores)
				}
			}
		})
	}
}
