package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakePlugin writes a shell script that describes itself like a plugin
// serving the given method codes.
func fakePlugin(t *testing.T, dir, name string, codes ...string) string {
	t.Helper()
	var methods []string
	for _, c := range codes {
		methods = append(methods, fmt.Sprintf(`{"Code":%q,"Capabilities":{"Output":1},"Structures":[5]}`, c))
	}
	script := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = describe ] || exit 1\necho '{\"Name\":%q,\"Version\":\"1.0\",\"Methods\":[%s]}'\n",
		name, strings.Join(methods, ","))
	path := filepath.Join(dir, FilePrefix+name)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script plugins")
	}
	a, b := t.TempDir(), t.TempDir()
	fakePlugin(t, a, "hyper", "GH")
	fakePlugin(t, a, "modular", "MOD")
	fakePlugin(t, b, "hyper", "GHX") // hidden by a's hyper
	fakePlugin(t, b, "net", "NET")
	os.WriteFile(filepath.Join(b, FilePrefix+"notexec"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(b, "other-binary"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	cat, err := Load(t.Context(), Config{Dirs: []string{a, filepath.Join(a, "missing"), b}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cat.Codes(), ","); got != "GH,MOD,NET" {
		t.Errorf("codes %s, want GH,MOD,NET", got)
	}
	e, m, ok := cat.Lookup("gh")
	if !ok || e.Name() != "hyper" || m.Code != "GH" || filepath.Dir(e.Path) != a {
		t.Errorf("Lookup(gh) = %v %v %v", e, m, ok)
	}
	if _, _, ok := cat.Lookup("OPT"); ok {
		t.Error("Lookup(OPT) found a method nobody serves")
	}
}

// TestLoadProblems: a broken or refused plugin, and a method code served
// twice, are listed as problems and cost only their own method codes; the
// other plugins serve theirs.
func TestLoadProblems(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script plugins")
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) Config
		want  string
		codes string // codes still served
	}{
		{"duplicate code", func(t *testing.T, dir string) Config {
			fakePlugin(t, dir, "one", "GH", "MOD")
			fakePlugin(t, dir, "two", "GH")
			return Config{Dirs: []string{dir}}
		}, "method code GH is served by two plugins", "MOD"},
		{"pin mismatch", func(t *testing.T, dir string) Config {
			fakePlugin(t, dir, "one", "GH")
			return Config{Dirs: []string{dir}, Pins: map[string]string{FilePrefix + "one": strings.Repeat("ab", 32)}}
		}, "does not match the pinned", ""},
		{"broken describe", func(t *testing.T, dir string) Config {
			os.WriteFile(filepath.Join(dir, FilePrefix+"bad"), []byte("#!/bin/sh\necho nonsense\n"), 0o755)
			fakePlugin(t, dir, "good", "OPT")
			return Config{Dirs: []string{dir}}
		}, "no valid description", "OPT"},
		{"failing describe", func(t *testing.T, dir string) Config {
			os.WriteFile(filepath.Join(dir, FilePrefix+"bad"), []byte("#!/bin/sh\necho oops >&2\nexit 3\n"), 0o755)
			fakePlugin(t, dir, "good", "OPT")
			return Config{Dirs: []string{dir}}
		}, "oops", "OPT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.setup(t, t.TempDir())
			cat, err := Load(t.Context(), cfg)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var probs []string
			for _, p := range cat.Problems {
				probs = append(probs, p.String())
			}
			if !strings.Contains(strings.Join(probs, "\n"), tc.want) {
				t.Errorf("problems %q lack %q", probs, tc.want)
			}
			if got := strings.Join(cat.Codes(), ","); got != tc.codes {
				t.Errorf("codes served %q, want %q", got, tc.codes)
			}
			if cat.Unavailable("GH") == "" {
				t.Error("Unavailable(GH) gives no reason")
			}
		})
	}
}

