package wire

import (
	"fmt"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// StatusesToProto and StatusesFromProto are the only conversions between
// cellstatus.Status and the wire enum sdcpb.CellStatus; both carry
// τ-Argus's numbers 0–14 unchanged (TestStatusWire checks that they agree).
func StatusesToProto(s []cellstatus.Status) []sdcpb.CellStatus {
	out := make([]sdcpb.CellStatus, len(s))
	for i, x := range s {
		out[i] = sdcpb.CellStatus(x)
	}
	return out
}

// StatusesFromProto converts received statuses, refusing a number outside
// the enum.
func StatusesFromProto(s []sdcpb.CellStatus) ([]cellstatus.Status, error) {
	out := make([]cellstatus.Status, len(s))
	for i, x := range s {
		if x < 0 || x > sdcpb.CellStatus(cellstatus.Max) {
			return nil, fmt.Errorf("status %d out of range", x)
		}
		out[i] = cellstatus.Status(x)
	}
	return out, nil
}
