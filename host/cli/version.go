package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Build stamps, set by the release scripts (scripts/cross/build.sh) with
// -ldflags "-X github.com/sdcengine/argus/host/cli.NAME=VALUE".
var (
	// Commit is the source commit; when empty, the one the Go toolchain
	// recorded (a build inside a git checkout) is used.
	Commit string
	// HiGHSVersion is the HiGHS version the method plugins of the same
	// build link; each plugin refuses to solve with another library.
	HiGHSVersion string
)

// printVersion writes what "argus version" prints: the host's version, the
// commit, the Go toolchain and platform, and the HiGHS of the plugins.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "argus %s\n", Version)
	commit, modified := Commit, false
	if info, ok := debug.ReadBuildInfo(); ok && commit == "" {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	switch {
	case commit == "":
		fmt.Fprintln(w, "commit not recorded in this build (scripts/cross/build.sh records it)")
	case modified:
		fmt.Fprintf(w, "commit %s with uncommitted changes\n", commit)
	default:
		fmt.Fprintf(w, "commit %s\n", commit)
	}
	fmt.Fprintf(w, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if HiGHSVersion != "" {
		fmt.Fprintf(w, "HiGHS %s (linked into the method plugins)\n", HiGHSVersion)
	} else {
		fmt.Fprintln(w, "HiGHS version not stamped in this build (scripts/cross/build.sh stamps it)")
	}
}
