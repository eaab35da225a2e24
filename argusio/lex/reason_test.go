package lex

import (
	"errors"
	"io/fs"
	"testing"
)

func TestReason(t *testing.T) {
	kind := errors.New("Unknown status")
	cause := &fs.PathError{Op: "read", Path: "x", Err: fs.ErrNotExist}
	tests := []struct {
		name   string
		err    error
		is     []error
		isNot  []error
		asPath bool
	}{
		{"kind only", Reason(kind, "field 3 (status): Unknown status"), []error{kind}, []error{ErrRange, fs.ErrNotExist}, false},
		{"nil cause dropped", Reason(kind, "m", nil), []error{kind}, []error{ErrSyntax}, false},
		{"with cause", Reason(ErrRange, "m", cause), []error{ErrRange, fs.ErrNotExist}, []error{kind}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, target := range tt.is {
				if !errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%q, %v) = false", tt.err, target)
				}
			}
			for _, target := range tt.isNot {
				if errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%q, %v) = true", tt.err, target)
				}
			}
			var pe *fs.PathError
			if got := errors.As(tt.err, &pe); got != tt.asPath {
				t.Errorf("errors.As(*fs.PathError) = %v, want %v", got, tt.asPath)
			}
		})
	}
	if got := Reason(kind, "field 3 (status): Unknown status").Error(); got != "field 3 (status): Unknown status" {
		t.Errorf("Error() = %q", got)
	}
}
