package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/jobqueue"
)

// TestItemsNATS: a MOD job run with --items-nats sends its sub-tables,
// and the host's audit after it its components, as work items through an
// embedded NATS server to two item workers, which run them with the
// modular and audit plugin binaries in --item mode; the protected table
// is byte for byte the one of the run in one process. A job of a plugin
// that serves no work items (the SDK's example) runs unchanged on the same
// host, its audit's items aside; so does the MOD job without the option (a
// host that serves no item service, as one of contract 1.3).
func TestItemsNATS(t *testing.T) {
	plugins := buildPlugins(t)
	dir := t.TempDir()
	gen := func(name, shape, method string) {
		t.Helper()
		if code, out, errOut := run(t, "", "generate", "-shape", shape, "-seed", "1", "-primary", "frac:0.05", "-values", "micro",
			"-job", filepath.Join(dir, "job", name), "-method", method); code != ExitOK {
			t.Fatalf("generate %s: exit %d\n%s%s", name, code, out, errOut)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "job"), 0o755); err != nil {
		t.Fatal(err)
	}
	gen("t", "t3.4xt3.4xt2.3", "MOD(1,5,1,1,1)")
	gen("r", "6x5", "RECT(1)")
	// runJob runs a job in a fresh copy and returns its protected table.
	runJob := func(copyName, job string, opts ...string) string {
		t.Helper()
		cp := filepath.Join(dir, copyName)
		if err := os.CopyFS(cp, os.DirFS(filepath.Join(dir, "job"))); err != nil {
			t.Fatal(err)
		}
		args := append([]string{filepath.Join(cp, job+".arb"), filepath.Join(cp, "log.txt")}, opts...)
		if code, out, errOut := run(t, plugins, args...); code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", copyName, code, out, errOut)
		}
		b, err := os.ReadFile(filepath.Join(cp, job+"-protected.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	single := runJob("single", "t")
	// RECT, a heuristic of the SDK's example, leaves a primary of this
	// table under-protected: its outputs are written all the same.
	rect := runJob("rect-single", "r", "--publish-unsafe")

	ts := natstest.Start(t, nil)
	q, err := jobqueue.Connect(t.Context(), ts.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	env := Env{Getenv: func(k string) string { return map[string]string{"ARGUS_PLUGIN_PATH": plugins}[k] },
		Executable: filepath.Join(t.TempDir(), "argus")}
	cat, err := loadCatalog(t.Context(), env, false)
	if err != nil {
		t.Fatal(err)
	}
	var items, auditItems atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, name := range []string{"w1", "w2"} {
		wg.Go(func() {
			_ = q.WorkItems(ctx, jobqueue.ItemWorkerOptions{Delivery: jobqueue.Delivery{Name: name, Log: zerolog.Nop()}, Plugin: itemPlugins(cat),
				Exec: func(ctx context.Context, path, kind string, payload []byte) ([]byte, error) {
					if strings.HasPrefix(kind, "audit.") {
						auditItems.Add(1) // the host's audit after the method
					} else {
						items.Add(1)
					}
					return jobqueue.ExecItem(ctx, path, kind, payload)
				}})
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for range 200 { // until the workers' consumer exists
		if _, err := q.JS.Consumer(t.Context(), jobqueue.ItemStreamName, jobqueue.ItemConsumerName); err == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	url := "--items-nats=" + ts.URL()
	if got := runJob("queue", "t", url); got != single {
		t.Errorf("the table protected through the queue differs from the one protected in one process")
	}
	n, na := items.Load(), auditItems.Load()
	if n == 0 || na == 0 {
		t.Fatalf("%d of MOD's work items and %d of the audit's went through the queue", n, na)
	}
	if got := runJob("rect-queue", "r", url, "--publish-unsafe"); got != rect {
		t.Errorf("RECT's table differs through a host with a queue")
	}
	if items.Load() != n {
		t.Errorf("RECT's job sent %d work items", items.Load()-n)
	}
	if !strings.Contains(single, ",") {
		t.Errorf("protected table:\n%s", single)
	}
	if auditItems.Load() == na {
		t.Errorf("the audit after RECT sent no work items")
	}
	t.Logf("%d sub-tables and %d audit items through the queue", n, na)
}
