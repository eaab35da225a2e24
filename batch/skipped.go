package batch

import (
	"fmt"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
)

// maxSkipped is how many skipped a-priori lines a warning names.
const maxSkipped = 10

// warnSkipped warns of the lines of an a-priori file that were skipped or
// whose changes were refused (IgnoreError, τ-Argus's batch default), which
// τ-Argus only counts: n of lines lines, the first maxSkipped named.
func (e *engine) warnSkipped(c *arb.Apriori, skipped []string, lines int) {
	named := skipped[:min(len(skipped), maxSkipped)]
	more := ""
	if len(skipped) > maxSkipped {
		more = fmt.Sprintf("; and %d more", len(skipped)-maxSkipped)
	}
	msg := fmt.Sprintf("a-priori file %s: %d of its %d lines skipped or refused (IgnoreError): %s%s",
		c.File, len(skipped), lines, strings.Join(named, "; "), more)
	e.warnAs(msg, fmt.Sprintf("%s:%d: warning: %s", c.Pos.File, c.Pos.Line, msg))
}
