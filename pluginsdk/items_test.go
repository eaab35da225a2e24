package pluginsdk

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunItemsHere: without an item runner, the items run here on at most
// the given threads, and the results come back in payload order; an
// item's error fails the call.
func TestRunItemsHere(t *testing.T) {
	payloads := [][]byte{[]byte("a"), []byte("bb"), []byte("ccc"), []byte("dddd"), []byte("eeeee")}
	for _, threads := range []int{1, 2, 3} {
		var mu sync.Mutex
		running, most := 0, 0
		out, err := RunItems(t.Context(), "upper", payloads, threads, func(_ context.Context, p []byte) ([]byte, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return bytes.ToUpper(p), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range payloads {
			if string(out[i]) != strings.ToUpper(string(p)) {
				t.Errorf("%d threads: result %d is %q", threads, i, out[i])
			}
		}
		if most != threads {
			t.Errorf("%d threads: %d items at once", threads, most)
		}
	}
	_, err := RunItems(t.Context(), "fail", payloads, 2, func(_ context.Context, p []byte) ([]byte, error) {
		if len(p) == 3 {
			return nil, errors.New("no c")
		}
		return p, nil
	})
	if err == nil || !strings.Contains(err.Error(), "work item fail 2: no c") {
		t.Errorf("error %v, want item 2's", err)
	}
}

// countingRunner stands for the host's work queue.
type countingRunner struct {
	calls int
	short bool
}

func (c *countingRunner) RunItems(_ context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	c.calls++
	out := make([][]byte, len(payloads))
	for i, p := range payloads {
		out[i] = append([]byte(kind+":"), p...)
	}
	if c.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

// TestRunItemsRunner: with an item runner in the context the items go to
// it and the local function is never called; a runner that loses a
// result is an error.
func TestRunItemsRunner(t *testing.T) {
	r := &countingRunner{}
	ctx := WithItemRunner(t.Context(), r)
	out, err := RunItems(ctx, "k", [][]byte{[]byte("x"), []byte("y")}, 2, func(context.Context, []byte) ([]byte, error) {
		t.Error("the local function ran")
		return nil, nil
	})
	if err != nil || r.calls != 1 || string(out[0]) != "k:x" || string(out[1]) != "k:y" {
		t.Errorf("results %q, %v after %d calls", out, err, r.calls)
	}
	if _, err := RunItems(WithItemRunner(t.Context(), &countingRunner{short: true}), "k", [][]byte{[]byte("x"), []byte("y")}, 1, nil); err == nil {
		t.Error("a runner that lost a result was taken at its word")
	}
}

// TestItemMode: `plugin --item KIND` runs the registered item function
// on stdin and writes its result on stdout (exit 0); an item function's
// error exits 1 with the error on stderr, an unknown kind 2.
func TestItemMode(t *testing.T) {
	p := Plugin{Name: "t", Items: map[string]ItemFunc{
		"upper": func(_ context.Context, b []byte) ([]byte, error) { return bytes.ToUpper(b), nil },
		"fail":  func(context.Context, []byte) ([]byte, error) { return nil, errors.New("bad payload") },
	}}
	for _, tc := range []struct {
		kind, in, out, errOut string
		code                  int
	}{
		{"upper", "abc", "ABC", "", 0},
		{"fail", "abc", "", "item fail: bad payload", 1},
		{"other", "abc", "", `no work items of kind "other"`, 2},
	} {
		var out, errOut bytes.Buffer
		code := runItem(t.Context(), p, tc.kind, strings.NewReader(tc.in), &out, &errOut)
		if code != tc.code || out.String() != tc.out || !strings.Contains(errOut.String(), tc.errOut) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.kind, code, out.String(), errOut.String())
		}
	}
}

// servingRunner is a host's item service that names the kinds it serves.
type servingRunner struct{ countingRunner }

func (servingRunner) Serves(kind string) bool { return kind == "mine" }

// TestItemsElsewhere: items leave the process only with an item runner in
// the context (a host of contract 1.3, or one without a work queue, has
// none), and with a runner that names its kinds only for those.
func TestItemsElsewhere(t *testing.T) {
	if ItemsElsewhere(t.Context(), "mine") {
		t.Error("items elsewhere without an item runner")
	}
	if !ItemsElsewhere(WithItemRunner(t.Context(), &countingRunner{}), "mine") {
		t.Error("items not elsewhere with a runner of every kind")
	}
	ctx := WithItemRunner(t.Context(), &servingRunner{})
	if !ItemsElsewhere(ctx, "mine") || ItemsElsewhere(ctx, "other") {
		t.Error("a runner's kinds not respected")
	}
	h := &hostItems{kinds: map[string]ItemFunc{"mine": nil}}
	if !h.Serves("mine") || h.Serves("other") {
		t.Error("the host's item service serves other kinds than the plugin's")
	}
}
