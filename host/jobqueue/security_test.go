//go:build unix

package jobqueue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/internal/fakeargus"
	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/runall"
)

// inProcessWorker runs a worker in the test process until the test ends.
func inProcessWorker(t *testing.T, q *Queue) {
	t.Helper()
	exe, _ := os.Executable()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = q.Work(ctx, WorkerOptions{Delivery: Delivery{Name: "inproc", AckWait: ackWait, Log: zerolog.Nop()}, Dir: t.TempDir(),
			Exec: runall.Exec{Argus: exe, Env: []string{fakeargus.Env + "=1"}, KillAfter: time.Second}})
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// TestTLSAndPassword: a server with TLS and user/password refuses a
// client without the password or without the CA, and runs a job for one
// with both.
func TestTLSAndPassword(t *testing.T) {
	tlsCfg, caFile := natstest.TLS(t)
	ts := natstest.Start(t, func(o *server.Options) {
		o.TLS, o.TLSConfig, o.TLSTimeout = true, tlsCfg, 5
		o.Username, o.Password = "argus", "s3cret"
	})
	for name, opts := range map[string][]nats.Option{
		"no password":  {nats.RootCAs(caFile)},
		"bad password": {nats.RootCAs(caFile), nats.UserInfo("argus", "wrong")},
		"no CA":        {nats.UserInfo("argus", "s3cret")},
	} {
		if q, err := Connect(t.Context(), ts.URL(), opts...); err == nil {
			q.Close()
			t.Errorf("%s: connected", name)
		}
	}
	q, err := Connect(t.Context(), ts.URL(), nats.RootCAs(caFile), nats.UserInfo("argus", "s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if !strings.HasPrefix(q.NC.ConnectedUrl(), "tls://") {
		t.Errorf("connected to %s", q.NC.ConnectedUrl())
	}
	submit(t, q, "secure", makeJobs(t, 1, "", nil))
	inProcessWorker(t, q)
	if st := waitRun(t, q, "secure", 1); st[0].Status != runall.StatusSucceeded {
		t.Errorf("%+v", st[0])
	}
	if strings.Contains(redact("tls://argus:s3cret@host:4222"), "s3cret") {
		t.Error("password in a message")
	}
}

// TestNkey: a server that knows a user's public nkey admits the holder of
// its seed and no one else.
func TestNkey(t *testing.T) {
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	seedFile := filepath.Join(t.TempDir(), "argus.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	ts := natstest.Start(t, func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: pub}} })
	if q, err := Connect(t.Context(), ts.URL()); err == nil {
		q.Close()
		t.Error("connected without the nkey")
	}
	opt, err := nats.NkeyOptionFromSeed(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Connect(t.Context(), ts.URL(), opt)
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
}

// TestOutsideJobDirectory: submit refuses a batch file that writes
// outside its directory; a worker refuses such a job (a message published
// around submit), and inputs named outside the job directory, before
// anything runs; the queue goes on.
func TestOutsideJobDirectory(t *testing.T) {
	ts := natstest.Start(t, nil)
	q := connect(t, ts.URL())
	count := filepath.Join(t.TempDir(), "count")
	jobs := makeJobs(t, 1, "// count "+count, map[string]string{
		"escape": "// count " + count + "\n<WRITETABLE> (1, 1, , \"../escape.csv\")"})
	var escape runall.Job
	for _, s := range q.Submit(t.Context(), "outside", jobs, time.Time{}) {
		if strings.HasPrefix(s.Job.ID, "escape-") {
			escape = s.Job
			if s.Err == nil || !strings.Contains(s.Err.Error(), "outside the job directory") {
				t.Errorf("submit of the escaping job: %v", s.Err)
			}
		} else if s.Err != nil {
			t.Fatal(s.Err)
		}
	}
	// Around submit: the batch file uploaded and queued by hand, and a
	// message whose inputs climb out.
	f, err := os.Open(escape.BatchFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Obj.Put(t.Context(), jetstream.ObjectMeta{Name: inName("outside", escape.ID, "escape.arb")}, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, m := range []Message{
		{Run: "outside", Job: escape.ID, Batch: "escape.arb", BatchSHA256: "x"},
		{Run: "outside", Job: "climb", Batch: "escape.arb", Inputs: []string{"../../etc/passwd"}, BatchSHA256: "y"},
	} {
		data, _ := json.Marshal(m)
		if _, err := q.JS.Publish(t.Context(), Subject, data); err != nil {
			t.Fatal(err)
		}
	}
	inProcessWorker(t, q)
	states := waitRun(t, q, "outside", 3)
	for _, st := range states {
		switch {
		case st.Job == escape.ID || st.Job == "climb":
			if st.Status != runall.StatusFailed || !strings.Contains(st.Result.Error, "outside the job directory") {
				t.Errorf("%s: %s %q", st.Job, st.Status, st.Result.Error)
			}
		case st.Status != runall.StatusSucceeded:
			t.Errorf("%s: %s", st.Job, st.Status)
		}
	}
	if r := runs(t, count); len(r) != 1 {
		t.Errorf("jobs run: %v (the refused ones must not run)", r)
	}
}

// TestJobFiles: the inputs a batch file and its metadata name, and the
// names that are refused.
func TestJobFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.rda"), []byte("<SEPARATOR> \",\"\nregion\n  <RECODEABLE>\n  <TOTCODE> \"Total\"\n"+
		"  <HIERARCHICAL>\n  <HIERCODELIST> \"C:\\Users\\x\\region.hrc\"\n  <HIERLEADSTRING> \"@\"\nval\n  <NUMERIC>\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "region.hrc"), []byte("A\n@A1\n"), 0o644)
	for _, c := range []struct {
		name, text string
		inputs     string // joined by space; "" with err
		err        string
	}{
		{"ok", "<OPENTABLEDATA> \"t.tab\"\n<OPENMETADATA> \"m.rda\"\n<WRITETABLE> (1, 1, , \"out/t.csv\")\n", "t.tab m.rda region.hrc", ""},
		{"absolute", "<OPENMICRODATA> \"/etc/passwd\"\n", "", "\"/etc/passwd\" is outside"},
		{"parent", "<OPENTABLEDATA> \"t.tab\"\n<WRITETABLE> (1, 1, , \"../t.csv\")\n", "", "\"../t.csv\" is outside"},
		{"drive", "<OPENTABLEDATA> \"U:\\data\\t.tab\"\n", "", "is outside"},
		{"logbook", "<LOGBOOK> \"/tmp/log.txt\"\n", "", "is outside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".arb")
			os.WriteFile(p, []byte(c.text), 0o644)
			inputs, err := JobFiles(p)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(inputs, " "); got != c.inputs {
				t.Errorf("inputs %q, want %q", got, c.inputs)
			}
		})
	}
}

// TestScheduledSubmit: jobs submitted with a start time are held by the
// server (JetStream message schedules) and taken only from then on.
func TestScheduledSubmit(t *testing.T) {
	ts := natstest.Start(t, nil)
	q := connect(t, ts.URL())
	if !q.Schedules {
		t.Fatal("the embedded server has no message schedules")
	}
	inProcessWorker(t, q)
	at := time.Now().Add(3 * time.Second)
	for _, s := range q.Submit(t.Context(), "later", makeJobs(t, 2, "", nil), at) {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
	}
	states := waitRun(t, q, "later", 2)
	for _, st := range states {
		if st.Status != runall.StatusSucceeded {
			t.Errorf("%s: %s", st.Job, st.Status)
		}
		hist, err := q.KV.History(t.Context(), key("later", st.Job))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range hist {
			var h State
			if json.Unmarshal(e.Value(), &h) == nil && h.Status == StateRunning && h.Updated.Before(at.Truncate(time.Second)) {
				t.Errorf("%s started at %s, before %s", st.Job, h.Updated, at)
			}
		}
	}
}

// TestClientCertificate: a server that verifies clients admits the holder
// of a certificate signed by its CA and no one else.
func TestClientCertificate(t *testing.T) {
	tlsCfg, caFile, certFile, keyFile := natstest.MutualTLS(t)
	ts := natstest.Start(t, func(o *server.Options) { o.TLS, o.TLSConfig, o.TLSVerify, o.TLSTimeout = true, tlsCfg, true, 5 })
	if q, err := Connect(t.Context(), ts.URL(), nats.RootCAs(caFile)); err == nil {
		q.Close()
		t.Error("connected without a client certificate")
	}
	q, err := Connect(t.Context(), ts.URL(), nats.RootCAs(caFile), nats.ClientCert(certFile, keyFile))
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
}
