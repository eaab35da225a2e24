package solver

// This file is the only place that calls the HiGHS C API directly. gohighs
// v1.0.1 covers model building, options, Run, solutions and info values, but
// it does not expose callbacks (so no interrupt), row-bound or coefficient
// changes, the run time, the precise model status (it maps "Interrupt" and "SolutionLimit"
// to "Unknown"), basis input, or bulk changes by index set. The functions
// below fill those gaps.
//
// Linking: the prototypes are declared here rather than taken from a header,
// because gohighs keeps its headers under its own internal/ directory. The
// symbols come from the static libhighs.a that gohighs links into every binary
// importing it (its #cgo LDFLAGS). cgo's "dynimport" pre-link of this package
// cannot see that archive; since Go 1.19 a failed pre-link only marks the
// package as requiring external linking, which a C++ static library forces
// anyway, and the final link resolves the symbols.
//
// ABI: the prebuilt libhighs.a of gohighs v1.0.1 (HiGHS 1.13.1) is built
// without HIGHSINT64, so HighsInt is a C int; newSolver checks this at run time
// with Highs_getSizeofHighsInt.

/*
#include <stdint.h>
#include <stdlib.h>

typedef int argus_hint; // HighsInt in a build without HIGHSINT64

// HiGHS callback signature: (type, message, const HighsCallbackDataOut*,
// HighsCallbackDataIn*, user data). Only the first field of HighsCallbackDataIn
// is used here; HiGHS documents that its first two fields (user_interrupt,
// user_solution) keep their position.
typedef struct { int user_interrupt; } argus_cb_in;
typedef void (*argus_cb_fn)(int, const char*, const void*, argus_cb_in*, void*);

extern argus_hint Highs_getSizeofHighsInt(const void* highs);
extern argus_hint Highs_getModelStatus(const void* highs);
extern argus_hint Highs_setCallback(void* highs, argus_cb_fn cb, void* data);
extern argus_hint Highs_startCallback(void* highs, const argus_hint type);
extern argus_hint Highs_changeRowBounds(void* highs, const argus_hint row, const double lower, const double upper);
extern argus_hint Highs_changeCoeff(void* highs, const argus_hint row, const argus_hint col, const double value);
extern argus_hint Highs_changeColsCostBySet(void* highs, const argus_hint n, const argus_hint* set, const double* cost);
extern argus_hint Highs_changeColsBoundsBySet(void* highs, const argus_hint n, const argus_hint* set, const double* lower, const double* upper);
extern argus_hint Highs_addCols(void* highs, const argus_hint num_new_col, const double* costs, const double* lower, const double* upper, const argus_hint num_new_nz, const argus_hint* starts, const argus_hint* index, const double* value);
extern argus_hint Highs_deleteRowsBySet(void* highs, const argus_hint n, const argus_hint* set);
extern argus_hint Highs_getBasis(const void* highs, argus_hint* col_status, argus_hint* row_status);
extern argus_hint Highs_setBasis(void* highs, const argus_hint* col_status, const argus_hint* row_status);
extern argus_hint Highs_setLogicalBasis(void* highs);
extern argus_hint Highs_setSolution(void* highs, const double* col_value, const double* row_value, const double* col_dual, const double* row_dual);
extern argus_hint Highs_getBoolOptionValue(const void* highs, const char* option, argus_hint* value);
extern double Highs_getRunTime(const void* highs);

// Callback types of HiGHS 1.13 that honour user_interrupt.
enum {
	argus_cb_simplex_interrupt = 1,
	argus_cb_ipm_interrupt = 2,
	argus_cb_mip_interrupt = 6,
};

// argus_interrupt_cb is called by HiGHS from the solving thread. The user data
// is a C int owned by the Go Solver; Go sets it to 1 when the context is done.
// The answer is written on every call, because HiGHS does not reset
// user_interrupt between runs: a stale 1 would stop the next solve at once.
static void argus_interrupt_cb(int type, const char* msg, const void* out, argus_cb_in* in, void* data) {
	(void)type; (void)msg; (void)out;
	if (in == NULL || data == NULL) return;
	in->user_interrupt = __atomic_load_n((int*)data, __ATOMIC_RELAXED) != 0;
}

// argus_install_interrupt registers argus_interrupt_cb on every interrupt
// point. It returns the first failing HiGHS status, or 0.
static argus_hint argus_install_interrupt(void* highs, int* flag) {
	argus_hint st = Highs_setCallback(highs, argus_interrupt_cb, flag);
	if (st < 0) return st;
	st = Highs_startCallback(highs, argus_cb_simplex_interrupt);
	if (st < 0) return st;
	st = Highs_startCallback(highs, argus_cb_ipm_interrupt);
	if (st < 0) return st;
	return Highs_startCallback(highs, argus_cb_mip_interrupt);
}

static int* argus_new_flag(void) { return (int*)calloc(1, sizeof(int)); }

#include <stdio.h>
static void argus_flush_stdout(void) { fflush(stdout); }
*/
import "C"

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/bartolsthoorn/gohighs/highs"
)

