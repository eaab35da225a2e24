package wire

import (
	"testing"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestStatusWire checks that the wire enum and cellstatus agree on every
// status 0–14, both ways and by meaning (not only by number), and that a
// number outside the enum is refused on receipt.
func TestStatusWire(t *testing.T) {
	pairs := []struct {
		st   cellstatus.Status
		wire sdcpb.CellStatus
	}{
		{cellstatus.Unknown, sdcpb.CellStatus_CELL_STATUS_UNSPECIFIED},
		{cellstatus.Safe, sdcpb.CellStatus_CELL_STATUS_SAFE},
		{cellstatus.SafeManual, sdcpb.CellStatus_CELL_STATUS_SAFE_MANUAL},
		{cellstatus.UnsafeRule, sdcpb.CellStatus_CELL_STATUS_UNSAFE_RULE},
		{cellstatus.UnsafeRequest, sdcpb.CellStatus_CELL_STATUS_UNSAFE_REQUEST},
		{cellstatus.UnsafeFreq, sdcpb.CellStatus_CELL_STATUS_UNSAFE_FREQUENCY},
		{cellstatus.UnsafeZero, sdcpb.CellStatus_CELL_STATUS_UNSAFE_ZERO},
		{cellstatus.UnsafeSingleton, sdcpb.CellStatus_CELL_STATUS_UNSAFE_SINGLETON},
		{cellstatus.UnsafeSingletonManual, sdcpb.CellStatus_CELL_STATUS_UNSAFE_SINGLETON_MANUAL},
		{cellstatus.UnsafeManual, sdcpb.CellStatus_CELL_STATUS_UNSAFE_MANUAL},
		{cellstatus.Protected, sdcpb.CellStatus_CELL_STATUS_PROTECTED},
		{cellstatus.Secondary, sdcpb.CellStatus_CELL_STATUS_SECONDARY},
		{cellstatus.SecondaryManual, sdcpb.CellStatus_CELL_STATUS_SECONDARY_MANUAL},
		{cellstatus.EmptyNonStructural, sdcpb.CellStatus_CELL_STATUS_EMPTY_NONSTRUCTURAL},
		{cellstatus.Empty, sdcpb.CellStatus_CELL_STATUS_EMPTY},
	}
	if len(pairs) != int(cellstatus.Max)+1 || len(sdcpb.CellStatus_name) != len(pairs) {
		t.Fatalf("%d pairs, cellstatus has %d statuses, the wire enum %d values",
			len(pairs), int(cellstatus.Max)+1, len(sdcpb.CellStatus_name))
	}
	for n, p := range pairs {
		if int(p.st) != n || int(p.wire) != n {
			t.Errorf("status %d: cellstatus %d, wire %d", n, p.st, p.wire)
		}
		if got := StatusesToProto([]cellstatus.Status{p.st}); got[0] != p.wire {
			t.Errorf("to wire: %d (%v) became %v, want %v", p.st, p.st, got[0], p.wire)
		}
		got, err := StatusesFromProto([]sdcpb.CellStatus{p.wire})
		if err != nil || got[0] != p.st {
			t.Errorf("from wire: %v became %v, %v; want %d", p.wire, got, err, p.st)
		}
	}
	for _, bad := range []sdcpb.CellStatus{-1, sdcpb.CellStatus(cellstatus.Max) + 1, 255} {
		if _, err := StatusesFromProto([]sdcpb.CellStatus{bad}); err == nil {
			t.Errorf("from wire: %d accepted", bad)
		}
	}
}
