package pluginclient

import "github.com/sdcengine/argus/pluginsdk"

// Fit returns the problem to send to a method with these capabilities: p
// itself, or a shallow copy without the columns the method does not read
// (the frequencies without NeedsFrequency). p is not modified, so the
// caller can still send it whole to another method (the audit).
func Fit(caps pluginsdk.Capabilities, p *pluginsdk.Problem) *pluginsdk.Problem {
	if caps.NeedsFrequency || (len(p.Cells.Freq) == 0 && len(p.Cells.HoldingFreq) == 0) {
		return p
	}
	fp := *p
	fp.Cells.Freq, fp.Cells.HoldingFreq = nil, nil
	return &fp
}