// HiGHS status codes returned by every C API call (kHighsStatus*).
const (
	cStatusError = -1
)

// Raw HiGHS model status codes (kHighsModelStatus* in highs_c_api.h).
const (
	rawNotSet                = 0
	rawLoadError             = 1
	rawModelError            = 2
	rawPresolveError         = 3
	rawSolveError            = 4
	rawPostsolveError        = 5
	rawModelEmpty            = 6
	rawOptimal               = 7
	rawInfeasible            = 8
	rawUnboundedOrInfeasible = 9
	rawUnbounded             = 10
	rawObjectiveBound        = 11
	rawObjectiveTarget       = 12
	rawTimeLimit             = 13
	rawIterationLimit        = 14
	rawUnknown               = 15
	rawSolutionLimit         = 16
	rawInterrupt             = 17
)

// rawHandle extracts the native Highs pointer from a gohighs Solver. gohighs
// keeps it in its only, unexported field; the layout is checked with reflect
// before reading so that a binding upgrade that changes the struct fails with
// an error instead of corrupting memory.
func rawHandle(h *highs.Solver) (unsafe.Pointer, error) {
	t := reflect.TypeOf(*h)
	if t.Kind() != reflect.Struct || t.NumField() != 1 ||
		t.Field(0).Type != reflect.TypeOf(unsafe.Pointer(nil)) {
		return nil, fmt.Errorf("solver: unsupported gohighs Solver layout %v (expected a single unsafe.Pointer field)", t)
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(h))
	if p == nil {
		return nil, fmt.Errorf("solver: gohighs Solver has no native instance")
	}
	return p, nil
}

// checkABI verifies that the native instance uses the HighsInt width this
// file was written for, and that p really is the instance behind h (the
// output_flag option, already switched off through gohighs, must read back
// false through the raw pointer).
func checkABI(p unsafe.Pointer) error {
	if n := C.Highs_getSizeofHighsInt(p); int(n) != int(unsafe.Sizeof(C.int(0))) {
		return fmt.Errorf("solver: HiGHS library uses %d-byte HighsInt, expected %d", int(n), int(unsafe.Sizeof(C.int(0))))
	}
	name := C.CString("output_flag")
	defer C.free(unsafe.Pointer(name))
	var v C.argus_hint = 1
	if st := C.Highs_getBoolOptionValue(p, name, &v); st == cStatusError {
		return fmt.Errorf("solver: reading output_flag through the native handle failed")
	}
	if v != 0 {
		return fmt.Errorf("solver: native handle does not match the gohighs instance (output_flag reads true)")
	}
	return nil
}

// interruptFlag is a C-allocated int shared with argus_interrupt_cb. It lives
// in C memory because HiGHS keeps the pointer between calls, which cgo forbids
// for Go memory.
type interruptFlag struct{ p *C.int }

func newInterruptFlag() (interruptFlag, error) {
	p := C.argus_new_flag()
	if p == nil {
		return interruptFlag{}, fmt.Errorf("solver: allocating the interrupt flag failed")
	}
	return interruptFlag{p: p}, nil
}

func (f interruptFlag) set(v bool) {
	var x int32
	if v {
		x = 1
	}
	atomic.StoreInt32((*int32)(unsafe.Pointer(f.p)), x)
}

func (f interruptFlag) free() {
	if f.p != nil {
		C.free(unsafe.Pointer(f.p))
	}
}

func installInterrupt(p unsafe.Pointer, f interruptFlag) error {
	if st := C.argus_install_interrupt(p, f.p); st == cStatusError {
		return fmt.Errorf("solver: installing the HiGHS interrupt callback failed")
	}
	return nil
}

