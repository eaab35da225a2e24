package pluginclient

import (
	"errors"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
)

// This file is the host's side of the Protect stream: it chunks a problem
// into wire messages of bounded size and reassembles the result, enforcing
// the stream grammar of method.proto. The plugin's side is in pluginsdk.

// cellBytes is an upper bound of the encoded size of one cell of p.
func cellBytes(p *pluginsdk.Problem, dims int) int {
	c := &p.Cells
	n := 9 + 2 // value, status
	for _, col := range []int{len(c.Cost), len(c.Shadow), len(c.LowerPL), len(c.UpperPL), len(c.SlidingPL), len(c.LowerBound), len(c.UpperBound), len(c.Published), len(c.PublishedLower), len(c.PublishedUpper), len(c.CellKey), len(c.MinContribution), len(c.Weight)} {
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
	if len(c.TopWeight) > 0 {
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

func maxDims(ts []pluginsdk.Table) int {
	m := 0
	for _, t := range ts {
		m = max(m, len(t.Dims))
	}
	return m
}

// header is the Protect header of a job: the only place where a Job becomes
// wire fields.
func header(job Job) *sdcpb.Header {
	p := job.Problem
	return &sdcpb.Header{
		Method: job.Method, Params: job.Params, JobId: job.JobID,
		CellCount: int64(p.NumCells()), RelationCount: int64(p.NumRelations()), TermCount: int64(len(p.Relations.Cell)),
		Tables: tablesToProto(p.Tables), Limits: limitsToProto(job.Limits),
		ClientCapabilities: &sdcpb.ClientCapabilities{MaxMessageBytes: 0, AcceptsPartialResults: true, WantsProgress: job.OnProgress != nil, AcceptsWitnesses: true},
		Decimals:           int32(p.Decimals), TopN: int32(p.TopN), HoldingTopN: int32(p.HoldingTopN),
		LinkCount: int64(len(p.Links.Cell)), Response: p.Response, ItemService: job.itemService,
	}
}

// EncodeProblem streams job as Header, CellBlocks, LinkBlocks,
// RelationBlocks, WitnessBlocks (job.Witnesses) and EndOfInput, each payload at most about chunk bytes
// (wire.DefaultChunkBytes when chunk ≤ 0). The job's texts must already be
// valid UTF-8 (see text.go).
func EncodeProblem(job Job, chunk int, send func(*sdcpb.ProtectRequest) error) error {
	if chunk <= 0 {
		chunk = wire.DefaultChunkBytes
	}
	p := job.Problem
	dims := maxDims(p.Tables)
	hdr := header(job)
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
			Table: wire.Slice(c.Table, a, b), Published: wire.Slice(c.Published, a, b),
			PublishedLower: wire.Slice(c.PublishedLower, a, b), PublishedUpper: wire.Slice(c.PublishedUpper, a, b),
			CellKey: wire.Slice(c.CellKey, a, b), MinContribution: wire.Slice(c.MinContribution, a, b),
			TopWeight: wire.Slice(c.TopWeight, a*p.TopN, b*p.TopN), Weight: wire.Slice(c.Weight, a, b),
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
	ws := job.Witnesses
	get := func(i int) (int, []int, []float64) { return ws[i].Cell, ws[i].Cells, ws[i].Deltas }
	if _, err := wire.SendWitnesses(len(ws), get, wire.WitnessBudget(p.NumCells()), chunk, func(b *sdcpb.WitnessBlock) error {
		return send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_Witnesses{Witnesses: b}})
	}); err != nil {
		return err
	}
	return send(&sdcpb.ProtectRequest{Kind: &sdcpb.ProtectRequest_End{End: &sdcpb.EndOfInput{}}})
}

func sendLinks(p *pluginsdk.Problem, chunk, dims int, send func(*sdcpb.ProtectRequest) error) error {
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
func sendRelations(r *pluginsdk.Relations, chunk int, send func(*sdcpb.ProtectRequest) error) error {
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

// ResultDecoder rebuilds a Result from a Protect response stream.
type ResultDecoder struct {
	n      int
	next   int
	res    pluginsdk.Result
	done   bool
	onProg func(pluginsdk.Progress)
	wdec   wire.WitnessDecoder
}

// NewResultDecoder returns a decoder of the result for n cells; onProgress,
// if not nil, receives the progress reports on the way.
func NewResultDecoder(n int, onProgress func(pluginsdk.Progress)) *ResultDecoder {
	return &ResultDecoder{n: n, onProg: onProgress, wdec: wire.WitnessDecoder{Cells: n}}
}

// Done reports whether the Completed message has arrived.
func (a *ResultDecoder) Done() bool { return a.done }

// Result returns the result decoded so far, complete once Done.
func (a *ResultDecoder) Result() *pluginsdk.Result { return &a.res }

// Add consumes one message; an error wraps wire.ErrStream.
func (a *ResultDecoder) Add(m *sdcpb.ProtectResponse) error {
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
		n := max(len(b.GetStatus()), len(b.GetValue()), len(b.GetLower()), len(b.GetUpper()), len(b.GetVerdict()))
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
		if err := appendResultCol(&r.Status, st, a.next, n, a.n); err != nil {
			return wire.StreamErr("result block at %d: statuses in some blocks only", a.next)
		}
		vs, err := verdictsFromProto(b.GetVerdict(), b.GetVerdictReason())
		if err != nil {
			return wire.StreamErr("result block at %d: %v", a.next, err)
		}
		if err := appendResultCol(&r.Verdicts, vs, a.next, n, a.n); err != nil {
			return wire.StreamErr("result block at %d: verdicts in some blocks only", a.next)
		}
		a.next += n
	case *sdcpb.ProtectResponse_Witnesses:
		if a.next != a.n {
			return wire.StreamErr("witness block before the results of all %d cells", a.n)
		}
		return a.wdec.Add(k.Witnesses, func(t int, cells []int, deltas []float64) {
			a.res.Witnesses = append(a.res.Witnesses, pluginsdk.Witness{Cell: t, Cells: cells, Deltas: deltas})
		})
	case *sdcpb.ProtectResponse_Completed:
		c := k.Completed
		a.done = true
		a.res.Outcome = pluginsdk.Outcome(c.GetOutcome())
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

// appendResultCol appends the column src of a result block of n cells
// starting at cell at to dst (room for total cells): a column is in every
// block, each of n values, or in none.
func appendResultCol[T any](dst *[]T, src []T, at, n, total int) error {
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
		*dst = make([]T, 0, total)
	}
	*dst = append(*dst, src...)
	return nil
}
