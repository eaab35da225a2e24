package audit

import (
	"github.com/sdcengine/argus/pluginsdk"

	"github.com/sdcengine/argus/argusio/cellstatus"
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
