package base

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/pluginsdk"
)

var errNoTable = errors.New("no table found")

// TestSolveError: every kind of a solve's error becomes what the host
// expects of Protect.
func TestSolveError(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	warn := pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "x.warn"}
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		err     error
		f       Failure
		outcome pluginsdk.Outcome
		code    string // of the result's last diagnostic, or of the error
		summary string
		cells   []int
		diags   int
		ctxErr  bool
	}{
		{"nil", context.Background(), nil, Failure{}, 0, "", "", nil, 0, false},
		{"infeasible", context.Background(), fmt.Errorf("wrapped: %w", infeasible.New("cta", []int{3, 5}, "too tight")),
			Failure{}, pluginsdk.OutcomeInfeasible, "protection.infeasible", "too tight", []int{3, 5}, 1, false},
		{"infeasible, own code, diagnostics first", context.Background(), infeasible.New("", nil, "no rounding"),
			Failure{InfeasibleCode: "rounding.infeasible", Diagnostics: []pluginsdk.Diagnostic{warn}},
			pluginsdk.OutcomeInfeasible, "rounding.infeasible", "no rounding", nil, 2, false},
		{"infeasible wins over a cancelled context", cancelled, infeasible.New("", nil, "r"), Failure{},
			pluginsdk.OutcomeInfeasible, "protection.infeasible", "r", nil, 1, false},
		{"cancelled", cancelled, errors.New("solver stopped"), Failure{NoResult: errNoTable}, 0, "", "", nil, 0, true},
		{"no result in time", context.Background(), fmt.Errorf("cta: %w within 1s", errNoTable),
			Failure{NoResult: errNoTable, Hint: "a longer time limit will do"}, pluginsdk.OutcomeFailed, "solver.time_limit",
			"cta: no table found within 1s; a longer time limit will do", nil, 1, false},
		{"other", context.Background(), errors.New("boom"), Failure{NoResult: errNoTable, What: "controlled rounding"},
			0, "solver.failed", "controlled rounding: boom", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := SolveError(tc.ctx, tc.err, tc.f)
			switch {
			case tc.err == nil:
				if res != nil || err != nil {
					t.Fatalf("%v %v, want nothing", res, err)
				}
			case tc.ctxErr:
				if res != nil || !errors.Is(err, context.Canceled) {
					t.Fatalf("%v %v, want the context's error", res, err)
				}
			case res == nil:
				ce, ok := errors.AsType[*pluginsdk.CodedError](err)
				if !ok || ce.Code != tc.code || err.Error() != tc.summary {
					t.Fatalf("err %v, want %s %q", err, tc.code, tc.summary)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if res.Outcome != tc.outcome || len(res.Diagnostics) != tc.diags {
					t.Fatalf("outcome %v, %d diagnostics; want %v, %d", res.Outcome, len(res.Diagnostics), tc.outcome, tc.diags)
				}
				d := res.Diagnostics[len(res.Diagnostics)-1]
				if d.Code != tc.code || d.Summary != tc.summary || fmt.Sprint(d.Cells) != fmt.Sprint(tc.cells) || d.Severity != pluginsdk.SeverityError {
					t.Errorf("diagnostic %+v, want %s %q %v", d, tc.code, tc.summary, tc.cells)
				}
			}
		})
	}
}

// TestClock: the deadline, the time left and the fraction sent with the
// progress, with and without a time limit.
func TestClock(t *testing.T) {
	var got []pluginsdk.Progress
	o := Options{Progress: func(pr pluginsdk.Progress) { got = append(got, pr) }}
	c := o.Start()
	if !c.Deadline().IsZero() || c.Left() != 0 || c.Fraction() != -1 {
		t.Errorf("no limit: deadline %v, left %v, fraction %v", c.Deadline(), c.Left(), c.Fraction())
	}
	c.Phase("lp", 3, 2)
	o.TimeLimit = time.Hour
	c = o.Start()
	if d := c.Deadline().Sub(c.Started()); d != time.Hour {
		t.Errorf("deadline %v after the start", d)
	}
	if l := c.Left(); l <= 59*time.Minute || l > time.Hour {
		t.Errorf("left %v", l)
	}
	c.Report(pluginsdk.Progress{Phase: "cuts", Iterations: 4, Fraction: 7})
	if len(got) != 2 || got[0].Phase != "lp" || got[0].Objective != 3 || got[0].Bound != 2 || got[0].Fraction != -1 ||
		got[1].Phase != "cuts" || got[1].Iterations != 4 || !(got[1].Fraction >= 0 && got[1].Fraction < 0.01) {
		t.Errorf("progress %+v", got)
	}
	o.TimeLimit = time.Nanosecond
	c = o.Start()
	time.Sleep(time.Millisecond)
	if c.Fraction() != 1 || c.Left() != time.Millisecond {
		t.Errorf("past the limit: fraction %v, left %v", c.Fraction(), c.Left())
	}
	Options{}.Start().Phase("nobody listens", 0, 0) // no Progress: no panic
}
