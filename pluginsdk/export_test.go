package pluginsdk

import "github.com/sdcengine/argus/internal/contract/sdcpb"

// The plugin's half of the stream codec, for the external tests that run
// it against the host's half (pluginsdk/pluginclient), which this package
// cannot import.

// ProblemDecoder is the plugin's problem assembler.
type ProblemDecoder struct{ a problemAssembler }

// Add consumes one message; done after EndOfInput.
func (d *ProblemDecoder) Add(m *sdcpb.ProtectRequest) (done bool, err error) { return d.a.add(m) }

// Problem returns the problem assembled so far, without its lazily built
// coordinate index (so that two problems compare equal).
func (d *ProblemDecoder) Problem() *Problem {
	if d.a.p != nil {
		d.a.p.coordStart = nil
	}
	return d.a.p
}

// SendResult is sendResult.
var SendResult = sendResult

// Witnesses returns the witnesses the stream carried.
func (d *ProblemDecoder) Witnesses() []Witness { return d.a.witnesses }
