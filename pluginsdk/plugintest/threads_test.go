package plugintest

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// threadsMethod declares its result independent of the thread count; with
// leak, its result depends on it all the same (it suppresses the cell
// numbered by the thread count).
type threadsMethod struct{ leak bool }

func (threadsMethod) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "T", Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression, ThreadIndependent: true},
		Structures: []pluginsdk.Structure{pluginsdk.StructureGeneral}}
}

func (m threadsMethod) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	st := append(req.Problem.Cells.Status[:0:0], req.Problem.Cells.Status...)
	if i := req.Limits.Threads; m.leak && i < len(st) {
		if s, ok := st[i].ToSecondary(); ok {
			st[i] = s
		}
	}
	return &pluginsdk.Result{Status: st}, nil
}

// TestThreadIndependence: the declaration crosses the wire, and the
// conformance suite's check passes a method whose result does not depend
// on the thread count and names the difference of one whose result does.
func TestThreadIndependence(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    threadsMethod
		want string // "" = the same result
	}{
		{"independent", threadsMethod{}, ""},
		{"dependent", threadsMethod{leak: true}, "2 threads give other statuses than one thread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := Serve(t, pluginsdk.Plugin{Name: "t", Version: "1", Methods: []pluginsdk.Method{tc.m}})
			info, err := client.Describe(t.Context(), "test")
			if err != nil {
				t.Fatal(err)
			}
			if !info.Methods[0].Capabilities.ThreadIndependent {
				t.Fatal("Describe: the method's ThreadIndependent did not cross the wire")
			}
			c := &conformance{client: client, info: info.Methods[0], opts: &Options{}}
			err = c.sameForThreads(t.Context(), c.medium, 2, 4)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("check: %v, want %q", err, tc.want)
			}
		})
	}
}
