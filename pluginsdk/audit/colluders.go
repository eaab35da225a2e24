package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// ownCells marks the hidden single-respondent primaries that do not collude
// against the cells they make up: for every relation whose total is a
// hidden cell and whose non-empty terms are all hidden single-respondent
// primaries with frequencies adding up to the total's, those terms (and
// the total, when it is single-respondent itself) are the total's only
// contributors. Letting them collude would "disclose" to them their own
// data: a cell with one child is that child's copy (single-child hierarchy
// levels), and two respondents who together make up a cell know it. Such
// cells are left out of the colluding set. It returns nil when the problem
// has no frequencies.
func ownCells(p *pluginsdk.Problem, status []cellstatus.Status) []bool {
	c := &p.Cells
	n := p.NumCells()
	if len(c.Freq) != n {
		return nil
	}
	single := func(i int) bool { return status[i].IsPrimary() && c.Freq[i] == 1 }
	var out []bool
	rel := &p.Relations
	for k := range rel.Len() {
		cells, coef := rel.Terms(k)
		// The total is the one cell whose coefficient's sign differs from
		// all others'.
		total, pos := -1, 0
		for _, a := range coef {
			if a > 0 {
				pos++
			}
		}
		for j, a := range coef {
			if (pos == 1 && a > 0) || (pos == len(coef)-1 && a < 0) {
				total = cells[j]
				break
			}
		}
		if total < 0 || !status[total].IsSuppressed() {
			continue
		}
		var sum int64
		ok, terms := true, 0
		for _, t := range cells {
			if t == total || c.Freq[t] == 0 {
				continue
			}
			if !single(t) {
				ok = false
				break
			}
			sum += c.Freq[t]
			terms++
		}
		if !ok || terms == 0 || sum != c.Freq[total] {
			continue
		}
		if out == nil {
			out = make([]bool, n)
		}
		for _, t := range cells {
			if t != total && c.Freq[t] > 0 {
				out[t] = true
			}
		}
		if single(total) {
			out[total] = true
		}
	}
	return out
}

// colluders returns the hidden single-respondent primaries that collude
// (those singletons fixes), in increasing cell order.
func (in *input) colluders() []int {
	c := &in.p.Cells
	n := in.p.NumCells()
	own := ownCells(in.p, in.status)
	var out []int
	for i := range n {
		st := in.status[i]
		if !st.IsSuppressed() || !st.IsPrimary() || (own != nil && own[i]) {
			continue
		}
		if (len(c.Freq) == n && c.Freq[i] == 1) || (len(c.Freq) != n && st.IsSingleton()) {
			out = append(out, i)
		}
	}
	return out
}

// contains reports whether cell t is made up of cell s and others: both
// lie in one table and in every dimension t's code is s's or an ancestor
// of it, so that s's respondent is one of t's contributors.
func contains(p *pluginsdk.Problem, t, s int) bool {
	if p.TableOf(t) != p.TableOf(s) {
		return false
	}
	ct, cs := p.Coords(t), p.Coords(s)
	if ct == nil || len(ct) != len(cs) {
		return false
	}
	dims := p.Tables[p.TableOf(t)].Dims
	for d := range ct {
		c := cs[d]
		for c >= 0 && c != ct[d] {
			c = dims[d].Parent[c]
		}
		if c < 0 {
			return false
		}
	}
	return true
}

