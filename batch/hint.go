package batch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
)

// hinted is an error with advice for the person reading it. The logbook
// gets the error's own text, τ-Argus's words that clients search for; the
// terminal and the run report get the hint as well.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

// withHint attaches a hint to err (nil stays nil).
func withHint(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: fmt.Sprintf(format, args...)}
}

// Hint returns the advice attached to err, or "".
func Hint(err error) string {
	var h *hinted
	if errors.As(err, &h) {
		return h.hint
	}
	return ""
}

// inputHint says where a plain input file name was looked for.
func inputHint(r arb.Resolver, name string) string {
	if !arb.IsPlain(name) {
		return fmt.Sprintf("%s is used as given; check the path", name)
	}
	places := []string{filepath.Join(r.ArbDir, name)}
	if r.DataDir != "" {
		places = append(places, filepath.Join(r.DataDir, name))
	}
	return fmt.Sprintf("looked for %s; a plain file name is looked up next to the batch file, then in the data directory (4th argument)",
		strings.Join(places, " and "))
}

// variablesHint lists the variables a metadata file declares.
func variablesHint(m *rda.Metadata, file string) string {
	names := make([]string, 0, len(m.Variables))
	for _, v := range m.Variables {
		names = append(names, v.Name)
	}
	return fmt.Sprintf("%s declares %s", filepath.Base(file), strings.Join(names, ", "))
}

// parseHint explains the batch-file syntax errors people make most.
func parseHint(err error) string {
	var pe *poserr.Error
	if !errors.As(err, &pe) {
		return ""
	}
	if strings.Contains(pe.Err.Error(), `"|" is expected`) {
		return `τ-Argus allows nothing after a rule's ")" but "|" or the end of the line: write P(15,1)|NK(3,70), without blanks or comments`
	}
	return ""
}
