package pluginsdk

import (
	"context"
	"testing"
	"time"
)

func TestSolveTime(t *testing.T) {
	hour := time.Hour
	for _, c := range []struct {
		name           string
		job, param     time.Duration
		deadline       time.Duration // 0: none
		wantLo, wantHi time.Duration
	}{
		{"none", 0, 0, 0, 0, 0},
		{"param", 0, 5 * time.Minute, 0, 5 * time.Minute, 5 * time.Minute},
		{"job", 3 * time.Minute, 0, 0, 3 * time.Minute, 3 * time.Minute},
		{"job first", 3 * time.Minute, 5 * time.Minute, 0, 3 * time.Minute, 3 * time.Minute},
		{"param first", 7 * time.Minute, 5 * time.Minute, 0, 5 * time.Minute, 5 * time.Minute},
		// The deadline less resultMargin (a tenth of an hour is more).
		{"deadline", 0, 0, hour, hour - resultMargin - time.Second, hour - resultMargin},
		{"deadline after the param", 0, 5 * time.Minute, hour, 5 * time.Minute, 5 * time.Minute},
		// The deadline less a tenth of the time left (a tenth of 10 s is 1 s).
		{"short deadline", 0, 5 * time.Minute, 10 * time.Second, 8 * time.Second, 9 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if c.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.deadline)
				defer cancel()
			}
			got := Limits{TimeLimit: c.job}.SolveTime(ctx, c.param)
			if got < c.wantLo || got > c.wantHi {
				t.Errorf("SolveTime = %v, want within [%v, %v]", got, c.wantLo, c.wantHi)
			}
		})
	}
}
