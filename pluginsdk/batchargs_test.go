package pluginsdk_test

import (
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// batchFake declares positional parameters of every batch syntax, one
// keyword-only parameter and, at positions 4 and 5, arguments τ-Argus does
// not read for linked tables.
var batchFake = fake{params: []pluginsdk.ParamSpec{
	{Name: "n", Type: pluginsdk.ParamInt, Help: "n", BatchPosition: 1,
		Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "count", Above: "0", InvalidMessage: "Illegal count: %s"}},
	{Name: "on", Type: pluginsdk.ParamBool, Help: "on", BatchPosition: 2,
		Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "switch"}},
	{Name: "x", Type: pluginsdk.ParamFloat, Help: "x", BatchPosition: 3,
		Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "factor"}},
	{Name: "s", Type: pluginsdk.ParamString, Help: "s", BatchPosition: 4,
		Batch: pluginsdk.BatchForm{Label: "name", NotLinked: true}},
	{Name: "y", Type: pluginsdk.ParamFloat, Help: "y", BatchPosition: 5,
		Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "margin", NotLinked: true, Above: "1", InvalidMessage: "margin %s not above 1 (%s)"}},
	{Name: "kw", Type: pluginsdk.ParamString, Help: "keyword only"},
}}

func TestBatchParams(t *testing.T) {
	unreadable := errors.New("unreadable")
	args := func(texts ...string) []pluginclient.BatchArg {
		out := make([]pluginclient.BatchArg, len(texts))
		for i, s := range texts {
			out[i] = pluginclient.BatchArg{Text: s}
			if s == "!" {
				out[i] = pluginclient.BatchArg{Err: unreadable}
			}
		}
		return out
	}
	tooMany := "too many arguments for FAKE: it takes at most 6 (t, count, switch, factor, name, margin)"
	tooManyLinked := "too many arguments for FAKE: it takes at most 4 (t, count, switch, factor (linked tables))"
	for _, tc := range []struct {
		name   string
		info   pluginsdk.MethodInfo
		args   []pluginclient.BatchArg
		linked bool
		want   map[string]string
		index  int // of the argument in error
		extra  bool
		msg    string
	}{
		{"none", batchFake.Info(), nil, false, map[string]string{}, 0, false, ""},
		{"positional to named", batchFake.Info(), args("+7", "1", "2,5", " a b ", "1.5e0"), false,
			map[string]string{"n": "7", "on": "1", "x": "2.5", "s": " a b ", "y": "1.5"}, 0, false, ""},
		{"flag other than 1 is off", batchFake.Info(), args("1", "true"), false, map[string]string{"n": "1", "on": "0"}, 0, false, ""},
		{"linked reads fewer", batchFake.Info(), args("1", "0", "3"), true, map[string]string{"n": "1", "on": "0", "x": "3"}, 0, false, ""},
		{"not a Java int", batchFake.Info(), args("1.0"), false, nil, 0, false, "Illegal value (1.0) for count in FAKE"},
		{"not a number", batchFake.Info(), args("1", "1", "x"), false, nil, 2, false, `"x" is not numeric.`},
		{"not above", batchFake.Info(), args("0"), false, nil, 0, false, "Illegal count: 0"},
		{"message names the argument twice", batchFake.Info(), args("1", "1", "1", "s", "0.5"), false, nil, 4, false, "margin 0.5 not above 1 (0.5)"},
		{"unreadable", batchFake.Info(), args("1", "!"), false, nil, 1, false, "unreadable"},
		{"first problem first", batchFake.Info(), args("x", "!"), false, nil, 0, false, "Illegal value (x) for count in FAKE"},
		{"one too many", batchFake.Info(), args("1", "1", "1", "s", "2", "z"), false, nil, 5, true, tooMany},
		{"one too many unreadable", batchFake.Info(), args("1", "1", "1", "s", "2", "!"), false, nil, 5, true, tooMany},
		{"linked too many", batchFake.Info(), args("1", "1", "1", "s"), true, nil, 3, true, tooManyLinked},
		{"unlabelled method", echoInfo(), args("a", "b"), false, nil, 1, true, `method FAKE takes no parameter at position 3 (got "b")`},
		{"unlabelled method, unreadable", echoInfo(), args("a", "!"), false, nil, 1, false, "unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pluginclient.BatchParams(tc.info, tc.args, tc.linked)
			if tc.msg == "" {
				if err != nil || !maps.Equal(got, tc.want) {
					t.Errorf("BatchParams = %v, %v, want %v", got, err, tc.want)
				}
				return
			}
			be, ok := errors.AsType[*poserr.Error](err)
			if !ok || be.Index != tc.index+1 || errors.Is(err, pluginclient.ErrArgNotTaken) != tc.extra || be.Error() != tc.msg {
				t.Fatalf("error %#v (%v), want argument %d extra %v %q", err, err, tc.index, tc.extra, tc.msg)
			}
			if tc.msg == "unreadable" && !errors.Is(err, unreadable) {
				t.Errorf("the argument's own error is not wrapped: %v", err)
			}
		})
	}
}

// echoInfo is a method with one positional parameter without a batch form.
func echoInfo() pluginsdk.MethodInfo {
	return fake{params: []pluginsdk.ParamSpec{{Name: "first", Type: pluginsdk.ParamString, Help: "f", BatchPosition: 1}}}.Info()
}

// TestBatchFormOverTheWire: the host reads the batch forms from the
// plugin's self-description.
func TestBatchFormOverTheWire(t *testing.T) {
	info, err := serve(t, batchFake).Describe(t.Context(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Methods) != 1 || !reflect.DeepEqual(info.Methods[0].Params, batchFake.Info().Params) {
		t.Errorf("described params %+v, want %+v", info.Methods[0].Params, batchFake.Info().Params)
	}
}

func TestLintBatchForms(t *testing.T) {
	if errs := pluginclient.LintInfo(batchFake.Info()); len(errs) != 0 {
		t.Errorf("LintInfo: %v", errs)
	}
	for _, tc := range []struct {
		spec pluginsdk.ParamSpec
		want string
	}{
		{pluginsdk.ParamSpec{Name: "a", Type: pluginsdk.ParamInt, Help: "a", Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt}},
			"has a batch form but no batch position"},
		{pluginsdk.ParamSpec{Name: "a", Type: pluginsdk.ParamInt, Help: "a", BatchPosition: 1, Batch: pluginsdk.BatchForm{Syntax: 9}},
			"unknown batch syntax 9"},
		{pluginsdk.ParamSpec{Name: "a", Type: pluginsdk.ParamInt, Help: "a", BatchPosition: 1,
			Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Above: "x", InvalidMessage: "m"}}, "a batch bound needs"},
		{pluginsdk.ParamSpec{Name: "a", Type: pluginsdk.ParamInt, Help: "a", BatchPosition: 1,
			Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Above: "0"}}, "a batch bound needs"},
		{pluginsdk.ParamSpec{Name: "a", Type: pluginsdk.ParamBool, Help: "a", BatchPosition: 1,
			Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Above: "0", InvalidMessage: "m"}}, "a batch bound needs"},
	} {
		errs := pluginclient.LintInfo(fake{params: []pluginsdk.ParamSpec{tc.spec}}.Info())
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("LintInfo(%+v) = %v, want %q", tc.spec, errs, tc.want)
		}
	}
}
