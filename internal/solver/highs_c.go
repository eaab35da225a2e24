package solver

// This file is the only place that calls HiGHS: a thin binding of its C API
// (model passing, options, runs, solutions, info values, interrupt
// callbacks, row-bound and coefficient changes, basis input, bulk changes by
// index set, rows of the basis inverse and of the simplex tableau), the
// same on every platform.
//
// Linking: the prototypes are declared here rather than taken from a header,
// so that no HiGHS header is needed at build time. The symbols come from a
// static libhighs.a: on linux and darwin (amd64, arm64) the one that gohighs
// ships and links into every binary importing it (link_gohighs.go; its
// #cgo LDFLAGS), on windows one built from source by scripts/cross/highs.sh
// and found through CGO_LDFLAGS (link_windows.go). cgo's "dynimport"
// pre-link of this package cannot see that archive; since Go 1.19 a failed
// pre-link only marks the package as requiring external linking, which a
// C++ static library forces anyway, and the final link resolves the symbols.
//
// ABI: both libraries are built without HIGHSINT64, so HighsInt is a C int;
// newNative checks this at run time with Highs_getSizeofHighsInt, and the
// library's version with Highs_versionMajor/Minor (see checkVersion).

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

extern void* Highs_create(void);
extern void Highs_destroy(void* highs);
extern const char* Highs_version(void);
extern argus_hint Highs_versionMajor(void);
extern argus_hint Highs_versionMinor(void);
extern argus_hint Highs_versionPatch(void);
extern argus_hint Highs_getSizeofHighsInt(const void* highs);
extern argus_hint Highs_passModel(void* highs, const argus_hint num_col, const argus_hint num_row, const argus_hint num_nz, const argus_hint q_num_nz, const argus_hint a_format, const argus_hint q_format, const argus_hint sense, const double offset, const double* col_cost, const double* col_lower, const double* col_upper, const double* row_lower, const double* row_upper, const argus_hint* a_start, const argus_hint* a_index, const double* a_value, const argus_hint* q_start, const argus_hint* q_index, const double* q_value, const argus_hint* integrality);
extern argus_hint Highs_changeObjectiveSense(void* highs, const argus_hint sense);
extern argus_hint Highs_changeObjectiveOffset(void* highs, const double offset);
extern argus_hint Highs_changeColIntegrality(void* highs, const argus_hint col, const argus_hint integrality);
extern argus_hint Highs_addRow(void* highs, const double lower, const double upper, const argus_hint num_new_nz, const argus_hint* index, const double* value);
extern argus_hint Highs_addRows(void* highs, const argus_hint num_new_row, const double* lower, const double* upper, const argus_hint num_new_nz, const argus_hint* starts, const argus_hint* index, const double* value);
extern argus_hint Highs_clearSolver(void* highs);
extern argus_hint Highs_run(void* highs);
extern argus_hint Highs_getNumCol(const void* highs);
extern argus_hint Highs_getNumRow(const void* highs);
extern argus_hint Highs_getSolution(const void* highs, double* col_value, double* col_dual, double* row_value, double* row_dual);
extern double Highs_getObjectiveValue(const void* highs);
extern argus_hint Highs_getIntInfoValue(const void* highs, const char* info, argus_hint* value);
extern argus_hint Highs_getInt64InfoValue(const void* highs, const char* info, int64_t* value);
extern argus_hint Highs_getDoubleInfoValue(const void* highs, const char* info, double* value);
extern argus_hint Highs_setBoolOptionValue(void* highs, const char* option, const argus_hint value);
extern argus_hint Highs_setIntOptionValue(void* highs, const char* option, const argus_hint value);
extern argus_hint Highs_setDoubleOptionValue(void* highs, const char* option, const double value);
extern argus_hint Highs_setStringOptionValue(void* highs, const char* option, const char* value);
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
extern argus_hint Highs_getBasicVariables(const void* highs, argus_hint* basic_variables);
extern argus_hint Highs_getBasisInverseRow(const void* highs, const argus_hint row, double* row_vector, argus_hint* row_num_nz, argus_hint* row_index);
extern argus_hint Highs_getReducedRow(const void* highs, const argus_hint row, double* row_vector, argus_hint* row_num_nz, argus_hint* row_index);

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
	"sync/atomic"
	"unsafe"
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

// HiGHS constants of the C API (highs_c_api.h), stable since 1.7.
const (
	cObjSenseMinimize  = 1
	cObjSenseMaximize  = -1
	cMatrixRowwise     = 2 // kHighsMatrixFormatRowwise
	cHessianTriangular = 1 // kHighsHessianFormatTriangular
	cVarTypeContinuous = 0
	cVarTypeInteger    = 1
	minVersionMajor    = 1
	minVersionMinor    = 10 // oldest HiGHS this binding is tested with
	cHighsIntBytes     = int(unsafe.Sizeof(C.int(0)))
)

