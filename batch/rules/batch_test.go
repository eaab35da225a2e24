package rules

import (
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/arb"
)

func TestFromBatch(t *testing.T) {
	const job = "<OPENMICRODATA> \"x.asc\"\n<OPENMETADATA> \"x.rda\"\n<SPECIFYTABLE> \"a\"|\"v\"\n" +
		"<SAFETYRULE> NK(3,75)|P(15,1)|P(10,50,2)|NK(0,0)|P(20,1)|FREQ(3,20)|FREQ(2,30)|ZERO(5)|MIS(1)|MAN(15)\n"
	j, err := arb.Parse(strings.NewReader(job), "t.arb")
	if err != nil {
		t.Fatal(err)
	}
	var sr *arb.SafetyRule
	for _, c := range j.Commands {
		if x, ok := c.(*arb.SafetyRule); ok {
			sr = x
		}
	}
	s, err := FromBatch(sr, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.NK[0] == nil || s.NK[0].N != 3 || s.NK[0].K != 75 || s.NK[1] != nil {
		t.Errorf("NK slots %+v %+v", s.NK[0], s.NK[1])
	}
	if s.P[0] == nil || s.P[0].P != 15 || s.P[0].Q != 100 || s.P[0].N != 1 ||
		s.P[1] == nil || s.P[1].Q != 50 || s.P[1].N != 2 || s.P[2] == nil || s.P[2].P != 20 {
		t.Errorf("P slots %+v %+v %+v", s.P[0], s.P[1], s.P[2])
	}
	if s.Freq[0].MinFreq != 3 || s.Freq[1].Range != 30 || !s.Zero || s.ZeroRange != 5 || !s.MissingSafe ||
		s.ManualMargin != 15 || s.Decimals != 2 {
		t.Errorf("other rules: %+v", s)
	}
	if s.TopN() != 3 || s.HoldingTopN() != 2 {
		t.Errorf("TopN %d HoldingTopN %d, want 3 and 2", s.TopN(), s.HoldingTopN())
	}
}
