package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/argusio/charset"
)

// latin1Job is a tabular job with French and German names and codes, in the
// shape sdcTable writes (hierarchy file, status column).
var latin1Job = map[string]string{
	"job.arb": "<LOGBOOK> \"log.txt\"\r\n<OPENTABLEDATA> \"t.tab\"\r\n<OPENMETADATA> \"m.rda\"\r\n" +
		"<SPECIFYTABLE> \"région\"\"Geschlecht\"|\"freq\"|\"\"|\"\"\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n" +
		"<SUPPRESS> GH(1,100,1,1)\r\n<WRITETABLE> (1, 3, AS+FL+, \"out.txt\")\r\n<WRITETABLE> (1, 2, AS+, \"out.csv\")\r\n",
	"m.rda": "<SEPARATOR> \",\"\r\n<SAFE> \"S\"\r\n<UNSAFE> \"U\"\r\n<PROTECT> \"Z\"\r\nrégion\r\n   <RECODEABLE>\r\n" +
		"   <TOTCODE> \"Total\"\r\n   <HIERCODELIST> \"reg.hrc\"\r\n   <HIERLEADSTRING> \"@\"\r\n   <HIERARCHICAL>\r\n" +
		"Geschlecht\r\n   <RECODEABLE>\r\n   <TOTCODE> \"Total\"\r\nsdcStatus\r\n   <STATUS>\r\nfreq\r\n   <NUMERIC>\r\n",
	"t.tab": "Total,Total,S,100\r\nTotal,Männer,S,55\r\nTotal,Mädels,S,45\r\n" +
		"Île-de-France,Total,S,20\r\nÎle-de-France,Männer,S,18\r\nÎle-de-France,Mädels,U,2\r\n" +
		"Zürich,Total,S,33\r\nZürich,Männer,S,14\r\nZürich,Mädels,S,19\r\n" +
		"Bâle,Total,S,47\r\nBâle,Männer,S,23\r\nBâle,Mädels,S,24\r\n",
	"reg.hrc": "Île-de-France\r\nZürich\r\nBâle\r\n",
}

// TestLatin1JobRealPlugin runs latin1Job, written in Latin-1, through the
// real hypercube and audit plugins. Before, the plugin call failed with
// "string field contains invalid UTF-8" (exit 2, no output). Now the outputs
// are those of the same job written in UTF-8, with the Latin-1 bytes of the
// input for every name and code, and so is the logbook's echo. (Both
// codes of Geschlecht have one non-ASCII letter, so that code widths, which
// count bytes as in τ-Argus, are the same in both encodings.)
func TestLatin1JobRealPlugin(t *testing.T) {
	plugins := realPlugins(t)
	out := map[string]map[string][]byte{}
	for _, enc := range []string{"utf8", "latin1"} {
		dir := t.TempDir()
		for name, text := range latin1Job {
			if enc == "latin1" {
				text = charset.Encode(text)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(dir)
		code, _, stderr := run(t, plugins, filepath.Join(dir, "job.arb"), "-", "-", dir)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", enc, code, stderr)
		}
		out[enc] = map[string][]byte{}
		for _, f := range []string{"out.txt", "out.csv", "log.txt"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			out[enc][f] = b
		}
	}
	for _, f := range []string{"out.txt", "out.csv"} {
		u, l := out["utf8"][f], out["latin1"][f]
		if !bytes.Contains(u, []byte("\"Île-de-France\",\"Mädels\",2,")) {
			t.Errorf("%s (UTF-8) lacks the primary:\n%s", f, u)
		}
		if want := charset.Encode(string(u)); string(l) != want {
			t.Errorf("%s in Latin-1 = %q\nwant %q", f, l, want)
		}
	}
	if lb := out["latin1"]["log.txt"]; !bytes.Contains(lb, []byte("\"r\xe9gion\"\"Geschlecht\"")) {
		t.Errorf("logbook does not echo the Latin-1 batch line:\n%q", lb)
	}
}
