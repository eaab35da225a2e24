package pluginsdk

import (
	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// This file is the plugin's side of the Protect stream: it reassembles a
// problem from wire messages, enforcing the stream grammar of method.proto,
// and chunks the result into messages of bounded size. The host's side is
// in pluginsdk/pluginclient.

// problemAssembler rebuilds a Problem from a Protect request stream.
type problemAssembler struct {
	stage     int // 0 header, 1 cells, 2 links, 3 relations, 4 done
	hdr       *sdcpb.Header
	p         *Problem
	cells     int64
	links     int64
	relations int64
	first     bool // the first cell block fixes which columns are present
	present   [20]bool
	witnesses []Witness
	wdec      wire.WitnessDecoder
}

const (
	stageHeader = iota
	stageCells
	stageLinks
	stageRelations
	stageWitnesses
	stageDone
)

// add consumes one message. It returns done=true after EndOfInput.
func (a *problemAssembler) add(m *sdcpb.ProtectRequest) (done bool, err error) {
	if a.stage == stageDone {
		return true, wire.StreamErr("message after end of input")
	}
	switch k := m.GetKind().(type) {
	case *sdcpb.ProtectRequest_Header:
		if a.stage != stageHeader {
			return false, wire.StreamErr("second header")
		}
		return false, a.header(k.Header)
	case *sdcpb.ProtectRequest_Cells:
		if a.stage != stageCells {
			return false, wire.StreamErr("cell block out of order")
		}
		return false, a.cellBlock(k.Cells)
	case *sdcpb.ProtectRequest_Links:
		if a.stage == stageHeader || a.stage > stageLinks {
			return false, wire.StreamErr("link block out of order")
		}
		a.stage = stageLinks
		return false, a.linkBlock(k.Links)
	case *sdcpb.ProtectRequest_Relations:
		if a.stage == stageHeader || a.stage == stageWitnesses {
			return false, wire.StreamErr("relation block out of order")
		}
		a.stage = stageRelations
		return false, a.relationBlock(k.Relations)
	case *sdcpb.ProtectRequest_Witnesses:
		if a.stage == stageHeader {
			return false, wire.StreamErr("witness block before header")
		}
		a.stage = stageWitnesses
		a.wdec.Cells = int(a.hdr.GetCellCount())
		return false, a.wdec.Add(k.Witnesses, func(t int, cells []int, deltas []float64) {
			a.witnesses = append(a.witnesses, Witness{Cell: t, Cells: cells, Deltas: deltas})
		})
	case *sdcpb.ProtectRequest_End:
		if a.stage == stageHeader {
			return false, wire.StreamErr("end of input before header")
		}
		a.stage = stageDone
		return true, a.finish()
	}
	return false, wire.StreamErr("empty request message")
}

func (a *problemAssembler) header(h *sdcpb.Header) error {
	if h.GetCellCount() < 0 || h.GetRelationCount() < 0 || h.GetTermCount() < 0 || h.GetLinkCount() < 0 ||
		h.GetTopN() < 0 || h.GetHoldingTopN() < 0 || h.GetTopN() > 1000 || h.GetHoldingTopN() > 1000 {
		return wire.StreamErr("negative or absurd counts in header")
	}
	a.hdr = h
	a.first = true
	a.p = &Problem{
		Tables: tablesFromProto(h.GetTables()), Decimals: int(h.GetDecimals()),
		TopN: int(h.GetTopN()), HoldingTopN: int(h.GetHoldingTopN()), Response: h.GetResponse(),
	}
	a.p.Cells.Value = wire.Prealloc[float64](h.GetCellCount())
	a.p.Cells.Status = wire.Prealloc[cellstatus.Status](h.GetCellCount())
	a.stage = stageCells
	return nil
}

func (a *problemAssembler) cellBlock(b *sdcpb.CellBlock) error {
	if b.GetFirstCell() != a.cells {
		return wire.StreamErr("cell block starts at %d, want %d", b.GetFirstCell(), a.cells)
	}
	n := len(b.GetValue())
	if n == 0 || a.cells+int64(n) > a.hdr.GetCellCount() {
		return wire.StreamErr("cell block of %d cells at %d exceeds the header's %d cells", n, a.cells, a.hdr.GetCellCount())
	}
	st, err := wire.StatusesFromProto(b.GetStatus())
	if err != nil || len(st) != n {
		return wire.StreamErr("cell block at %d: %d statuses for %d values", a.cells, len(b.GetStatus()), n)
	}
	c := &a.p.Cells
	cnt := a.hdr.GetCellCount()
	topN, htopN := a.p.TopN, a.p.HoldingTopN
	cols := [...]struct {
		got, want int
		add       func()
	}{
		{len(b.Cost), n, func() { c.Cost = appendCol(c.Cost, b.Cost, cnt) }},
		{len(b.Shadow), n, func() { c.Shadow = appendCol(c.Shadow, b.Shadow, cnt) }},
		{len(b.Frequency), n, func() { c.Freq = appendCol(c.Freq, b.Frequency, cnt) }},
		{len(b.HoldingFrequency), n, func() { c.HoldingFreq = appendCol(c.HoldingFreq, b.HoldingFrequency, cnt) }},
		{len(b.LowerProtection), n, func() { c.LowerPL = appendCol(c.LowerPL, b.LowerProtection, cnt) }},
		{len(b.UpperProtection), n, func() { c.UpperPL = appendCol(c.UpperPL, b.UpperProtection, cnt) }},
		{len(b.SlidingProtection), n, func() { c.SlidingPL = appendCol(c.SlidingPL, b.SlidingProtection, cnt) }},
		{len(b.LowerBound), n, func() { c.LowerBound = appendCol(c.LowerBound, b.LowerBound, cnt) }},
		{len(b.UpperBound), n, func() { c.UpperBound = appendCol(c.UpperBound, b.UpperBound, cnt) }},
		{len(b.Top), n * topN, func() { c.Top = appendCol(c.Top, b.Top, cnt*int64(topN)) }},
		{len(b.HoldingTop), n * htopN, func() { c.HoldingTop = appendCol(c.HoldingTop, b.HoldingTop, cnt*int64(htopN)) }},
		{len(b.Table), n, func() { c.Table = appendCol(c.Table, b.Table, cnt) }},
		{len(b.Published), n, func() { c.Published = appendCol(c.Published, b.Published, cnt) }},
		{len(b.PublishedLower), n, func() { c.PublishedLower = appendCol(c.PublishedLower, b.PublishedLower, cnt) }},
		{len(b.PublishedUpper), n, func() { c.PublishedUpper = appendCol(c.PublishedUpper, b.PublishedUpper, cnt) }},
		{len(b.CellKey), n, func() { c.CellKey = appendCol(c.CellKey, b.CellKey, cnt) }},
		{len(b.MinContribution), n, func() { c.MinContribution = appendCol(c.MinContribution, b.MinContribution, cnt) }},
		{len(b.TopWeight), n * topN, func() { c.TopWeight = appendCol(c.TopWeight, b.TopWeight, cnt*int64(topN)) }},
		{len(b.Weight), n, func() { c.Weight = appendCol(c.Weight, b.Weight, cnt) }},
		{len(b.Coordinates), -1, func() { c.Coords = append(c.Coords, b.Coordinates...) }},
	}
	for i, col := range cols {
		has := col.got > 0
		if a.first {
			a.present[i] = has
		} else if has != a.present[i] {
			return wire.StreamErr("cell block at %d: column %d present in some blocks only", a.cells, i)
		}
		if has && col.want >= 0 && col.got != col.want {
			return wire.StreamErr("cell block at %d: column %d has %d entries, want %d", a.cells, i, col.got, col.want)
		}
	}
	for _, col := range cols {
		if col.got > 0 {
			col.add()
		}
	}
	a.first = false
	c.Value = append(c.Value, b.Value...)
	c.Status = append(c.Status, st...)
	a.cells += int64(n)
	return nil
}

func appendCol[T any](dst, src []T, total int64) []T {
	if dst == nil {
		dst = wire.Prealloc[T](total)
	}
	return append(dst, src...)
}

func (a *problemAssembler) linkBlock(b *sdcpb.LinkBlock) error {
	if a.cells != a.hdr.GetCellCount() {
		return wire.StreamErr("link block before all cells")
	}
	if b.GetFirstLink() != a.links {
		return wire.StreamErr("link block starts at %d, want %d", b.GetFirstLink(), a.links)
	}
	n := len(b.GetCell())
	if n == 0 || len(b.GetTable()) != n || a.links+int64(n) > a.hdr.GetLinkCount() {
		return wire.StreamErr("malformed link block at %d", a.links)
	}
	l := &a.p.Links
	l.Cell = append(l.Cell, wire.Ints(b.GetCell())...)
	l.Table = append(l.Table, b.GetTable()...)
	l.Coords = append(l.Coords, b.GetCoordinates()...)
	a.links += int64(n)
	return nil
}

func (a *problemAssembler) relationBlock(b *sdcpb.RelationBlock) error {
	if a.cells != a.hdr.GetCellCount() || a.links != a.hdr.GetLinkCount() {
		return wire.StreamErr("relation block before all cells and links")
	}
	if b.GetFirstRelation() != a.relations {
		return wire.StreamErr("relation block starts at %d, want %d", b.GetFirstRelation(), a.relations)
	}
	n := len(b.GetTermCounts())
	if n == 0 || a.relations+int64(n) > a.hdr.GetRelationCount() {
		return wire.StreamErr("relation block of %d relations at %d exceeds the header's %d", n, a.relations, a.hdr.GetRelationCount())
	}
	terms := 0
	for _, k := range b.GetTermCounts() {
		if k < 0 {
			return wire.StreamErr("negative term count in relation block at %d", a.relations)
		}
		terms += int(k)
	}
	if len(b.GetCells()) != terms || len(b.GetCoefficients()) != terms {
		return wire.StreamErr("relation block at %d: %d cells and %d coefficients for %d terms", a.relations, len(b.GetCells()), len(b.GetCoefficients()), terms)
	}
	r := &a.p.Relations
	if len(r.Start) == 0 {
		r.Start = wire.Prealloc[int](a.hdr.GetRelationCount() + 1)
		r.Start = append(r.Start, 0)
		r.Cell = wire.Prealloc[int](a.hdr.GetTermCount())
		r.Coef = wire.Prealloc[float64](a.hdr.GetTermCount())
	}
	hasRHS := len(b.GetRhs()) > 0
	if hasRHS && len(b.GetRhs()) != n {
		return wire.StreamErr("relation block at %d: %d right-hand sides for %d relations", a.relations, len(b.GetRhs()), n)
	}
	if hasRHS && len(r.RHS) == 0 {
		r.RHS = make([]float64, a.relations, min(a.hdr.GetRelationCount(), wire.MaxPrealloc))
	}
	if hasRHS {
		r.RHS = append(r.RHS, b.GetRhs()...)
	} else if len(r.RHS) > 0 {
		r.RHS = append(r.RHS, make([]float64, n)...)
	}
	for _, k := range b.GetTermCounts() {
		r.Start = append(r.Start, r.Start[len(r.Start)-1]+int(k))
	}
	r.Cell = append(r.Cell, wire.Ints(b.GetCells())...)
	r.Coef = append(r.Coef, b.GetCoefficients()...)
	a.relations += int64(n)
	return nil
}

func (a *problemAssembler) finish() error {
	h := a.hdr
	if a.cells != h.GetCellCount() || a.links != h.GetLinkCount() || a.relations != h.GetRelationCount() ||
		int64(len(a.p.Relations.Cell)) != h.GetTermCount() {
		return wire.StreamErr("end of input after %d cells, %d links, %d relations, %d terms; header announced %d, %d, %d, %d",
			a.cells, a.links, a.relations, len(a.p.Relations.Cell), h.GetCellCount(), h.GetLinkCount(), h.GetRelationCount(), h.GetTermCount())
	}
	if err := a.p.Validate(); err != nil {
		return wire.StreamErr("invalid problem: %v", err)
	}
	return nil
}

// sendResult streams res for n cells as ResultBlocks, then its witnesses
// when the host accepts them (witnesses), followed by Completed.
func sendResult(res *Result, n, chunk int, witnesses bool, send func(*sdcpb.ProtectResponse) error) error {
	if chunk <= 0 {
		chunk = wire.DefaultChunkBytes
	}
	if res.Outcome.HasResult() {
		per := 2
		for _, col := range []int{len(res.Values), len(res.Lower), len(res.Upper)} {
			if col > 0 {
				per += 9
			}
		}
		if len(res.Verdicts) > 0 {
			per += 4
		}
		per = max(1, chunk/per)
		for a := 0; a < n; a += per {
			b := min(a+per, n)
			blk := &sdcpb.ResultBlock{FirstCell: int64(a), Value: wire.Slice(res.Values, a, b),
				Lower: wire.Slice(res.Lower, a, b), Upper: wire.Slice(res.Upper, a, b)}
			if len(res.Status) > 0 {
				blk.Status = wire.StatusesToProto(res.Status[a:b])
			}
			if len(res.Verdicts) > 0 {
				blk.Verdict, blk.VerdictReason = verdictsToProto(res.Verdicts[a:b])
			}
			if err := send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Result{Result: blk}}); err != nil {
				return err
			}
		}
		if witnesses {
			ws := res.Witnesses
			get := func(i int) (int, []int, []float64) { return ws[i].Cell, ws[i].Cells, ws[i].Deltas }
			if _, err := wire.SendWitnesses(len(ws), get, wire.WitnessBudget(n), chunk, func(b *sdcpb.WitnessBlock) error {
				return send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Witnesses{Witnesses: b}})
			}); err != nil {
				return err
			}
		}
	}
	return send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Completed{Completed: &sdcpb.Completed{
		Outcome: sdcpb.Outcome(res.Outcome), Diagnostics: diagsToProto(res.Diagnostics),
		Stats: statsToProto(res.Stats), Published: publishedToProto(res.Published),
	}}})
}
