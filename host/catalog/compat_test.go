package catalog

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
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
