package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch/pathmap"
)

func TestReadConfigPathMap(t *testing.T) {
	in := "pathmap U:\\ /data/u\n" +
		"pathmap \\\\SERVER\\share\\ /mnt/share\n" +
		"pathmap \"U:\\Mes documents\\\" /data/mes documents\n" +
		"pathmap Z:\\results results\n"
	cfg, err := ReadConfig(strings.NewReader(in), "/etc/argus/argus.conf")
	if err != nil {
		t.Fatal(err)
	}
	want := []pathmap.Rule{{Prefix: `U:\`, Dir: "/data/u"}, {Prefix: `\\SERVER\share\`, Dir: "/mnt/share"},
		{Prefix: `U:\Mes documents\`, Dir: "/data/mes documents"}, {Prefix: `Z:\results`, Dir: "/etc/argus/results"}}
	if !reflect.DeepEqual(cfg.PathMap, want) {
		t.Errorf("PathMap = %q, want %q", cfg.PathMap, want)
	}
	for _, bad := range []string{"pathmap U:\\\n", "pathmap /data /x\n", "pathmap \"U:\\x /y\n"} {
		if _, err := ReadConfig(strings.NewReader(bad), "p.conf"); err == nil || !strings.Contains(err.Error(), "p.conf:1") {
			t.Errorf("ReadConfig(%q) = %v, want an error at p.conf:1", bad, err)
		}
	}
}
