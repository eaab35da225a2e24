package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// capped is the pairs method with other capabilities; it records whether
// the problem it received carried frequencies.
type capped struct {
	pairs
	caps    pluginsdk.Capabilities
	gotFreq *bool
}

func (c capped) Info() pluginsdk.MethodInfo {
	info := c.pairs.Info()
	info.Capabilities = c.caps
	return info
}

func (c capped) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	*c.gotFreq = len(req.Problem.Cells.Freq) > 0 || len(req.Problem.Cells.HoldingFreq) > 0
	return c.pairs.Protect(ctx, req)
}

// TestMaxDimensions: a table with more dimensions than the method protects
// is refused before any data is sent, with the .arb line and the table.
func TestMaxDimensions(t *testing.T) {
	needCorpus(t)
	for _, tc := range []struct {
		max  int
		code int
	}{{1, ExitError}, {2, ExitOK}, {0, ExitOK}} {
		var sent bool
		m := capped{caps: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression, MaxDimensions: tc.max}, gotFreq: &sent}
		_, code, rep, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), newFake(t, m))
		if code != tc.code {
			t.Errorf("max %d: exit %d, want %d\n%s", tc.max, code, tc.code, lb)
		}
		if tc.code == ExitOK {
			continue
		}
		want := "method PAIRS protects tables of at most 1 dimensions; table 1 (Size x Region | Var2) has 2"
		if len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "job.arb:6: "+want) || !strings.Contains(lb, want) {
			t.Errorf("max %d: errors %q, logbook:\n%s", tc.max, rep.Errors, lb)
		}
	}
}

// TestFrequenciesOnlyWhenNeeded: the host sends the frequencies only to a
// method that declares NeedsFrequency; the outputs do not depend on it.
func TestFrequenciesOnlyWhenNeeded(t *testing.T) {
	needCorpus(t)
	var outputs []string
	for _, needs := range []bool{false, true} {
		var got bool
		m := capped{caps: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression, NeedsFrequency: needs}, gotFreq: &got}
		dir, code, _, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), newFake(t, m))
		if code != ExitOK {
			t.Fatalf("needs %v: exit %d\n%s", needs, code, lb)
		}
		if got != needs {
			t.Errorf("NeedsFrequency %v: the method received frequencies: %v", needs, got)
		}
		outputs = append(outputs, readFile(t, dir, "out3.txt")+readFile(t, dir, "out5.tab"))
	}
	if outputs[0] != outputs[1] {
		t.Error("the outputs depend on whether the method received the frequencies")
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unsafing is a protector whose method returns its first primary made
// safe, as a plugin not built with the SDK could.
type unsafing struct{ *fakeProtector }

func (u unsafing) Protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	res, err := u.fakeProtector.Protect(ctx, job)
	if err != nil || job.Method == AuditMethod {
		return res, err
	}
	for i, s := range res.Status {
		if s.IsPrimary() {
			res.Status[i] = cellstatus.Safe
			break
		}
	}
	return res, nil
}

// TestInvalidResultRefused: the host checks every result against its
// problem; a primary a method made safe ends the job instead of being
// published unprotected.
func TestInvalidResultRefused(t *testing.T) {
	needCorpus(t)
	_, code, rep, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), unsafing{newFake(t, pairs{})})
	want := "method PAIRS returned an invalid result: cell "
	if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], want) {
		t.Errorf("exit %d, errors %q, want %q\n%s", code, rep.Errors, want, lb)
	}
}