// createHighs makes a HiGHS instance after checking the library's ABI and
// version, and switches its console output off before anything else.
func createHighs() (unsafe.Pointer, error) {
	if err := checkVersion(); err != nil {
		return nil, err
	}
	p := C.Highs_create()
	if p == nil {
		return nil, fmt.Errorf("solver: creating HiGHS instance failed")
	}
	if n := int(C.Highs_getSizeofHighsInt(p)); n != cHighsIntBytes {
		C.Highs_destroy(p)
		return nil, fmt.Errorf("solver: HiGHS library uses %d-byte HighsInt, expected %d", n, cHighsIntBytes)
	}
	if err := silence(p); err != nil {
		C.Highs_destroy(p)
		return nil, err
	}
	return p, nil
}

func destroyHighs(p unsafe.Pointer) {
	if p != nil {
		C.Highs_destroy(p)
	}
}

// Version returns the version of the linked HiGHS library ("1.13.1").
func Version() string {
	return fmt.Sprintf("%d.%d.%d", int(C.Highs_versionMajor()), int(C.Highs_versionMinor()), int(C.Highs_versionPatch()))
}

// wantVersion, when not empty, is the exact HiGHS version a release build
// was made for (set by the build scripts with -ldflags -X); checkVersion
// then refuses any other library, so that what "argus version" names is
// what the plugins run.
var wantVersion string

// checkVersion refuses a HiGHS older than the binding knows (its C API
// changed status codes and callbacks before 1.10) and, in a release build,
// any library other than the one it was built for.
func checkVersion() error {
	major, minor := int(C.Highs_versionMajor()), int(C.Highs_versionMinor())
	if major < minVersionMajor || (major == minVersionMajor && minor < minVersionMinor) {
		return fmt.Errorf("solver: HiGHS %s is too old (need %d.%d or later)", Version(), minVersionMajor, minVersionMinor)
	}
	if wantVersion != "" && Version() != wantVersion {
		return fmt.Errorf("solver: HiGHS library is %s, this build was made for %s", Version(), wantVersion)
	}
	return nil
}

// silence switches every HiGHS console output off. It is applied first, on
// a fresh instance, before any other call that could log, and read back.
func silence(p unsafe.Pointer) error {
	if err := setBoolOption(p, "output_flag", false); err != nil {
		return fmt.Errorf("solver: disabling HiGHS output: %w", err)
	}
	if err := setBoolOption(p, "log_to_console", false); err != nil {
		return fmt.Errorf("solver: disabling HiGHS console log: %w", err)
	}
	name := C.CString("output_flag")
	defer C.free(unsafe.Pointer(name))
	var v C.argus_hint = 1
	if st := C.Highs_getBoolOptionValue(p, name, &v); st == cStatusError || v != 0 {
		return fmt.Errorf("solver: HiGHS output_flag does not read back false")
	}
	return nil
}

func setBoolOption(p unsafe.Pointer, name string, v bool) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var x C.argus_hint
	if v {
		x = 1
	}
	return callStatus("setBoolOptionValue("+name+")", C.Highs_setBoolOptionValue(p, cn, x))
}

func setIntOption(p unsafe.Pointer, name string, v int) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return callStatus("setIntOptionValue("+name+")", C.Highs_setIntOptionValue(p, cn, C.argus_hint(v)))
}

func setFloatOption(p unsafe.Pointer, name string, v float64) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	return callStatus("setDoubleOptionValue("+name+")", C.Highs_setDoubleOptionValue(p, cn, C.double(v)))
}

func setStringOption(p unsafe.Pointer, name, v string) error {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	cv := C.CString(v)
	defer C.free(unsafe.Pointer(cv))
	return callStatus("setStringOptionValue("+name+")", C.Highs_setStringOptionValue(p, cn, cv))
}

