//go:build unix

package pluginsdk

import (
	"golang.org/x/sys/unix"
	"os"

	"github.com/rs/zerolog"
)

// isolateStdout keeps file descriptor 1 free of stray output. go-plugin
// announces itself on stdout, and anything else written there first (a
// solver's banner from C code, say) breaks the handshake. The handshake keeps
// a private duplicate of the real stdout in os.Stdout, and descriptor 1 is
// pointed at stderr, where the host logs stray lines at debug level.
func isolateStdout(log zerolog.Logger) {
	fd, err := unix.Dup(1)
	if err != nil {
		log.Warn().Err(err).Msg("cannot isolate stdout")
		return
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		log.Warn().Err(err).Msg("cannot isolate stdout")
		return
	}
	os.Stdout = os.NewFile(uintptr(fd), "/dev/stdout")
}
