package batch

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestReportJSONLatin1 writes a report quoting a Latin-1 name: encoding/json
// used to write U+FFFD for its bytes.
func TestReportJSONLatin1(t *testing.T) {
	r := &Report{BatchFile: "job.arb", Started: time.Unix(1, 0).UTC(),
		Steps:  []*StepReport{{Line: 4, Command: "<SPECIFYTABLE> \"r\xe9gion\"|\"freq\"", Method: &MethodReport{Params: map[string]string{"k\xe9": "Z\xfcrich"}}}},
		Errors: []string{"Z\xc3\xbcrich"}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Steps[0].Command; got != `<SPECIFYTABLE> "région"|"freq"` {
		t.Errorf("command %q", got)
	}
	if got := back.Steps[0].Method.Params["ké"]; got != "Zürich" {
		t.Errorf("params %q", back.Steps[0].Method.Params)
	}
	if back.Errors[0] != "Zürich" || !back.Started.Equal(r.Started) {
		t.Errorf("errors %q started %v", back.Errors, back.Started)
	}
	if r.Steps[0].Command != "<SPECIFYTABLE> \"r\xe9gion\"|\"freq\"" {
		t.Error("the report itself was changed")
	}
}
