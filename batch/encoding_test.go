package batch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/charset"
)

// encodingJob writes a microdata job and a tabular job (batch file, metadata,
// microdata, hierarchy, table, a-priori file) into dir, every text encoded by
// enc and every file starting with prefix (a byte order mark or nothing).
// Names and codes are French and German ("Île-de-France", "Zürich").
func encodingJob(t *testing.T, dir string, enc func(string) string, prefix string) {
	t.Helper()
	regions := []string{"Zürich", "Bâle", "Île-de-France", "Lyon"}
	w := 0
	for _, r := range regions {
		w = max(w, len(enc(r)))
	}
	pad := func(r string) string { return strings.Repeat(" ", w-len(enc(r))) + r } // fmt pads runes, not bytes
	var asc strings.Builder
	for i, r := range regions {
		for s := 1; s <= 2; s++ {
			for k := range 4 {
				v := 10 + 7*i + 3*s + k*k*(i+1)
				if i == 1 && s == 2 && k > 0 {
					v = 1 // one large contribution makes Bâle/2 unsafe by P(15,1)
				}
				fmt.Fprintf(&asc, "%s%d%5d\r\n", pad(r), s, v)
			}
		}
	}
	files := map[string]string{
		"micro.arb": "<OPENMICRODATA> \"m.asc\"\r\n<OPENMETADATA> \"m.rda\"\r\n" +
			"<SPECIFYTABLE> \"Région\"\"Größe\"|\"Umsatz\"||\r\n<SAFETYRULE> P(15,1)\r\n<READMICRODATA>\r\n" +
			"<SUPPRESS> PAIRS(1,1)\r\n<WRITETABLE> (1, 2, AS+, \"micro2.csv\")\r\n<WRITETABLE> (1, 3, AS+, \"micro3.txt\")\r\n",
		"m.rda": fmt.Sprintf("Région 1 %d\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Gesamt\"\r\n  <HIERARCHICAL>\r\n"+
			"  <HIERCODELIST> \"r.hrc\"\r\n  <HIERLEADSTRING> \"@\"\r\nGröße %d 1\r\n  <RECODEABLE>\r\nUmsatz %d 5\r\n  <NUMERIC>\r\n", w, w+1, w+2),
		"m.asc": asc.String(),
		"r.hrc": "Suisse\r\n@" + pad("Zürich") + "\r\n@" + pad("Bâle") + "\r\nFrance\r\n@" + pad("Île-de-France") + "\r\n@" + pad("Lyon") + "\r\n",
		"tab.arb": "<OPENTABLEDATA> \"t.tab\"\r\n<OPENMETADATA> \"t.rda\"\r\n<SPECIFYTABLE> \"Région\"\"Größe\"|\"Umsatz\"||\r\n" +
			"<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<APRIORI> \"a.hst\", 1, \",\", 1, 1\r\n<SUPPRESS> PAIRS(1,1)\r\n" +
			"<WRITETABLE> (1, 2, AS+, \"tab2.csv\")\r\n",
		"t.rda": "<SEPARATOR> \",\"\r\n<SAFE> \"S\"\r\n<UNSAFE> \"U\"\r\nRégion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Gesamt\"\r\n" +
			"Größe\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Gesamt\"\r\nStatut\r\n  <STATUS>\r\nUmsatz\r\n  <NUMERIC>\r\n",
		"t.tab": "Gesamt,Gesamt,S,100\r\nGesamt,männlich,S,55\r\nGesamt,weiblich,S,45\r\n" +
			"Zürich,Gesamt,S,40\r\nZürich,männlich,S,30\r\nZürich,weiblich,U,10\r\n" +
			"Île-de-France,Gesamt,S,60\r\nÎle-de-France,männlich,S,25\r\nÎle-de-France,weiblich,S,35\r\n",
		"a.hst": "Île-de-France,männlich,u\r\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(prefix+enc(text)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runIn(t *testing.T, dir, arb string) (int, *Report, string) {
	t.Helper()
	lb := filepath.Join(dir, arb+".log")
	code, rep := Run(t.Context(), Config{BatchFile: filepath.Join(dir, arb), Logbook: lb, TempDir: dir,
		Protector: newFake(t, pairs{}), Log: zerolog.Nop(), Version: "test",
		Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }})
	b, _ := os.ReadFile(lb)
	return code, rep, string(b)
}

// TestLatin1AndBOMJobs runs the same jobs written in UTF-8, in UTF-8 with a
// byte order mark on every file, and in Latin-1 (Windows-1252). Before, a
// Latin-1 job failed at the plugin ("string field contains invalid UTF-8")
// and the byte order mark broke the batch file, the metadata and the
// microdata. Now all three run, the UTF-8 outputs are equal, and the Latin-1
// outputs are the same text with the Latin-1 bytes of the input.
func TestLatin1AndBOMJobs(t *testing.T) {
	outputs := map[string][]string{"micro.arb": {"micro2.csv", "micro3.txt"}, "tab.arb": {"tab2.csv"}}
	got := map[string]map[string][]byte{}
	for _, v := range []struct {
		name   string
		enc    func(string) string
		prefix string
	}{
		{"utf8", func(s string) string { return s }, ""},
		{"bom", func(s string) string { return s }, "\xef\xbb\xbf"},
		{"latin1", charset.Encode, ""},
	} {
		dir := t.TempDir()
		encodingJob(t, dir, v.enc, v.prefix)
		got[v.name] = map[string][]byte{}
		for arb, outs := range outputs {
			code, rep, lb := runIn(t, dir, arb)
			if code != ExitOK {
				t.Fatalf("%s %s: exit %d, errors %q\nlogbook:\n%s", v.name, arb, code, rep.Errors, lb)
			}
			for _, o := range outs {
				b, err := os.ReadFile(filepath.Join(dir, o))
				if err != nil {
					t.Fatal(err)
				}
				got[v.name][o] = b
			}
		}
	}
	for name, want := range got["utf8"] {
		if !bytes.Contains(want, []byte("Zürich")) || !bytes.Contains(want, []byte("Île-de-France")) {
			t.Errorf("%s lacks the codes:\n%s", name, want)
		}
		if !bytes.Equal(got["bom"][name], want) {
			t.Errorf("%s with byte order marks:\n%s\nwant\n%s", name, got["bom"][name], want)
		}
		// Code widths count bytes, as in τ-Argus, so the Latin-1 codes are
		// padded with one blank less: compare without blanks, in any order,
		// and check the bytes of the codes themselves.
		l1 := got["latin1"][name]
		if norm(charset.Decode(string(l1))) != norm(string(want)) {
			t.Errorf("%s in Latin-1:\n%s\nwant the text of\n%s", name, charset.Decode(string(l1)), want)
		}
		for _, code := range []string{"\xcele-de-France\"", "Z\xfcrich\""} {
			if !bytes.Contains(l1, []byte(code)) {
				t.Errorf("%s in Latin-1 lacks %q:\n%q", name, code, l1)
			}
		}
		if bytes.Contains(l1, []byte("\xc3")) {
			t.Errorf("%s in Latin-1 has UTF-8 bytes:\n%q", name, l1)
		}
	}
}

// norm returns the lines of an output without blanks, sorted.
func norm(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, " ", ""), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
