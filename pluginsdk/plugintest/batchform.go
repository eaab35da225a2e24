package plugintest

import (
	"errors"
	"maps"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// BatchCase is one τ-Argus batch line's arguments after the table number,
// METHOD(t, Args...), and what the method's ParamSpecs must make of them:
// the named parameters Want, or the error message Msg (τ-Argus's words).
// Linked tells that t is 0 (linked tables).
type BatchCase struct {
	Args   []string
	Linked bool
	Want   map[string]string
	Msg    string
}

// CheckBatchForms checks that info's parameters read every case's batch
// arguments as the case says ([pluginclient.BatchParams]), that every refusal
// is a *poserr.Error naming the argument (Index), and that info passes
// [pluginclient.LintInfo].
func CheckBatchForms(t testing.TB, info pluginsdk.MethodInfo, cases []BatchCase) {
	t.Helper()
	for _, tc := range cases {
		args := make([]pluginclient.BatchArg, len(tc.Args))
		for i, a := range tc.Args {
			args[i].Text = a
		}
		got, err := pluginclient.BatchParams(info, args, tc.Linked)
		switch {
		case tc.Msg == "" && (err != nil || !maps.Equal(got, tc.Want)):
			t.Errorf("%s%q (linked %v): got %v, %v; want %v", info.Code, tc.Args, tc.Linked, got, err, tc.Want)
		case tc.Msg != "" && (err == nil || err.Error() != tc.Msg):
			t.Errorf("%s%q (linked %v): got %v, %v; want the error %q", info.Code, tc.Args, tc.Linked, got, err, tc.Msg)
		case tc.Msg != "":
			if be, ok := errors.AsType[*poserr.Error](err); !ok || be.Index < 1 || be.Index > len(tc.Args) {
				t.Errorf("%s%q: error %T %+v, want a *poserr.Error naming an argument", info.Code, tc.Args, err, be)
			}
		}
	}
	if errs := pluginclient.LintInfo(info); len(errs) > 0 {
		t.Error(errs)
	}
}
