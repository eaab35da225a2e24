//go:build windows

package solver

// On windows the HiGHS library is a static libhighs.a built from source by
// scripts/cross/highs.sh with MinGW-w64 (posix threads). Its directory comes
// from the build's CGO_LDFLAGS (-L DIR); the C++ runtime and winpthreads are
// linked statically (-extldflags=-static in the build script), so the
// executables need no MinGW DLL.

// #cgo windows LDFLAGS: -lhighs -lstdc++ -lpthread
import "C"
