package batch

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/pluginsdk"
)

// batchSpecs are test methods with τ-Argus's batch forms of GH, MOD and
// OPT (the plugins' own tests check that theirs give the same messages).
var batchSpecs = map[string][]pluginsdk.ParamSpec{
	"GH": {
		{Name: "apriori_pct", Type: pluginsdk.ParamFloat, Help: "h", BatchPosition: 1, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "a priori percentage"}},
		{Name: "model_size", Type: pluginsdk.ParamInt, Help: "h", BatchPosition: 2, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "model size"}},
		{Name: "singleton", Type: pluginsdk.ParamBool, Help: "h", BatchPosition: 3, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton"}},
		{Name: "repair", Type: pluginsdk.ParamBool, Help: "h"},
	},
	"MOD": {
		{Name: "max_time", Type: pluginsdk.ParamDuration, Help: "h", BatchPosition: 1, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "max time"}},
		{Name: "ss", Type: pluginsdk.ParamBool, Help: "h", BatchPosition: 2, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton-singleton"}},
		{Name: "sm", Type: pluginsdk.ParamBool, Help: "h", BatchPosition: 3, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton-multiple"}},
		{Name: "mf", Type: pluginsdk.ParamBool, Help: "h", BatchPosition: 4, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "min frequency"}},
		{Name: "msc", Type: pluginsdk.ParamFloat, Help: "h", BatchPosition: 5, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble,
			Label: "max scaling cost", NotLinked: true, Above: "0", InvalidMessage: "Illegal Max Scaling Cost: %s"}},
		{Name: "lm", Type: pluginsdk.ParamFloat, Help: "h", BatchPosition: 6, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "lower margin", NotLinked: true}},
		{Name: "um", Type: pluginsdk.ParamFloat, Help: "h", BatchPosition: 7, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchDouble, Label: "upper margin", NotLinked: true}},
	},
	"OPT": {
		{Name: "max_time", Type: pluginsdk.ParamDuration, Help: "h", BatchPosition: 1, Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "max time"}},
	},
	"ECHO": echo{}.Info().Params,
	// NET(t): the network plugin's parameters are keyword-only.
	"NET": {{Name: "order", Type: pluginsdk.ParamEnum, Allowed: []string{"given", "descending"}, Help: "h"}},
}

// parseSuppress parses one <SUPPRESS> line of file t.arb.
func parseSuppress(t *testing.T, line string) *arb.Suppress {
	t.Helper()
	j, err := arb.Parse(strings.NewReader(line+"\n"), "t.arb")
	if err != nil || len(j.Commands) != 1 {
		t.Fatalf("%s: %v", line, err)
	}
	return j.Commands[0].(*arb.Suppress)
}

