package batch

import (
	"strings"
	"testing"
)

// TestNoDoubledPrefix: an error that already names the batch line (the
// order check's) was prefixed a second time: "job.arb:1: job.arb:1:1: ...".
func TestNoDoubledPrefix(t *testing.T) {
	_, code, rep, lb := runJob(t, "<READMICRODATA>\r\n", newFake(t, pairs{}))
	if code != ExitError || len(rep.Errors) != 1 {
		t.Fatalf("exit %d, errors %q", code, rep.Errors)
	}
	msg := rep.Errors[0]
	if strings.Count(msg, "job.arb:1") != 1 || !strings.Contains(msg, "is not allowed in this position") {
		t.Errorf("error %q: want the batch line named once", msg)
	}
	if strings.Count(lb, "job.arb:1") > 1 {
		t.Errorf("logbook names the line twice:\n%s", lb)
	}
}

// TestLongBatchLineCut: a 10 MB batch line was echoed whole into the
// logbook (twice: the echo and the error) and the run report.
func TestLongBatchLineCut(t *testing.T) {
	long := "<OPENMICRODATA> \"" + strings.Repeat("x", 10<<20) + ".asc\"\r\n"
	_, code, rep, lb := runJob(t, long, newFake(t, pairs{}))
	if code != ExitError {
		t.Fatalf("exit %d", code)
	}
	if len(lb) > 64<<10 || !strings.Contains(lb, "more bytes]") {
		t.Errorf("logbook of %d bytes, want the line cut with a marker", len(lb))
	}
	size := len(rep.Steps[0].Command)
	for _, e := range rep.Errors {
		size += len(e)
	}
	if size > 64<<10 {
		t.Errorf("report holds %d bytes of the line", size)
	}
}