// flushCStdout flushes the C library's stdout buffer, so that a test
// capturing file descriptor 1 also sees output HiGHS might have buffered.
func flushCStdout() { C.argus_flush_stdout() }

// runTime is the time in seconds the instance has spent in all its runs:
// HiGHS compares its time_limit option with it, not with the current run.
func runTime(p unsafe.Pointer) float64 {
	return float64(C.Highs_getRunTime(p))
}

func rawModelStatus(p unsafe.Pointer) int {
	return int(C.Highs_getModelStatus(p))
}

func cInts(v []int) []C.argus_hint {
	out := make([]C.argus_hint, len(v))
	for i, x := range v {
		out[i] = C.argus_hint(x)
	}
	return out
}

func firstInt(v []C.argus_hint) *C.argus_hint {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

func firstFloat(v []float64) *C.double {
	if len(v) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&v[0]))
}

func callStatus(op string, st C.argus_hint) error {
	if st == cStatusError {
		return fmt.Errorf("solver: HiGHS %s failed", op)
	}
	return nil
}

func changeRowBounds(p unsafe.Pointer, row int, lo, up float64) error {
	return callStatus("changeRowBounds", C.Highs_changeRowBounds(p, C.argus_hint(row), C.double(lo), C.double(up)))
}

func changeCoeff(p unsafe.Pointer, row, col int, v float64) error {
	return callStatus("changeCoeff", C.Highs_changeCoeff(p, C.argus_hint(row), C.argus_hint(col), C.double(v)))
}

func changeColsCost(p unsafe.Pointer, idx []int, cost []float64) error {
	if len(idx) == 0 {
		return nil
	}
	ci := cInts(idx)
	return callStatus("changeColsCostBySet", C.Highs_changeColsCostBySet(p, C.argus_hint(len(idx)), firstInt(ci), firstFloat(cost)))
}

func changeColsBounds(p unsafe.Pointer, idx []int, lo, up []float64) error {
	if len(idx) == 0 {
		return nil
	}
	ci := cInts(idx)
	return callStatus("changeColsBoundsBySet", C.Highs_changeColsBoundsBySet(p, C.argus_hint(len(idx)), firstInt(ci), firstFloat(lo), firstFloat(up)))
}

// addCols appends columns with costs and bounds and no matrix entries.
func addCols(p unsafe.Pointer, cost, lo, up []float64) error {
	if len(cost) == 0 {
		return nil
	}
	return callStatus("addCols", C.Highs_addCols(p, C.argus_hint(len(cost)), firstFloat(cost), firstFloat(lo), firstFloat(up), 0, nil, nil, nil))
}

func deleteRows(p unsafe.Pointer, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	ci := cInts(idx)
	return callStatus("deleteRowsBySet", C.Highs_deleteRowsBySet(p, C.argus_hint(len(idx)), firstInt(ci)))
}

// getBasis returns raw basis statuses, or ok=false when HiGHS has no valid basis.
func getBasis(p unsafe.Pointer, ncol, nrow int) (col, row []int, ok bool) {
	cc := make([]C.argus_hint, ncol)
	rr := make([]C.argus_hint, nrow)
	if ncol+nrow == 0 {
		return nil, nil, false
	}
	// HiGHS writes nothing through a nil pointer for an empty dimension.
	if C.Highs_getBasis(p, firstInt(cc), firstInt(rr)) == cStatusError {
		return nil, nil, false
	}
	col = make([]int, ncol)
	for i, v := range cc {
		col[i] = int(v)
	}
	row = make([]int, nrow)
	for i, v := range rr {
		row[i] = int(v)
	}
	return col, row, true
}

func setBasis(p unsafe.Pointer, col, row []int) error {
	cc, rr := cInts(col), cInts(row)
	return callStatus("setBasis", C.Highs_setBasis(p, firstInt(cc), firstInt(rr)))
}

// setSolution passes column values as a starting point (for a MIP: a
// candidate incumbent HiGHS checks and keeps when feasible).
func setSolution(p unsafe.Pointer, col []float64) error {
	return callStatus("setSolution", C.Highs_setSolution(p, firstFloat(col), nil, nil, nil))
}

func setLogicalBasis(p unsafe.Pointer) error {
	return callStatus("setLogicalBasis", C.Highs_setLogicalBasis(p))
}
