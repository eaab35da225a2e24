package catalog

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// TestCompatibleMinor0: a plugin of contract 1.0 is sent the frequencies
// whatever it declares (no host read NeedsFrequency then); from minor 1 its
// declaration counts.
func TestCompatibleMinor0(t *testing.T) {
	for _, minor := range []int{0, 1} {
		info := pluginsdk.PluginInfo{Name: "p", ProtocolMinor: minor, Methods: []pluginsdk.MethodInfo{{Code: "X"}}}
		compatible(&info)
		if got, want := info.Methods[0].Capabilities.NeedsFrequency, minor == 0; got != want {
			t.Errorf("minor %d: NeedsFrequency %v, want %v", minor, got, want)
		}
	}
}

// TestCompatibleRoles: a plugin before contract 1.2 declares no parameter
// roles, so nothing is known of its runs (the host audits them
// colluding); from minor 2 its roles count.
func TestCompatibleRoles(t *testing.T) {
	for _, minor := range []int{0, 1, 2} {
		info := pluginsdk.PluginInfo{Name: "p", ProtocolMinor: minor, Methods: []pluginsdk.MethodInfo{{Code: "X",
			Params: []pluginsdk.ParamSpec{{Name: "singleton", Type: pluginsdk.ParamBool, Default: "false"}}}}}
		compatible(&info)
		f, err := pluginclient.RunFactsOf(info.Methods[0], nil)
		want := pluginsdk.SingletonNone
		if minor < 2 {
			want = pluginsdk.SingletonUnknown
		}
		if err != nil || f.Singletons != want {
			t.Errorf("minor %d: singleton protection %v (%v), want %v", minor, f.Singletons, err, want)
		}
	}
}
