// Package singleton finds the groups of primary cells that τ-Argus's
// singleton options protect jointly: per relation, two single-respondent
// primaries (single–single), a single-respondent and one other primary
// (single–multiple), or primaries whose frequencies add up to less than the
// frequency rule's minimum (min-frequency). Each respondent of such a group
// could otherwise recompute the others' share from their published sum, so
// the sum must be able to move. The exact engine (OPT) protects a group
// through a virtual cell equal to the sum, the network method (NET) through
// a cycle moving one member while the others stay.
package singleton

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Rule holds τ-Argus's three singleton switches.
type Rule struct {
	SingleSingle, SingleMultiple, MinFreq bool
	// MinCount is the frequency rule's minimum for MinFreq; 0 infers it
	// (MinimumFrequency).
	MinCount int
}

// On reports whether any switch is on.
func (r Rule) On() bool { return r.SingleSingle || r.SingleMultiple || r.MinFreq }

// MinimumFrequency returns the frequency rule's minimum for the
// min-frequency option: the given value, or one more than the largest
// frequency of a frequency-unsafe cell (0 when there is none).
func MinimumFrequency(p *pluginsdk.Problem, given int) int {
	if given > 0 || len(p.Cells.Freq) != p.NumCells() {
		return given
	}
	m := 0
	for i, s := range p.Cells.Status {
		if s == cellstatus.UnsafeFreq {
			m = max(m, int(p.Cells.Freq[i])+1)
		}
	}
	return m
}

// A Group is a set of primaries of one relation whose sum must be able to
// move by Level.
type Group struct {
	// Cells are the primaries, ascending.
	Cells []int
	// Sum is the sum of their values.
	Sum float64
	// Level is the required move of the sum: max(10⁻⁴·|Sum|,
	// 10^−decimals), as τ-Argus sets the upper level of its singleton cells.
	Level float64
	// Whole reports that the group is every term of its relation (a single
	// child and its parent): no other cell of the relation can move their
	// sum.
	Whole bool
}

// Groups returns the groups of p under rule r over the relations rel
// (cells at or beyond p's cells, such as virtual ones, are ignored), each
// set of cells once, in the order of the relations. None without
// frequencies or with every switch off.
func Groups(p *pluginsdk.Problem, rel pluginsdk.Relations, r Rule) []Group {
	n := p.NumCells()
	if len(p.Cells.Freq) != n || !r.On() {
		return nil
	}
	minCount := MinimumFrequency(p, r.MinCount)
	step := math.Pow(10, -float64(p.Decimals))
	seen := map[string]bool{}
	var out []Group
	var u []int
	for k := range rel.Len() {
		cells, _ := rel.Terms(k)
		u = u[:0]
		single, freq := 0, int64(0)
		for _, c := range cells {
			if c < n && p.Cells.Status[c].IsPrimary() {
				u = append(u, c)
				freq += p.Cells.Freq[c]
				if p.Cells.Freq[c] == 1 {
					single++
				}
			}
		}
		multiple := len(u) - single
		add := r.SingleSingle && single == 2 && multiple == 0 ||
			r.SingleMultiple && single == 1 && multiple == 1 ||
			r.MinFreq && freq > 0 && freq < int64(minCount)
		if !add || len(u) < 2 {
			continue
		}
		key := slices.Clone(u)
		slices.Sort(key)
		var b strings.Builder
		for _, c := range key {
			b.WriteString(strconv.Itoa(c))
			b.WriteByte(',')
		}
		if seen[b.String()] {
			continue
		}
		seen[b.String()] = true
		sum := 0.0
		for _, c := range key {
			sum += p.Cells.Value[c]
		}
		out = append(out, Group{Cells: key, Sum: sum, Level: math.Max(numeric.SingletonShare*math.Abs(sum), step), Whole: len(u) == len(cells)})
	}
	return out
}

// Names of the parameters of the switches, for the methods that offer them
// (OPT, NET).
const (
	ParamSingleSingle   = "single_single"
	ParamSingleMultiple = "single_multiple"
	ParamMinFreq        = "min_freq"
	ParamMinFrequency   = "min_frequency"
)

// Params returns the parameters of the switches, all on by default as in
// τ-Argus.
func Params() []pluginsdk.ParamSpec {
	return []pluginsdk.ParamSpec{
		{Name: ParamSingleSingle, Type: pluginsdk.ParamBool, Default: "true", Role: pluginsdk.RoleSingletonRule,
			Help: "tauargus singletons: protect the sum of two single-respondent primaries of a relation"},
		{Name: ParamSingleMultiple, Type: pluginsdk.ParamBool, Default: "true", Role: pluginsdk.RoleSingletonRule,
			Help: "tauargus singletons: protect the sum of a single-respondent and another primary of a relation"},
		{Name: ParamMinFreq, Type: pluginsdk.ParamBool, Default: "true",
			Help: "tauargus singletons: protect the sum of the primaries of a relation whose frequencies add up to less than the minimum frequency"},
		{Name: ParamMinFrequency, Type: pluginsdk.ParamInt, Default: "0", Min: "0",
			Help: "the minimum frequency of the frequency rule, for min_freq; 0: one more than the largest frequency of a frequency-unsafe cell (none without such cells)"},
	}
}

// RuleFrom returns the switches set in params (declared by Params).
func RuleFrom(params pluginsdk.Params) Rule {
	return Rule{SingleSingle: params.Bool(ParamSingleSingle), SingleMultiple: params.Bool(ParamSingleMultiple),
		MinFreq: params.Bool(ParamMinFreq), MinCount: params.Int(ParamMinFrequency)}
}