// releaseInsiders audits again, under SingletonsCollude, every primary t
// that r finds under-protected and that contains colluding singletons
// (its insiders: single-respondent primaries whose respondent is one of
// t's contributors), with its insiders not colluding against it, and puts
// those verdicts into r. What an insider knows of t is its own
// contribution: fixing it lets the protection level of t, which is a share
// of the whole cell's value, demand that the insider not know its own data
// (a total dominated by one respondent could then never be protected,
// whatever is hidden). This is ownCells's reason for cells made up of
// singletons alone, and GHMiter's, which exempts a margin of a sub-table
// from its singleton rule. The other colluders stay fixed. Targets with
// the same insiders are audited together.
func (in *input) releaseInsiders(ctx context.Context, r *Report, start time.Time) error {
	if in.opts.Singletons != SingletonsCollude || len(r.UnderProtected) == 0 || len(in.p.Cells.Coords) == 0 || len(in.p.Tables) == 0 {
		return nil
	}
	colluders := in.colluders()
	type group struct {
		released []bool
		targets  []int
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, f := range r.UnderProtected {
		t := f.Cell
		var key []byte
		var insiders []int
		for _, s := range colluders {
			if s != t && contains(in.p, t, s) {
				insiders = append(insiders, s)
				key = strconv.AppendInt(append(key, ','), int64(s), 10)
			}
		}
		if len(insiders) == 0 {
			continue
		}
		g := byKey[string(key)]
		if g == nil {
			g = &group{released: make([]bool, len(r.Verdict))}
			for _, s := range insiders {
				g.released[s] = true
			}
			byKey[string(key)] = g
			groups = append(groups, g)
		}
		g.targets = append(g.targets, t)
	}
	for q, g := range groups {
		if in.outOfTime(start) {
			// Each group is an attack on the whole table: none starts
			// after the limit. Their targets are unverified, not
			// under-protected (their insiders were not released).
			var left []int
			for _, g := range groups[q:] {
				left = append(left, g.targets...)
			}
			unverify(r, left)
			return nil
		}
		sub := *in
		sub.released = g.released
		sub.opts.Cells = g.targets
		only := make([]bool, len(r.Verdict))
		for _, t := range g.targets {
			only[t] = true
		}
		a := sub.newAttack(&sub.opts, start)
		sub.hide(a, only)
		rr, err := sub.attackAndReport(ctx, a, start)
		if err != nil {
			return err
		}
		mergeVerdicts(r, rr, g.targets)
	}
	return nil
}

// unverify turns the primaries targets of r (all under-protected there)
// into unverified ones: the time limit stopped their audit.
func unverify(r *Report, targets []int) {
	n := len(r.Verdict)
	rr := &Report{Lower: make([]float64, n), Upper: make([]float64, n), Verdict: make([]Verdict, n), Verdicts: make([]verdict.Verdict, n), TimedOut: true}
	for _, t := range targets {
		rr.Lower[t], rr.Upper[t] = math.NaN(), math.NaN()
		rr.Verdict[t], rr.Verdicts[t] = VerdictUnknown, verdict.Verdict{Kind: verdict.Unverified, Reason: verdict.Unsolved}
	}
	rr.Diagnostics = []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityWarning, Code: "audit.time_limit",
		Summary: fmt.Sprintf("the audit stopped at its time limit before it released the insiders of %d primaries: they are unverified", len(targets)), Cells: targets}}
	mergeVerdicts(r, rr, targets)
}

// mergeVerdicts replaces the verdicts of the primaries targets in r (all
// under-protected there) by those of rr, an audit of them alone.
func mergeVerdicts(r, rr *Report, targets []int) {
	ct := &r.Counts
	redo := make(map[int]bool, len(targets))
	for _, t := range targets {
		redo[t] = true
		switch r.Verdict[t] {
		case VerdictPartial:
			ct.Partial--
		case VerdictExact:
			ct.Exact--
		}
		r.Lower[t], r.Upper[t], r.Verdict[t], r.Verdicts[t] = rr.Lower[t], rr.Upper[t], rr.Verdict[t], rr.Verdicts[t]
		switch rr.Verdict[t] {
		case VerdictProtected:
			ct.Protected++
		case VerdictPartial:
			ct.Partial++
		case VerdictExact:
			ct.Exact++
		case VerdictUnknown:
			ct.unknown++
			r.Unverified = append(r.Unverified, t)
		}
	}
	r.UnderProtected = slices.DeleteFunc(r.UnderProtected, func(f Finding) bool { return redo[f.Cell] })
	r.UnderProtected = append(r.UnderProtected, rr.UnderProtected...)
	slices.SortFunc(r.UnderProtected, func(a, b Finding) int { return a.Cell - b.Cell })
	slices.Sort(r.Unverified)
	ct.LPs += rr.Counts.LPs
	ct.settled += rr.Counts.settled
	ct.certified += rr.Counts.certified
	ct.SimplexIterations += rr.Counts.SimplexIterations
	r.TimedOut = r.TimedOut || rr.TimedOut
	for _, d := range rr.Diagnostics {
		if !slices.ContainsFunc(r.Diagnostics, func(e pluginsdk.Diagnostic) bool { return e.Code == d.Code && e.Summary == d.Summary }) {
			r.Diagnostics = append(r.Diagnostics, d)
		}
	}
	// rr's total runs from the same start.
	r.Timing.Total = max(r.Timing.Total, rr.Timing.Total)
}
