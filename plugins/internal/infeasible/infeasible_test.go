package infeasible

import (
	"errors"
	"fmt"
	"testing"
)

// TestError: the messages of the methods' infeasibility, and the error
// found through wrapping.
func TestError(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{New("cta", []int{1, 4}, "no room"), "cta: infeasible: no room (cells [1 4])"},
		{New("cta", nil, "no table"), "cta: infeasible: no table"},
		{&Error{Method: "ecta", Reason: "α too small", Plain: true}, "ecta: α too small"},
		{&Error{Relation: 3, Steps: 1, Reason: "relation 3 cannot hold", Plain: true}, "relation 3 cannot hold"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
		var e *Error
		if !errors.As(fmt.Errorf("solve: %w", tc.err), &e) || e != tc.err {
			t.Errorf("%v not found through wrapping", tc.err)
		}
	}
	if New("x", nil, "r").Relation != -1 {
		t.Error("New: a relation")
	}
}