// TestPinsAllowlist: once any plugin is pinned, an unpinned plugin is
// refused without being run.
func TestPinsAllowlist(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script plugins")
	}
	dir := t.TempDir()
	good := fakePlugin(t, dir, "good", "GH")
	ran := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(dir, FilePrefix+"evil")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+ran+"\necho '{\"Name\":\"evil\",\"Version\":\"1\",\"Methods\":[{\"Code\":\"EVIL\",\"Capabilities\":{\"Output\":1},\"Structures\":[5]}]}'\n"), 0o755)
	sum, err := Checksum(good)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Load(t.Context(), Config{Dirs: []string{dir}, Pins: map[string]string{filepath.Base(good): sum}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cat.Codes(), ","); got != "GH" {
		t.Errorf("codes %q, want GH only", got)
	}
	if len(cat.Problems) != 1 || cat.Problems[0].Path != evil || !strings.Contains(cat.Problems[0].String(), "not pinned") {
		t.Errorf("problems %v, want the unpinned plugin refused", cat.Problems)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the unpinned plugin was run")
	}
}

// TestDescribeLimits: a binary that hangs, or leaves a process holding its
// output or in a session of its own, costs at most the describe time limit
// plus a little, and leaves no process behind.
func TestDescribeLimits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process sweep on Linux")
	}
	desc := `{"Name":"x","Version":"1","Methods":[{"Code":"X","Capabilities":{"Output":1},"Structures":[5]}]}`
	for _, tc := range []struct{ name, script string }{
		{"hang", "trap '' TERM INT\necho $$ >> PIDS\nwhile :; do sleep 1; done\n"},
		{"child holding stdout", "sleep 3600 &\necho $! >> PIDS\necho '" + desc + "'\n"},
		{"setsid child", "setsid sleep 3600 </dev/null >/dev/null 2>&1 &\nsleep 0.2\npgrep -n -f 'sleep 3600' >> PIDS\necho '" + desc + "'\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			path := filepath.Join(dir, FilePrefix+"x")
			os.WriteFile(path, []byte("#!/bin/sh\n"+strings.ReplaceAll(tc.script, "PIDS", pids)), 0o755)
			done := make(chan error, 1)
			go func() { _, err := Describe(t.Context(), path, 2*time.Second); done <- err }()
			b, _ := os.ReadFile(pids)
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				b, _ = os.ReadFile(pids)
				for _, f := range strings.Fields(string(b)) {
					pid, _ := strconv.Atoi(f)
					syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Fatal("Describe did not return 18 s after its 2 s limit")
			}
			b, _ = os.ReadFile(pids)
			fields := strings.Fields(string(b))
			if len(fields) == 0 {
				t.Fatal("no pid written")
			}
			for _, f := range fields {
				pid, _ := strconv.Atoi(f)
				deadline := time.Now().Add(3 * time.Second)
				for running(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if running(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d survived the description", pid)
				}
			}
		})
	}
}

// running reports whether pid runs (a zombie does not).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// TestDescribeCache: with a cache, an unchanged binary is not run again;
// a changed one is.
func TestDescribeCache(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script plugins")
	}
	dir, cache := t.TempDir(), t.TempDir()
	count := filepath.Join(t.TempDir(), "count")
	script := func(code string) string {
		return "#!/bin/sh\necho x >> " + count + "\necho '{\"Name\":\"c\",\"Version\":\"1\",\"Methods\":[{\"Code\":\"" + code + "\",\"Capabilities\":{\"Output\":1},\"Structures\":[5]}]}'\n"
	}
	path := filepath.Join(dir, FilePrefix+"c")
	os.WriteFile(path, []byte(script("AA")), 0o755)
	runs := func() int { b, _ := os.ReadFile(count); return strings.Count(string(b), "x") }
	for i := range 2 {
		cat, err := Load(t.Context(), Config{Dirs: []string{dir}, CacheDir: cache})
		if err != nil || strings.Join(cat.Codes(), ",") != "AA" {
			t.Fatalf("load %d: %v %v", i, cat.Codes(), err)
		}
	}
	if runs() != 1 {
		t.Errorf("binary described %d times in two loads, want once", runs())
	}
	os.WriteFile(path, []byte(script("BB")), 0o755)
	cat, err := Load(t.Context(), Config{Dirs: []string{dir}, CacheDir: cache})
	if err != nil || strings.Join(cat.Codes(), ",") != "BB" || runs() != 2 {
		t.Errorf("after a change: codes %v, %d runs, %v", cat.Codes(), runs(), err)
	}
}