// TestSuppressArgs: the positional arguments of a <SUPPRESS> line reach the
// method's parameters through its ParamSpecs (GH, MOD, OPT, a plugin's own
// method) or τ-Argus's checks (RND, CKM, no plugin yet); every refusal
// names the .arb file, line and column of the argument with τ-Argus's
// message (the messages and columns arb gave before it kept the arguments
// raw), and nothing written is dropped.
func TestSuppressArgs(t *testing.T) {
	for _, tc := range []struct {
		line   string
		params map[string]string // nil: none expected
		msg    string            // the error's message, "" for none
		col    int
	}{
		// positional arguments → named parameters, read as τ-Argus does
		{`<SUPPRESS> GH(1,50,1,0)`, map[string]string{"apriori_pct": "50", "model_size": "1", "singleton": "0"}, "", 0},
		{`<SUPPRESS> GH(1, 100 ,0, 7 )`, map[string]string{"apriori_pct": "100", "model_size": "0", "singleton": "0"}, "", 0},
		{`<SUPPRESS> GH(1,+5,"1",true)`, map[string]string{"apriori_pct": "5", "model_size": "1", "singleton": "0"}, "", 0},
		{`<SUPPRESS> GH(1,100|junk`, map[string]string{"apriori_pct": "100"}, "", 0},
		{`<SUPPRESS> GH(1)`, map[string]string{}, "", 0},
		{`<SUPPRESS> MOD(1,5,1,0,1,2e4,0.9,1.1)`, map[string]string{"max_time": "5", "ss": "1", "sm": "0", "mf": "1",
			"msc": "20000", "lm": "0.9", "um": "1.1"}, "", 0},
		{`<SUPPRESS> MOD(0,1,0,1,0)`, map[string]string{"max_time": "1", "ss": "0", "sm": "1", "mf": "0"}, "", 0},
		{`<SUPPRESS> OPT(1,30)`, map[string]string{"max_time": "30"}, "", 0},
		{`<SUPPRESS> ECHO(1, "a b" )`, map[string]string{"first": "a b"}, "", 0},
		{`<SUPPRESS> RND(1,5,1,10,1,2,1)`, nil, "", 0},
		{`<SUPPRESS> RND(1,5)|x`, nil, "", 0},
		{`<SUPPRESS> RND(1,5,1,10,1,2,1|`, nil, "", 0},
		{`<SUPPRESS> CKM(1) "pt.txt"`, nil, "", 0},
		{`<SUPPRESS> NET(1,5,x`, map[string]string{}, "", 0}, // τ-Argus reads nothing after NET's table number
		{`<SUPPRESS> NET(1)`, map[string]string{}, "", 0},
		// τ-Argus's checks, through the plugins' batch forms
		{`<SUPPRESS> GH(1,x)`, nil, "Illegal value (x) for a priori percentage in GH", 17},
		{`<SUPPRESS> GH(1,)`, nil, "Illegal value () for a priori percentage in GH", 17},
		{`<SUPPRESS> GH(1,`, nil, "Illegal value () for a priori percentage in GH", 17},
		{`<SUPPRESS> GH(1,1.5)`, nil, "Illegal value (1.5) for a priori percentage in GH", 17},
		{`<SUPPRESS> GH(1,100,x)`, nil, "Illegal value (x) for model size in GH", 21},
		{`<SUPPRESS> GH(1,x,y,z,w,v)`, nil, "Illegal value (x) for a priori percentage in GH", 17},
		{`<SUPPRESS> MOD(1,5,1,1,1,0)`, nil, "Illegal Max Scaling Cost: 0", 26},
		{`<SUPPRESS> MOD(1,5,1,1,1,-2)`, nil, "Illegal Max Scaling Cost: -2", 26},
		{`<SUPPRESS> MOD(1,5,1,1,1,x)`, nil, `"x" is not numeric.`, 26},
		{`<SUPPRESS> MOD(1,5,1,1,1,2,x)`, nil, `"x" is not numeric.`, 28},
		{`<SUPPRESS> MOD(1,x)`, nil, "Illegal value (x) for max time in MOD", 18},
		{`<SUPPRESS> OPT(1,x)`, nil, "Illegal value (x) for max time in OPT", 18},
		// unreadable arguments, in their turn
		{`<SUPPRESS> GH(1,1,1,1`, nil, "No separator found in string 1", 21},
		{`<SUPPRESS> GH(1,x,1,1`, nil, "Illegal value (x) for a priori percentage in GH", 17},
		{`<SUPPRESS> NEW(1,a,b`, nil, "No separator found in string b", 20},
		{`<SUPPRESS> ECHO(1,a,b,c`, nil, "No separator found in string c", 23},
		// extra arguments
		{`<SUPPRESS> GH(1,100,0,1,7,8)`, nil, "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)", 24},
		{`<SUPPRESS> GH(1,1,1,1,x`, nil, "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)", 22},
		{`<SUPPRESS> GH(0,50,1,1,9)`, nil, "too many arguments for GH: it takes at most 4 (t, a priori percentage, model size, singleton)", 23},
		{`<SUPPRESS> MOD(0,1,0,1,0,5)`, nil, "too many arguments for MOD: it takes at most 5 (t, max time, singleton-singleton, singleton-multiple, min frequency (linked tables))", 25},
		{`<SUPPRESS> MOD(1,5,1,0,0,2,0.9,1.1,7)`, nil, "too many arguments for MOD: it takes at most 8 (t, max time, singleton-singleton, singleton-multiple, min frequency, max scaling cost, lower margin, upper margin)", 35},
		{`<SUPPRESS> OPT(1,30,2)`, nil, "too many arguments for OPT: it takes at most 2 (t, max time)", 20},
		{`<SUPPRESS> ECHO(1,a,b)`, nil, `method ECHO takes no parameter at position 3 (got "b")`, 20},
		// RND and CKM: τ-Argus's checks of methods without a plugin yet
		{`<SUPPRESS> RND(1)`, nil, "a komma(,) expected", 17},
		{`<SUPPRESS> RND(1|`, nil, "a komma(,) expected", 17},
		{`<SUPPRESS> RND(1,5 x)`, nil, "Illegal value (5 x) for rounding base in RND", 18},
		{`<SUPPRESS> RND(1,x,y`, nil, "Illegal value (x) for rounding base in RND", 18},
		{`<SUPPRESS> RND(1,5;`, nil, "No separator found in string 5;", 18},
		{`<SUPPRESS> RND(1,5,1.5)`, nil, `"1.5" is not an integer.`, 20},
		{`<SUPPRESS> RND(1,5,1,0)`, nil, "Illegal value for max time: 0", 22},
		{`<SUPPRESS> RND(1,5,1,-0)`, nil, "Illegal value for max time: 0", 22},
		{`<SUPPRESS> RND(1,5,1,10,2)`, nil, "Illegal value for partitions: 2", 25},
		{`<SUPPRESS> RND(1,5,1,10,x)`, nil, "Illegal value (x) for partitions in RND", 25},
		{`<SUPPRESS> RND(1,5,1,10,1,3)`, nil, "Illegal value for Stopping Rule (valid: 1,2,3): 3", 27},
		{`<SUPPRESS> RND(1,5,1,10,1,x)`, nil, "Illegal value (x) for stopping rule in RND", 27},
		{`<SUPPRESS> RND(1,5,1,10,1,2,5)`, nil, "Illegal value UnitCost parameter: only 0 or 1 allowed", 29},
		{`<SUPPRESS> RND(1,5|`, nil, `a komma(,) or ")" expected`, 19},
		{`<SUPPRESS> RND(1,3,2,5,1,1,0,4)`, nil, "too many arguments for RND: it takes at most 7 (t, rounding base, steps, max time, partitions, stopping rule, unit cost)", 29},
		{`<SUPPRESS> CKM(1,2)`, nil, "A ) is expected here", 17},
		{`<SUPPRESS> CKM(1|2)`, nil, "A ) is expected here", 17},
		// a method τ-Argus does not know closes its list with ")"
		{`<SUPPRESS> NEW(1|2)`, nil, "A ) is expected here", 17},
		{`<SUPPRESS> NEW(1,`, nil, "A ) is expected here", 18},
		{`<SUPPRESS> ECHO(1,a|`, nil, "A ) is expected here", 20},
	} {
		t.Run(tc.line, func(t *testing.T) {
			c := parseSuppress(t, tc.line)
			var ref *MethodRef
			if specs, ok := batchSpecs[c.Method]; ok {
				ref = &MethodRef{Info: pluginsdk.MethodInfo{Code: c.Method, Params: specs}}
			}
			params, err := suppressParams(c, ref)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !maps.Equal(params, tc.params) {
					t.Errorf("params %v, want %v", params, tc.params)
				}
				return
			}
			pe, ok := errors.AsType[*poserr.Error](err)
			if !ok {
				t.Fatalf("error %v (%T) is not a *poserr.Error", err, err)
			}
			if pe.Err.Error() != tc.msg || pe.File != "t.arb" || pe.Line != 1 || pe.Column != tc.col || pe.Text != tc.line {
				t.Errorf("error %q at %v in %q, want %q at column %d", pe.Err, pe.Pos, pe.Text, tc.msg, tc.col)
			}
		})
	}
}

