package wire

import (
	"errors"
	"fmt"
)

// DefaultChunkBytes is the payload size senders aim at per message.
const DefaultChunkBytes = 1 << 20

// MaxPrealloc caps what a receiver preallocates from counts in a header, so
// that a hostile header cannot make it allocate gigabytes up front.
const MaxPrealloc = 1 << 20

// ErrStream marks violations of the stream grammar of method.proto.
var ErrStream = errors.New("protocol stream violation")

// StreamErr returns an error wrapping ErrStream.
func StreamErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrStream, fmt.Sprintf(format, args...))
}

// Prealloc returns an empty slice with room for n elements, at most
// MaxPrealloc.
func Prealloc[T any](n int64) []T { return make([]T, 0, min(n, MaxPrealloc)) }

// Slice returns xs[a:b], or nil for an absent (empty) column.
func Slice[T any](xs []T, a, b int) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs[a:b]
}

// Int64s converts cell or relation indices for the wire; nil for none.
func Int64s(xs []int) []int64 { return convertInts[int64](xs) }

// Ints converts cell or relation indices from the wire; nil for none.
func Ints(xs []int64) []int { return convertInts[int](xs) }

// convertInts converts every element of xs to To; nil for none.
func convertInts[To, From int | int64](xs []From) []To {
	if len(xs) == 0 {
		return nil
	}
	out := make([]To, len(xs))
	for i, x := range xs {
		out[i] = To(x)
	}
	return out
}