func TestPinMatch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell-script plugins")
	}
	dir := t.TempDir()
	path := fakePlugin(t, dir, "one", "GH")
	sum, err := Checksum(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Load(t.Context(), Config{Dirs: []string{dir}, Pins: map[string]string{filepath.Base(path): strings.ToUpper(sum)}})
	if err != nil {
		t.Fatal(err)
	}
	if cat.Entries[0].SHA256 != sum {
		t.Errorf("entry checksum %q, want %q", cat.Entries[0].SHA256, sum)
	}
}

func TestReadConfig(t *testing.T) {
	sum := strings.Repeat("0f", 32)
	cfg, err := ReadConfig(strings.NewReader("# plugins\n\ndir /opt/argus/plugins\ndir local\nsha256 "+sum+" argus-method-gh\n"), "/etc/argus/plugins.conf")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Dirs) != 2 || cfg.Dirs[0] != "/opt/argus/plugins" || cfg.Dirs[1] != filepath.Join("/etc/argus", "local") || cfg.Pins["argus-method-gh"] != sum {
		t.Errorf("ReadConfig = %+v", cfg)
	}
	cfg, err = ReadConfig(strings.NewReader("param GH repair=false\nparam mod audit = true\nparam GH criterion=levels\nparam OPT gap=0.01 \n"), "p.conf")
	want := map[string]map[string]string{"GH": {"repair": "false", "criterion": "levels"}, "MOD": {"audit": "true"}, "OPT": {"gap": "0.01"}}
	if err != nil || !reflect.DeepEqual(cfg.Params, want) {
		t.Errorf("ReadConfig params = %v, %v; want %v", cfg.Params, err, want)
	}
	for _, bad := range []string{"dirr x\n", "sha256 xyz argus-method-gh\n", "sha256 " + sum + "\n", "param GH repair\n", "param GH =1\n"} {
		if _, err := ReadConfig(strings.NewReader(bad), "p.conf"); err == nil || !strings.Contains(err.Error(), "p.conf:1") {
			t.Errorf("ReadConfig(%q) = %v, want an error at p.conf:1", bad, err)
		}
	}
}

func TestDefaultDirs(t *testing.T) {
	env := map[string]string{EnvPath: "/a" + string(os.PathListSeparator) + "/b"}
	got := DefaultDirs([]string{"/cfg"}, func(k string) string { return env[k] }, "/usr/local/bin/argus")
	want := []string{"/cfg", "/a", "/b", "/usr/local/bin/plugins"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("DefaultDirs = %v, want %v", got, want)
	}
}

func TestParseParam(t *testing.T) {
	for _, tc := range []struct {
		in, method, name, value string
		ok                      bool
	}{
		{"GH.repair=false", "GH", "repair", "false", true},
		{"mod.audit = true", "MOD", "audit", "true", true},
		{"OPT.max_time=2m30s", "OPT", "max_time", "2m30s", true},
		{"GH.distance_weights=1,2;3", "GH", "distance_weights", "1,2;3", true},
		{"GH.x=", "GH", "x", "", true},
		{"GHrepair=false", "", "", "", false},
		{".repair=1", "", "", "", false},
		{"GH.=1", "", "", "", false},
		{"GH.repair", "", "", "", false},
	} {
		m, n, v, err := ParseParam(tc.in)
		if (err == nil) != tc.ok || m != tc.method || n != tc.name || v != tc.value {
			t.Errorf("ParseParam(%q) = %q, %q, %q, %v", tc.in, m, n, v, err)
		}
	}
}

func FuzzReadConfig(f *testing.F) {
	for _, s := range []string{"dir x\nsha256 " + strings.Repeat("ab", 32) + " argus-method-x\n", "param GH repair=false\n", "# c\n\nparam mod a = b c\n", "param\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := ReadConfig(strings.NewReader(s), "f.conf")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.conf") {
				t.Errorf("error without the file name: %v", err)
			}
			return
		}
		for m, ps := range cfg.Params {
			if m == "" || m != strings.ToUpper(m) {
				t.Errorf("method code %q", m)
			}
			for n := range ps {
				if n == "" {
					t.Error("empty parameter name")
				}
			}
		}
	})
}
