package pluginsdk

import "fmt"

// Status is a cell status with τ-Argus's numeric codes 1–14. The numbers are
// shared with τ-Argus's outputs (AS+ writes them) and with the wire contract:
// never renumber.
type Status uint8

// Cell statuses, numbered as in τ-Argus.
const (
	StatusUnknown               Status = 0  // not set
	StatusSafe                  Status = 1  // safe by the rules
	StatusSafeManual            Status = 2  // made safe by hand (a-priori file)
	StatusUnsafeRule            Status = 3  // unsafe by a dominance or p% rule
	StatusUnsafeRequest         Status = 4  // unsafe by the request rule
	StatusUnsafeFrequency       Status = 5  // unsafe by the minimum-frequency rule
	StatusUnsafeZero            Status = 6  // unsafe zero cell
	StatusUnsafeSingleton       Status = 7  // unsafe single-respondent cell
	StatusUnsafeSingletonManual Status = 8  // unsafe single-respondent cell, manual
	StatusUnsafeManual          Status = 9  // made unsafe by hand
	StatusProtected             Status = 10 // must be published; never suppressed
	StatusSecondary             Status = 11 // secondary suppression
	StatusSecondaryManual       Status = 12 // secondary suppression of a manually safe cell
	StatusEmptyNonStructural    Status = 13 // empty, but may be suppressed
	StatusEmpty                 Status = 14 // structurally empty; never suppressed
	maxStatus                          = StatusEmpty
)

var statusNames = [...]string{
	StatusUnknown:               "unknown",
	StatusSafe:                  "safe",
	StatusSafeManual:            "safe (manual)",
	StatusUnsafeRule:            "unsafe (rule)",
	StatusUnsafeRequest:         "unsafe (request)",
	StatusUnsafeFrequency:       "unsafe (frequency)",
	StatusUnsafeZero:            "unsafe (zero)",
	StatusUnsafeSingleton:       "unsafe (singleton)",
	StatusUnsafeSingletonManual: "unsafe (singleton, manual)",
	StatusUnsafeManual:          "unsafe (manual)",
	StatusProtected:             "protected",
	StatusSecondary:             "secondary",
	StatusSecondaryManual:       "secondary (manual)",
	StatusEmptyNonStructural:    "empty (non-structural)",
	StatusEmpty:                 "empty",
}

// String returns the status's description, e.g. "unsafe (frequency)".
func (s Status) String() string {
	if s <= maxStatus {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Valid reports whether s is one of the codes 1–14.
func (s Status) Valid() bool { return s >= StatusSafe && s <= maxStatus }

// IsPrimary reports whether s marks a cell that must be protected (3–9).
func (s Status) IsPrimary() bool { return s >= StatusUnsafeRule && s <= StatusUnsafeManual }

// IsSecondary reports whether s is a secondary suppression (11, 12).
func (s Status) IsSecondary() bool { return s == StatusSecondary || s == StatusSecondaryManual }

// IsSuppressed reports whether a cell with status s is not published: a
// primary or a secondary.
func (s Status) IsSuppressed() bool { return s.IsPrimary() || s.IsSecondary() }

// CanSuppress reports whether a method may turn a cell with status s into a
// secondary suppression: safe, safe-manual and non-structural empty cells
// (1, 2, 13). Protected (10) and empty (14) cells are frozen.
func (s Status) CanSuppress() bool {
	return s == StatusSafe || s == StatusSafeManual || s == StatusEmptyNonStructural
}

// Secondary returns the status a cell of status s takes when a method
// suppresses it: 12 for a manually safe cell, 11 otherwise.
func (s Status) Secondary() Status {
	if s == StatusSafeManual {
		return StatusSecondaryManual
	}
	return StatusSecondary
}
