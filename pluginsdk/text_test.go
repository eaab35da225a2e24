package pluginsdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// TestLatin1TextsCrossTheWire sends a problem whose names and codes are
// Windows-1252 bytes (a Latin-1 τ-Argus job): protobuf strings must be UTF-8,
// so the call used to fail with "string field contains invalid UTF-8". The
// plugin sees the texts as UTF-8, and a code it quotes in a diagnostic comes
// back as the job's bytes.
func TestLatin1TextsCrossTheWire(t *testing.T) {
	var seen []string
	client := serve(t, fake{protect: func(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
		d := req.Problem.Tables[0].Dims[0]
		seen = append([]string{req.Problem.Response, d.Name}, d.Codes...)
		req.Progress(pluginsdk.Progress{Phase: "r\u00e9gion", Fraction: 0.5})
		return &pluginsdk.Result{Status: req.Problem.Cells.Status, Diagnostics: []pluginsdk.Diagnostic{{
			Severity: pluginsdk.SeverityInfo, Code: "echo", Summary: "code " + d.Codes[1] + " ≥ 1"}}}, nil
	}})
	codes := []string{"Total", "Z\xfcrich", "\xcele-de-France", "Z\xc3\xbcrich"} // the last is UTF-8 bytes in a Latin-1 job
	p := &pluginsdk.Problem{
		Response: "Umsatz \x80",
		Tables: []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{{Name: "r\xe9gion", Codes: codes,
			Parent: []int32{-1, 0, 0, 0}, Depth: []int32{0, 1, 1, 1}, Trivial: make([]bool, 4)}}}},
		Cells: pluginsdk.Cells{Value: []float64{3, 1, 1, 1}, Status: make([]cellstatus.Status, 4),
			Coords: []int32{0, 1, 2, 3}},
	}
	for i := range p.Cells.Status {
		p.Cells.Status[i] = cellstatus.Safe
	}
	var phases []string
	res, err := client.Protect(t.Context(), pluginclient.Job{Method: "FAKE", Problem: p,
		OnProgress: func(pr pluginsdk.Progress) { phases = append(phases, pr.Phase) }})
	if err != nil {
		t.Fatal(err)
	}
	want := "Umsatz €|région|Total|Zürich|Île-de-France|ZÃ¼rich"
	if got := strings.Join(seen, "|"); got != want {
		t.Errorf("plugin saw %q, want %q", got, want)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Summary != "code Z\xfcrich ? 1" {
		t.Errorf("diagnostics %+v, want the code's Latin-1 bytes back", res.Diagnostics)
	}
	if strings.Join(phases, "") != "r\xe9gion" {
		t.Errorf("progress phases %q", phases)
	}
	if p.Tables[0].Dims[0].Codes[1] != "Z\xfcrich" || p.Response != "Umsatz \x80" {
		t.Error("the caller's problem was modified")
	}
}

// TestUTF8TextsUnchanged: a job whose texts are all UTF-8 crosses unchanged.
func TestUTF8TextsUnchanged(t *testing.T) {
	var seen string
	client := serve(t, fake{protect: func(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
		seen = req.Problem.Response
		return &pluginsdk.Result{Status: req.Problem.Cells.Status, Diagnostics: []pluginsdk.Diagnostic{{
			Severity: pluginsdk.SeverityInfo, Code: "echo", Summary: "≥ " + seen}}}, nil
	}})
	p := oneCell(cellstatus.Safe)
	p.Response = "Zürich"
	res, err := client.Protect(t.Context(), pluginclient.Job{Method: "FAKE", Problem: p})
	if err != nil {
		t.Fatal(err)
	}
	if seen != "Zürich" || res.Diagnostics[0].Summary != "≥ Zürich" {
		t.Errorf("saw %q, diagnostic %q", seen, res.Diagnostics[0].Summary)
	}
}
