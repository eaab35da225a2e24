package output_test

import (
	"bytes"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/output"
)

// TestGoldenJJ writes output type 6 (and its .frq) from the golden table of
// TestGolden.
func TestGoldenJJ(t *testing.T) {
	tab := output.GoldenTable(t)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"type6.jj":     func(b *bytes.Buffer) error { return jj.Write(b, nil, tab, jj.WriteOptions{}) },
		"type6.jj.frq": func(b *bytes.Buffer) error { return jj.Write(&bytes.Buffer{}, b, tab, jj.WriteOptions{}) },
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			output.Golden(t, name, b.Bytes())
		})
	}
}
