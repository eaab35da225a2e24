//go:build linux

package catalog

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity returns the file's device, inode and change time.
func fileIdentity(st os.FileInfo) string {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d:%d.%d", s.Dev, s.Ino, s.Ctim.Sec, s.Ctim.Nsec)
	}
	return ""
}
