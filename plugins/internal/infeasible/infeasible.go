// Package infeasible holds the one error the methods' solvers return for a
// table that admits no protection of the kind asked: which cells (or
// which relation) stand in the way, and why. It is a leaf: it imports
// nothing of the project, so every method and the shared pieces under
// plugins/internal can return it.
package infeasible

import "fmt"

// Error reports a problem that admits no protection of the kind asked.
// The methods map it to the outcome "infeasible" with Reason as the
// diagnostic's summary and Cells as its cells.
type Error struct {
	// Method is the method's name that prefixes the message ("cta",
	// "interval"; empty: none).
	Method string
	// Cells are the cells concerned (empty when the cause is the relations
	// or the model as a whole).
	Cells []int
	// Relation is a relation that cannot hold (−1 or Cells: none).
	Relation int
	// Steps is the number of further multiples a rounding was allowed
	// (controlled rounding only).
	Steps int
	// Reason explains the failure.
	Reason string
	// Plain leaves the word "infeasible" and the cells out of the message:
	// it is Method's prefix and Reason alone.
	Plain bool
}

// New returns an Error of method for cells (none: nil) with the reason.
func New(method string, cells []int, reason string) *Error {
	return &Error{Method: method, Cells: cells, Relation: -1, Reason: reason}
}

// Error is "method: infeasible: reason (cells […])".
func (e *Error) Error() string {
	pre := ""
	if e.Method != "" {
		pre = e.Method + ": "
	}
	if e.Plain {
		return pre + e.Reason
	}
	if len(e.Cells) > 0 {
		return fmt.Sprintf("%sinfeasible: %s (cells %v)", pre, e.Reason, e.Cells)
	}
	return pre + "infeasible: " + e.Reason
}
