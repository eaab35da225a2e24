//go:build windows

package proctree

import (
	"os"
	"os/exec"
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysTree holds the tree's Job Object (0 when it could not be made).
type sysTree struct {
	job windows.Handle
}

func setProcAttr(*exec.Cmd) {}

func subreaper() error { return nil }

func hostID() string { return strconv.Itoa(os.Getpid()) + ".0" }

// attach puts the started root in a new Job Object that kills its processes
// when its last handle is closed. Called with t.mu held, right after the
// start. On failure the tree falls back to killing the root only.
func (t *Tree) attach() {
	job, err := newKillOnCloseJob()
	if err != nil {
		return
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(t.pid))
	if err != nil {
		windows.CloseHandle(job)
		return
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(job)
		return
	}
	t.sys.job = job
}

// newKillOnCloseJob makes an unnamed Job Object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// detach closes the job, which ends any process of the tree still running.
// Called with t.mu held.
func (t *Tree) detach() {
	if t.sys.job != 0 {
		windows.CloseHandle(t.sys.job)
		t.sys.job = 0
	}
}

// killExitCode is the exit status of every process ended by Kill: the one
// TerminateProcess gives, as os.Process.Kill does.
const killExitCode = 1

func (t *Tree) kill() {
	if t.sys.job != 0 {
		_ = windows.TerminateJobObject(t.sys.job, killExitCode)
	}
	if t.pid > 0 {
		if p, err := os.FindProcess(t.pid); err == nil {
			_ = p.Kill()
		}
	}
}

// SweepStale does nothing on this system: a host's jobs end with it.
func SweepStale() int { return 0 }
