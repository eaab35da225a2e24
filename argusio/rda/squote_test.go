package rda

import (
	"strings"
	"testing"
)

// TestSingleQuotes: sdcTable on Linux quotes with single quotes; where
// τ-Argus takes a quoted string they are read as quotes, with one warning.
func TestSingleQuotes(t *testing.T) {
	in := "<SEPARATOR> ','\n" +
		"region 1 '9'\n   <RECODEABLE>\n   <TOTCODE> 'Total'\n   <HIERCODELIST> 'my region.hrc'\n   <HIERLEADSTRING> '@'\n   <HIERARCHICAL>\n" +
		"gender 6\n   <RECODEABLE>\n   <TOTCODE> 'All people'\n   <CODELIST> \"g.cdl\"\n" +
		"r 1\n   <REQUEST> '1' \"2\"\n" +
		"num1 8 '99999999'\n   <NUMERIC>\n   <DECIMALS> 2\n"
	m, err := Parse(strings.NewReader(in), "m.rda", Microdata)
	if err != nil {
		t.Fatal(err)
	}
	reg, gen := m.Find("region"), m.Find("gender")
	if m.Separator != "," || reg.TotCode != "Total" || reg.HierFile != "my region.hrc" || reg.HierLeadString != "@" ||
		reg.Missing[0] != "9" || gen.TotCode != "All people" || gen.CodeList != "g.cdl" {
		t.Errorf("separator %q, region %+v, gender %+v", m.Separator, reg, gen)
	}
	if r := m.Find("r"); r.RequestCodes != [2]string{"1", "2"} {
		t.Errorf("request codes %q", r.RequestCodes)
	}
	if n := m.Find("num1"); n.Missing[0] != "99999999" {
		t.Errorf("num1 missing %q", n.Missing)
	}
	if len(m.Warnings) != 1 || m.Warnings[0].Pos.Line != 1 || !strings.Contains(m.Warnings[0].Msg, "single quotes") {
		t.Errorf("warnings %v", m.Warnings)
	}
	tab := "<SEPARATOR> ';'\n<SAFE> 's'\nA\n   <RECODEABLE>\n   <TOTCODE> 'T'\nV\n   <NUMERIC>\n"
	m, err = Parse(strings.NewReader(tab), "t.rda", Tabular)
	if err != nil {
		t.Fatal(err)
	}
	if m.Separator != ";" || m.Safe != "s" || m.Find("A").TotCode != "T" {
		t.Errorf("tabular: separator %q safe %q", m.Separator, m.Safe)
	}
}
