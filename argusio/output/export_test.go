package output

import (
	"path/filepath"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/golden"
)

// GoldenTable and Golden give the external tests (which may import
// argusio/jj, itself an importer of this package) the golden table and the
// golden-file comparison.
func GoldenTable(t *testing.T) *table.Table { return goldenTable(t) }

// Golden compares got with testdata/name (rewritten with -update).
func Golden(t *testing.T, name string, got []byte) {
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}
