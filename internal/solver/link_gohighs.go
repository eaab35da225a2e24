//go:build (linux || darwin) && (amd64 || arm64)

package solver

// On linux and darwin the HiGHS library is the static libhighs.a (HiGHS
// 1.13.1) that gohighs ships: importing its package adds the archive and
// the C++ runtime to the link (its #cgo LDFLAGS). Nothing of its Go API is
// used; highs_c.go binds the C API itself.
import _ "github.com/bartolsthoorn/gohighs/highs"