func intInfo(p unsafe.Pointer, name string) (int, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var v C.argus_hint
	if err := callStatus("getIntInfoValue("+name+")", C.Highs_getIntInfoValue(p, cn, &v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

func int64Info(p unsafe.Pointer, name string) (int64, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var v C.int64_t
	if err := callStatus("getInt64InfoValue("+name+")", C.Highs_getInt64InfoValue(p, cn, &v)); err != nil {
		return 0, err
	}
	return int64(v), nil
}

func floatInfo(p unsafe.Pointer, name string) (float64, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var v C.double
	if err := callStatus("getDoubleInfoValue("+name+")", C.Highs_getDoubleInfoValue(p, cn, &v)); err != nil {
		return 0, err
	}
	return float64(v), nil
}

// passModel loads a whole model, its matrix row-wise; integer lists the
// integer columns' flags (nil: all continuous).
func passModel(p unsafe.Pointer, m *Model, integer []bool) error {
	ncol, nrow := m.NumCols(), m.NumRows()
	sense := C.argus_hint(cObjSenseMinimize)
	if m.sense == Maximize {
		sense = cObjSenseMaximize
	}
	var integrality []C.argus_hint
	if integer != nil {
		integrality = make([]C.argus_hint, ncol)
		for j, isInt := range integer {
			if isInt {
				integrality[j] = cVarTypeInteger
			}
		}
	}
	start, index := cInts(m.rowStart[:nrow]), cInts(m.rowIndex)
	return callStatus("passModel", C.Highs_passModel(p,
		C.argus_hint(ncol), C.argus_hint(nrow), C.argus_hint(len(m.rowValue)), 0,
		cMatrixRowwise, cHessianTriangular, sense, C.double(m.offset),
		firstFloat(m.colCost), firstFloat(m.colLower), firstFloat(m.colUpper),
		firstFloat(m.rowLower), firstFloat(m.rowUpper),
		firstInt(start), firstInt(index), firstFloat(m.rowValue),
		nil, nil, nil, firstInt(integrality)))
}

func setSense(p unsafe.Pointer, maximize bool) error {
	sense := C.argus_hint(cObjSenseMinimize)
	if maximize {
		sense = cObjSenseMaximize
	}
	return callStatus("changeObjectiveSense", C.Highs_changeObjectiveSense(p, sense))
}

func setOffset(p unsafe.Pointer, offset float64) error {
	return callStatus("changeObjectiveOffset", C.Highs_changeObjectiveOffset(p, C.double(offset)))
}

func setColIntegrality(p unsafe.Pointer, col int, integer bool) error {
	t := C.argus_hint(cVarTypeContinuous)
	if integer {
		t = cVarTypeInteger
	}
	return callStatus("changeColIntegrality", C.Highs_changeColIntegrality(p, C.argus_hint(col), t))
}

func addRow(p unsafe.Pointer, lower, upper float64, index []int, value []float64) error {
	ci := cInts(index)
	return callStatus("addRow", C.Highs_addRow(p, C.double(lower), C.double(upper),
		C.argus_hint(len(index)), firstInt(ci), firstFloat(value)))
}

// addRows appends rows given row-wise: start[i] is the offset of row i's
// entries in index and value.
func addRows(p unsafe.Pointer, lower, upper []float64, start, index []int, value []float64) error {
	if len(lower) == 0 {
		return nil
	}
	cs, ci := cInts(start), cInts(index)
	return callStatus("addRows", C.Highs_addRows(p, C.argus_hint(len(lower)),
		firstFloat(lower), firstFloat(upper), C.argus_hint(len(value)),
		firstInt(cs), firstInt(ci), firstFloat(value)))
}

func clearSolver(p unsafe.Pointer) error {
	return callStatus("clearSolver", C.Highs_clearSolver(p))
}

// solution is what a run leaves: values and duals of every column and row
// (meaningful only as the info values say) and the objective.
type solution struct {
	colValues, colDuals, rowValues, rowDuals []float64
	objective                                float64
}

// run solves the instance's model. It fails only when HiGHS reports an
// error; domain outcomes are in the model status.
func run(p unsafe.Pointer) (*solution, error) {
	if err := callStatus("run", C.Highs_run(p)); err != nil {
		return nil, err
	}
	ncol, nrow := int(C.Highs_getNumCol(p)), int(C.Highs_getNumRow(p))
	sol := &solution{
		colValues: make([]float64, ncol), colDuals: make([]float64, ncol),
		rowValues: make([]float64, nrow), rowDuals: make([]float64, nrow),
	}
	C.Highs_getSolution(p, firstFloat(sol.colValues), firstFloat(sol.colDuals),
		firstFloat(sol.rowValues), firstFloat(sol.rowDuals))
	sol.objective = float64(C.Highs_getObjectiveValue(p))
	return sol, nil
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

// getBasicVariables returns the basic variable of every basis position in
// HiGHS's encoding (column j as j, the logical of row i as -(1+i)); false
// when HiGHS has no basis (it factorises a valid basis that has no
// factorisation yet).
func getBasicVariables(p unsafe.Pointer, nrow int) ([]int, bool) {
	if nrow == 0 {
		return nil, true
	}
	v := make([]C.argus_hint, nrow)
	if C.Highs_getBasicVariables(p, firstInt(v)) == cStatusError {
		return nil, false
	}
	out := make([]int, nrow)
	for i, x := range v {
		out[i] = int(x)
	}
	return out, true
}

// basisInverseRow writes row pos of the basis inverse (unscaled) into dst,
// len(dst) = number of rows. The nonzero count and index outputs are not
// asked for (nil): HiGHS then writes the dense row only.
func basisInverseRow(p unsafe.Pointer, pos int, dst []float64) error {
	return callStatus("getBasisInverseRow", C.Highs_getBasisInverseRow(p, C.argus_hint(pos), firstFloat(dst), nil, nil))
}

// reducedRow writes row pos of B⁻¹A (structural columns, unscaled) into
// dst, len(dst) = number of columns.
func reducedRow(p unsafe.Pointer, pos int, dst []float64) error {
	return callStatus("getReducedRow", C.Highs_getReducedRow(p, C.argus_hint(pos), firstFloat(dst), nil, nil))
}
