package runner

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	goplugin "github.com/hashicorp/go-plugin/runner"

	"github.com/sdcengine/argus/argusio/pidalive"
	"github.com/sdcengine/argus/host/proctree"
)

// process is go-plugin's view of a plugin process: our exec.Cmd in a
// process tree, whose Kill ends the whole tree and whose output pipes can be
// closed by us, so that a process holding them cannot block go-plugin's
// wait for the plugin.
type process struct {
	cmd            *exec.Cmd
	tree           *proctree.Tree
	stdout, stderr io.ReadCloser
	closeOnce      sync.Once
}

var _ goplugin.Runner = (*process)(nil)

func newProcess(cmd *exec.Cmd, tree *proctree.Tree) (*process, error) {
	p := &process{cmd: cmd, tree: tree}
	var err error
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if p.stderr, err = cmd.StderrPipe(); err != nil {
		return nil, err
	}
	return p, nil
}

// Start starts the process.
func (p *process) Start(context.Context) error {
	return p.tree.Start(p.cmd)
}

// Wait waits for the process to end.
func (p *process) Wait(context.Context) error {
	err := p.cmd.Wait()
	p.tree.Done()
	return err
}

// Kill kills the process and every process it started.
func (p *process) Kill(context.Context) error {
	p.tree.Kill()
	return nil
}

// closePipes closes our ends of the output pipes, ending go-plugin's
// readers even if a process we could not kill still holds the other ends.
func (p *process) closePipes() {
	p.closeOnce.Do(func() {
		p.stdout.Close()
		p.stderr.Close()
	})
}

func (p *process) Stdout() io.ReadCloser { return p.stdout }
func (p *process) Stderr() io.ReadCloser { return p.stderr }
func (p *process) Name() string          { return p.cmd.Path }

// ID returns the process id.
func (p *process) ID() string {
	if p.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(p.cmd.Process.Pid)
}

// Diagnose says nothing more than the plugin's stderr, which is logged.
func (p *process) Diagnose(context.Context) string { return "" }

// PluginToHost passes addresses through: the plugin runs on this machine.
func (p *process) PluginToHost(n, a string) (string, string, error) { return n, a, nil }

// HostToPlugin passes addresses through.
func (p *process) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

// socketPrefix starts the name of every socket directory; the host's pid
// follows, so that a later run can remove the directories of a killed one.
const socketPrefix = "argus-sock-"

// maxSocketBase is the longest base directory for sockets: go-plugin adds
// about 60 bytes and socket paths are limited to about 104.
const maxSocketBase = 40

// socketBase returns where socket directories go: dir if given and short
// enough, else the system's temporary directory (/tmp on Unix).
func socketBase(dir string) string {
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil && len(abs) <= maxSocketBase {
			return abs
		}
	}
	if runtime.GOOS != "windows" {
		return "/tmp"
	}
	return os.TempDir()
}

// makeSocketDir makes a private directory for a plugin's socket in base,
// after removing the directories left in base by hosts that have died.
func makeSocketDir(base string) (string, error) {
	sweepSocketDirs(base)
	return os.MkdirTemp(base, socketPrefix+strconv.Itoa(os.Getpid())+"-")
}

// sweepSocketDirs removes the socket directories in base whose host process
// has died (a host killed with SIGKILL cannot remove its own).
func sweepSocketDirs(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), socketPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || pidalive.Alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(base, e.Name()))
	}
}

// waitDone waits for ch to close, at most d.
func waitDone(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}
