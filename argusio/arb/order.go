package arb

import (
	"errors"

	"github.com/sdcengine/argus/argusio/poserr"
)

// States of the ordering state machine (docs/formats.md §3.2).
const (
	StateStart     = 0 // nothing opened (also after <CLEAR>)
	StateData      = 1 // a data file was opened
	StateMetadata  = 2 // its metadata was read
	StateSpecified = 3 // a table was specified
	StateRules     = 4 // safety rules given, or tables read
)

// Order is τ-Argus's ordering state machine for batch commands. The batch
// engine calls Check for every command, before executing it; the zero value
// is the initial state.
type Order struct {
	state int
	// dataPending is true between an open-data command and <OPENMETADATA>.
	// Like τ-Argus, <CLEAR> does not reset it.
	dataPending bool
}

// State returns the current state (one of the State constants). A
// <READTABLE> accepted in StateSpecified must first switch every table to
// "use the statuses given" (no safety rule was given for the last table).
func (o *Order) State() int { return o.state }

// Check verifies that cmd is allowed in the current state and, if so,
// moves to the next state. The error is a *poserr.Error positioned at the
// command with τ-Argus's message: "This keyword (<X>) is not allowed in this
// position", or "A data file must be specified first" for <OPENMETADATA>
// without a preceding open command. On error the state is unchanged.
func (o *Order) Check(cmd Command) error {
	h := cmd.Head()
	notAllowed := func() error {
		return &poserr.Error{Pos: h.Pos, Text: h.Line,
			Err: errors.New("This keyword (" + h.Keyword + ") is not allowed in this position")}
	}
	switch cmd.(type) {
	case *OpenMicrodata:
		if o.state != StateStart {
			return notAllowed()
		}
		o.state, o.dataPending = StateData, true
	case *OpenTableData:
		if o.state != StateStart && o.state != StateRules {
			return notAllowed()
		}
		o.state, o.dataPending = StateData, true
	case *OpenMetadata:
		if !o.dataPending {
			return &poserr.Error{Pos: h.Pos, Text: h.Line, Err: errors.New("A data file must be specified first")}
		}
		if o.state != StateData {
			return notAllowed()
		}
		o.state, o.dataPending = StateMetadata, false
	case *SpecifyTable:
		if o.state != StateMetadata && o.state != StateRules {
			return notAllowed()
		}
		o.state = StateSpecified
	case *SafetyRule:
		if o.state != StateSpecified {
			return notAllowed()
		}
		o.state = StateRules
	case *ReadMicrodata:
		if o.state != StateRules {
			return notAllowed()
		}
	case *ReadTable:
		if o.state != StateSpecified && o.state != StateRules {
			return notAllowed()
		}
		o.state = StateRules
	case *Suppress, *Confidential:
		if o.state != StateRules {
			return notAllowed()
		}
	case *Clear:
		o.state = StateStart
	}
	return nil
}

// CheckOrder runs the ordering state machine over all commands of the job
// and returns the first violation, or nil. It does not model run-time
// failures of the commands themselves.
func (j *Job) CheckOrder() error {
	var o Order
	for _, c := range j.Commands {
		if err := o.Check(c); err != nil {
			return err
		}
	}
	return nil
}
