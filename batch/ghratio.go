package batch

import (
	"cmp"
	"strconv"

	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// slidingRatio is the sliding protection ratio τ-Argus gives the hypercube
// for a rule set: max(2·(100/k − 1), 2·p/100) over the first dominance rule
// (k) and the first p% rule (p), the holding rule where the individual one
// is absent; without either, twice the frequency rule's safety range, else
// twice the request rule's margin, else twice the manual margin, in percent.
// The protection levels of cells are floored at 10^−decimals, so on small
// cells (frequency tables above all) the levels alone overstate the ratio.
func slidingRatio(s *rules.Set) float64 {
	var nk, p float64
	var hasNK, hasP bool
	if r := cmp.Or(s.NK[0], s.NK[2]); r != nil && r.K > 0 {
		nk, hasNK = 2*(100/r.K-1), true
	}
	if r := cmp.Or(s.P[0], s.P[2]); r != nil {
		p, hasP = 2*r.P/100, true
	}
	if hasNK || hasP {
		return max(nk, p)
	}
	switch {
	case s.Freq[0] != nil:
		return 2 * s.Freq[0].Range / 100
	case s.Freq[1] != nil:
		return 2 * s.Freq[1].Range / 100
	case s.Req[0] != nil:
		return 2 * s.Req[0].Margin / 100
	case s.Req[1] != nil:
		return 2 * s.Req[1].Margin / 100
	}
	return 2 * s.ManualMargin / 100
}

// addSlidingRatio sets the method's parameter of role sliding ratio to
// τ-Argus's sliding ratio of the first table's rules when the method
// declares one and neither the job nor the configuration sets it.
func addSlidingRatio(params map[string]string, info pluginsdk.MethodInfo, specs []*tableSpec) {
	s, ok := pluginclient.ParamWithRole(info, pluginsdk.RoleSlidingRatio)
	if len(specs) == 0 || !ok {
		return
	}
	if _, set := params[s.Name]; set {
		return
	}
	params[s.Name] = strconv.FormatFloat(slidingRatio(&specs[0].set), 'g', -1, 64)
}
