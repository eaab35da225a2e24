package pluginsdk

import (
	"errors"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/internal/sdcpb"
	"github.com/sdcengine/argus/internal/wire"
)

// This file chunks problems and results into wire messages of bounded size
// and reassembles them, enforcing the stream grammar of method.proto.

// jobHeader is everything of a Protect header except the counts, which are
// taken from the problem.
type jobHeader struct {
	method string
	params map[string]string
	jobID  string
	limits Limits
	caps   *sdcpb.ClientCapabilities
}

// cellBytes is an upper bound of the encoded size of one cell of p.
func cellBytes(p *Problem, dims int) int {
	c := &p.Cells
	n := 9 + 2 // value, status
	for _, col := range []int{len(c.Cost), len(c.Shadow), len(c.LowerPL), len(c.UpperPL), len(c.SlidingPL), len(c.LowerBound), len(c.UpperBound)} {
		if col > 0 {
			n += 8
		}
	}
	if len(c.Freq) > 0 {
		n += 10
	}
	if len(c.HoldingFreq) > 0 {
		n += 10
	}
	if len(c.Top) > 0 {
		n += 8 * p.TopN
	}
	if len(c.HoldingTop) > 0 {
		n += 8 * p.HoldingTopN
	}
	if len(c.Table) > 0 {
		n += 5
	}
	if len(c.Coords) > 0 {
		n += 5 * dims
	}
	return n
}

func maxDims(ts []Table) int {
	m := 0
	for _, t := range ts {
		m = max(m, len(t.Dims))
	}
	return m
}

// sendProblem streams h and p as Header, CellBlocks, LinkBlocks,
// RelationBlocks and EndOfInput, each payload at most about chunk bytes.
func sendProblem(h jobHeader, p *Problem, chunk int, send func(*sdcpb.ProtectRequest) error) error {
	if chunk <= 0 {
		chunk = wire.DefaultChunkBytes
	}
	dims := maxDims(p.Tables)
	hdr := &sdcpb.Header{
		Method: h.method, Params: h.params, JobId: h.jobID,
		CellCount: int64(p.NumCells()), RelationCount: int64(p.NumRelations()), TermCount: int64(len(p.Relations.Cell)),
		Tables: tablesToProto(p.Tables), Limits: limitsToProto(h.limits), ClientCapabilities: h.caps,
		Decimals: int32(p.Decimals), TopN: int32(p.TopN), HoldingTopN: int32(p.HoldingTopN),
		LinkCount: int64(len(p.Links.Cell)), Response: p.Response,
	}
	if err := send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Header{Header: hdr}}); err != nil {
		return err
	}
	c := &p.Cells
	per := max(1, chunk/cellBytes(p, dims))
	coordAt := 0
	for a := 0; a < p.NumCells(); a += per {
		b := min(a+per, p.NumCells())
		blk := &sdcpb.CellBlock{
			FirstCell: int64(a), Value: c.Value[a:b], Status: wire.StatusesToProto(c.Status[a:b]),
			Cost: wire.Slice(c.Cost, a, b), Shadow: wire.Slice(c.Shadow, a, b), Frequency: wire.Slice(c.Freq, a, b),
			HoldingFrequency: wire.Slice(c.HoldingFreq, a, b), LowerProtection: wire.Slice(c.LowerPL, a, b),
			UpperProtection: wire.Slice(c.UpperPL, a, b), SlidingProtection: wire.Slice(c.SlidingPL, a, b),
			LowerBound: wire.Slice(c.LowerBound, a, b), UpperBound: wire.Slice(c.UpperBound, a, b),
			Top: wire.Slice(c.Top, a*p.TopN, b*p.TopN), HoldingTop: wire.Slice(c.HoldingTop, a*p.HoldingTopN, b*p.HoldingTopN),
			Table: wire.Slice(c.Table, a, b),
		}
		if len(c.Coords) > 0 {
			end := coordAt
			for i := a; i < b; i++ {
				end += len(p.Tables[p.TableOf(i)].Dims)
			}
			blk.Coordinates = c.Coords[coordAt:end]
			coordAt = end
		}
		if err := send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Cells{Cells: blk}}); err != nil {
			return err
		}
	}
	if err := sendLinks(p, chunk, dims, send); err != nil {
		return err
	}
	if err := sendRelations(&p.Relations, chunk, send); err != nil {
		return err
	}
	return send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_End{End: &sdcpb.EndOfInput{}}})
}

func sendLinks(p *Problem, chunk, dims int, send func(*sdcpb.ProtectRequest) error) error {
	l := &p.Links
	per := max(1, chunk/(15+5*dims))
	coordAt := 0
	for a := 0; a < len(l.Cell); a += per {
		b := min(a+per, len(l.Cell))
		end := coordAt
		for i := a; i < b; i++ {
			end += len(p.Tables[l.Table[i]].Dims)
		}
		blk := &sdcpb.LinkBlock{FirstLink: int64(a), Cell: wire.Int64s(l.Cell[a:b]), Table: l.Table[a:b], Coordinates: l.Coords[coordAt:end]}
		coordAt = end
		if err := send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Links{Links: blk}}); err != nil {
			return err
		}
	}
	return nil
}