// TestMissingMethodNamesArgs: arguments after an
// unknown method's are named in the error instead of being dropped; without
// any the message is as before.
func TestMissingMethodNamesArgs(t *testing.T) {
	for line, want := range map[string]string{
		`<SUPPRESS> NET(1)`:                      "no installed method plugin serves method NET (Network): the plugin argus-method-network is not installed",
		`<SUPPRESS> CTA(2,x`:                     "no installed method plugin serves method CTA (CTA): the plugin argus-method-cta is not installed",
		`<SUPPRESS> CKM(1) "ptCont" | "ptSep" |`: "no installed method plugin serves method CKM (cell key): the plugin argus-method-ckm is not installed",
		`<SUPPRESS> XYZ(1)`:                      "Unknown suppression method (XYZ) found",
		`<SUPPRESS> XYZ(1,a,2)`:                  "Unknown suppression method (XYZ) found (arguments after the table number: a, 2)",
		`<SUPPRESS> GH(1,100)`:                   "no installed method plugin serves method GH (hypercube): the plugin argus-method-hypercube is not installed",
	} {
		err := missingMethod(parseSuppress(t, line), "")
		if got, _, _ := strings.Cut(err.Error(), "\n"); got != want {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}

// ghLike is a test method serving code GH with τ-Argus's batch forms.
type ghLike struct{}

func (ghLike) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "GH", Params: batchSpecs["GH"],
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (ghLike) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	return keep{}.Protect(context.Background(), req)
}

// TestSuppressArgsStopTheJob: a <SUPPRESS> line whose arguments its method
// refuses stops the job as a line the parser refuses: the lines before it
// run, the error names the file, line and column, the lines after it are
// neither checked nor run (their warnings are not logged), exit code 1.
func TestSuppressArgsStopTheJob(t *testing.T) {
	needCorpus(t)
	job := simpleJob(t, "<SUPPRESS> GH(1,100,x)\r\n") + "<WRITETABLE> (1,3,1,\"legacy.txt\")\r\n"
	dir, code, rep, lb := runJob(t, job, newFake(t, ghLike{}))
	// τ-Argus ran the lines before the bad one (the tables were computed);
	// argus refuses the job before any work.
	want := filepath.Join(dir, "job.arb") + `:6:21: Illegal value (x) for model size in GH (in "<SUPPRESS> GH(1,100,x)") (refused before the job started)`
	var msgs []string // the logbook without its time stamps
	for l := range strings.Lines(lb) {
		_, m, _ := strings.Cut(strings.TrimRight(l, "\r\n"), " : ")
		msgs = append(msgs, m)
	}
	if i := slices.Index(msgs, want); code != ExitError || i < 1 || !strings.HasPrefix(msgs[i-1], "Start of batch procedure") ||
		msgs[i+1] != "Error in batch file" || !slices.Contains(rep.Errors, want) {
		t.Errorf("exit %d, errors %q, logbook:\n%s", code, rep.Errors, lb)
	}
	if slices.Contains(msgs, "<SUPPRESS> GH(1,100,x)") || strings.Contains(lb, "legacy") || len(rep.Warnings) != 0 {
		t.Errorf("lines after the bad one were read: warnings %q, logbook:\n%s", rep.Warnings, lb)
	}
	if _, err := os.Stat(filepath.Join(dir, "out1.csv")); err == nil {
		t.Error("out1.csv written")
	}
	// A good line reaches the method with τ-Argus's reading of its
	// arguments ("true" is not τ-Argus's "1").
	_, code, rep, lb = runJob(t, simpleJob(t, "<SUPPRESS> GH(1,50,1,true)\r\n"), newFake(t, ghLike{}))
	var got map[string]string
	for _, s := range rep.Steps {
		if s.Method != nil {
			got = s.Method.Params
		}
	}
	if !maps.Equal(got, map[string]string{"apriori_pct": "50", "model_size": "1", "singleton": "0"}) {
		t.Errorf("exit %d, errors %q, params %v\n%s", code, rep.Errors, got, lb)
	}
}

// TestSuppressArgsConfigured: named parameters from the configuration (or
// --param) and the batch line's positional ones meet in one map: the
// line's win, the others fill in.
func TestSuppressArgsConfigured(t *testing.T) {
	c := parseSuppress(t, `<SUPPRESS> GH(1,50)`)
	ref := &MethodRef{Info: ghLike{}.Info()}
	params, err := suppressParams(c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := addConfigured(params, ref.Info, map[string]map[string]string{"GH": {"apriori_pct": "10", "repair": "false"}}); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"apriori_pct": "50", "repair": "false"}; !maps.Equal(params, want) {
		t.Errorf("params %v, want %v", params, want)
	}
}

// FuzzSuppressArgs: any <SUPPRESS> line is mapped or refused with a
// *poserr.Error on its line, without a panic, and only declared
// parameters are set.
func FuzzSuppressArgs(f *testing.F) {
	for _, s := range []string{"GH(1,50,1,0)", "GH(0,x,,", "MOD(0,1,0,1,0,5)", "MOD(1,5,1,1,1,2e4,0.9,1.1)", "OPT(1,30,2)",
		"RND(1,5,1,10,1,2,1)", "RND(1,5|", "CKM(1) a|b|1", "CKM(1,2)", "ECHO(1,\"a b\")", "NET(2,5,x", "XYZ(1,a|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := "<SUPPRESS> " + s
		j, err := arb.Parse(strings.NewReader(line), "f.arb")
		if err != nil || len(j.Commands) != 1 {
			return
		}
		c, ok := j.Commands[0].(*arb.Suppress)
		if !ok {
			return
		}
		for _, ref := range []*MethodRef{nil, {Info: pluginsdk.MethodInfo{Code: c.Method, Params: batchSpecs[c.Method]}},
			{Info: pluginsdk.MethodInfo{Code: c.Method, Params: batchSpecs["MOD"]}}} {
			params, err := suppressParams(c, ref)
			if err != nil {
				pe, ok := errors.AsType[*poserr.Error](err)
				if !ok || pe.File != "f.arb" || pe.Line != 1 || pe.Column < 1 || pe.Column > len(c.Line)+1 {
					t.Fatalf("%q: error %v (%T)", line, err, err)
				}
				continue
			}
			for name := range params {
				if ref == nil || !hasParam(ref.Info, name) {
					t.Fatalf("%q: undeclared parameter %s", line, name)
				}
			}
		}
	})
}

// TestTauArgusMethodsHavePlugins: every method argus knows has argus's own
// plugin, so a missing method is either one whose plugin is not installed
// or one τ-Argus does not know (missingMethod has no third case).
func TestTauArgusMethodsHavePlugins(t *testing.T) {
	for code, m := range tauArgusMethods {
		if m.plugin == "" || m.name == "" {
			t.Errorf("method %s: name %q plugin %q", code, m.name, m.plugin)
		}
	}
}