// sendRelations sends whole relations per block; a single relation larger
// than chunk goes alone in its block.
func sendRelations(r *Relations, chunk int, send func(*sdcpb.ProtectRequest) error) error {
	const perTerm, perRel = 18, 14
	for a := 0; a < r.Len(); {
		size, b := 0, a
		for b < r.Len() {
			s := perRel + perTerm*(r.Start[b+1]-r.Start[b])
			if b > a && size+s > chunk {
				break
			}
			size += s
			b++
		}
		blk := &sdcpb.RelationBlock{FirstRelation: int64(a)}
		blk.TermCounts = make([]int32, 0, b-a)
		for i := a; i < b; i++ {
			blk.TermCounts = append(blk.TermCounts, int32(r.Start[i+1]-r.Start[i]))
		}
		blk.Cells = wire.Int64s(r.Cell[r.Start[a]:r.Start[b]])
		blk.Coefficients = r.Coef[r.Start[a]:r.Start[b]]
		blk.Rhs = wire.Slice(r.RHS, a, b)
		if err := send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Relations{Relations: blk}}); err != nil {
			return err
		}
		a = b
	}
	return nil
}

// problemAssembler rebuilds a Problem from a Protect request stream.
type problemAssembler struct {
	stage     int // 0 header, 1 cells, 2 links, 3 relations, 4 done
	hdr       *sdcpb.Header
	p         *Problem
	cells     int64
	links     int64
	relations int64
	first     bool // the first cell block fixes which columns are present
	present   [13]bool
}

const (
	stageHeader = iota
	stageCells
	stageLinks
	stageRelations
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
		if a.stage == stageHeader {
			return false, wire.StreamErr("relation block before header")
		}
		a.stage = stageRelations
		return false, a.relationBlock(k.Relations)
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

// sendResult streams res for n cells as ResultBlocks followed by Completed.
func sendResult(res *Result, n, chunk int, send func(*sdcpb.ProtectResponse) error) error {
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
		per = max(1, chunk/per)
		for a := 0; a < n; a += per {
			b := min(a+per, n)
			blk := &sdcpb.ResultBlock{FirstCell: int64(a), Value: wire.Slice(res.Values, a, b),
				Lower: wire.Slice(res.Lower, a, b), Upper: wire.Slice(res.Upper, a, b)}
			if len(res.Status) > 0 {
				blk.Status = wire.StatusesToProto(res.Status[a:b])
			}
			if err := send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Result{Result: blk}}); err != nil {
				return err
			}
		}
	}
	return send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Completed{Completed: &sdcpb.Completed{
		Outcome: sdcpb.Outcome(res.Outcome), Diagnostics: diagsToProto(res.Diagnostics),
		Stats: statsToProto(res.Stats), Published: publishedToProto(res.Published),
	}}})
}

// resultAssembler rebuilds a Result from a Protect response stream.
type resultAssembler struct {
	n      int
	next   int
	res    Result
	done   bool
	onProg func(Progress)
}

func (a *resultAssembler) add(m *sdcpb.ProtectResponse) error {
	if a.done {
		return wire.StreamErr("message after completion")
	}
	switch k := m.GetKind().(type) {
	case *sdcpb.ProtectResponse_Progress:
		if a.onProg != nil {
			a.onProg(progressFromProto(k.Progress))
		}
	case *sdcpb.ProtectResponse_Result:
		b := k.Result
		if b.GetFirstCell() != int64(a.next) {
			return wire.StreamErr("result block starts at %d, want %d", b.GetFirstCell(), a.next)
		}
		n := max(len(b.GetStatus()), len(b.GetValue()), len(b.GetLower()), len(b.GetUpper()))
		if n == 0 || a.next+n > a.n {
			return wire.StreamErr("result block of %d cells at %d for %d cells", n, a.next, a.n)
		}
		st, err := wire.StatusesFromProto(b.GetStatus())
		if err != nil {
			return wire.StreamErr("result block at %d: %v", a.next, err)
		}
		r := &a.res
		for _, col := range []struct {
			dst   *[]float64
			src   []float64
			label string
		}{{&r.Values, b.GetValue(), "values"}, {&r.Lower, b.GetLower(), "lower"}, {&r.Upper, b.GetUpper(), "upper"}} {
			if err := appendResultCol(col.dst, col.src, a.next, n, a.n); err != nil {
				return wire.StreamErr("result block at %d: %s: %v", a.next, col.label, err)
			}
		}
		if len(st) > 0 || len(r.Status) > 0 {
			if len(st) != n || len(r.Status) != a.next {
				return wire.StreamErr("result block at %d: statuses in some blocks only", a.next)
			}
			if r.Status == nil {
				r.Status = make([]cellstatus.Status, 0, a.n)
			}
			r.Status = append(r.Status, st...)
		}
		a.next += n
	case *sdcpb.ProtectResponse_Completed:
		c := k.Completed
		a.done = true
		a.res.Outcome = Outcome(c.GetOutcome())
		a.res.Diagnostics = diagsFromProto(c.GetDiagnostics())
		a.res.Stats = statsFromProto(c.GetStats())
		a.res.Published = publishedFromProto(c.GetPublished())
		if a.res.Outcome.HasResult() && a.next != a.n {
			return wire.StreamErr("completed with results for %d of %d cells", a.next, a.n)
		}
		if !a.res.Outcome.HasResult() && a.next != 0 {
			return wire.StreamErr("outcome %s with result blocks", a.res.Outcome)
		}
	default:
		return wire.StreamErr("empty response message")
	}
	return nil
}

func appendResultCol(dst *[]float64, src []float64, at, n, total int) error {
	if len(src) == 0 {
		if len(*dst) != 0 {
			return errors.New("present in some blocks only")
		}
		return nil
	}
	if len(src) != n || len(*dst) != at {
		return errors.New("present in some blocks only or wrong length")
	}
	if *dst == nil {
		*dst = make([]float64, 0, total)
	}
	*dst = append(*dst, src...)
	return nil
}
