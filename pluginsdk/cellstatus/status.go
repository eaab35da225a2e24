// Package cellstatus defines the status of a table cell, the one type every
// layer of argus uses for it: the readers of τ-Argus files (argusio), the
// plugin SDK and its wire contract (pluginsdk), the batch runner and the
// protection methods.
//
// The numbers are τ-Argus's cell status codes 1–14 (0 is "not yet known").
// τ-Argus writes them in its outputs (the AS option of output types 2 and 3)
// and the plugin wire contract carries them unchanged, so they are never
// renumbered. The statuses fall into four categories (see [Category]): safe
// cells that a method may suppress, protected cells that are never
// suppressed, primary unsafe cells and secondary suppressions.
//
// The package imports only the standard library so that every other package
// can use it: it is a leaf below every layer, argusio included. It lives in
// pluginsdk because a method author needs it and imports pluginsdk/...
// only.
package cellstatus

import (
	"fmt"
	"strconv"
)

// Status is a cell status, numbered as in τ-Argus.
type Status uint8

// The cell statuses, numbered as in τ-Argus.
const (
	Unknown               Status = 0  // not (yet) known: to be computed from the safety rules
	Safe                  Status = 1  // safe by the rules
	SafeManual            Status = 2  // made safe by hand (a-priori file, <SAFE> status of a .tab)
	UnsafeRule            Status = 3  // unsafe by a dominance or p% rule
	UnsafeRequest         Status = 4  // unsafe by the request rule
	UnsafeFreq            Status = 5  // unsafe by the minimum-frequency rule
	UnsafeZero            Status = 6  // unsafe zero cell with contributors
	UnsafeSingleton       Status = 7  // unsafe single-respondent cell (legacy, not set by current τ-Argus)
	UnsafeSingletonManual Status = 8  // unsafe single-respondent cell, manual (legacy; the JJ writer rejects it)
	UnsafeManual          Status = 9  // made unsafe by hand (a-priori file, <UNSAFE> status)
	Protected             Status = 10 // must be published: never suppressed
	Secondary             Status = 11 // secondary suppression
	SecondaryManual       Status = 12 // secondary suppression of a manually safe cell
	EmptyNonStructural    Status = 13 // empty cell that may be suppressed
	Empty                 Status = 14 // structurally empty cell: never suppressed
)

// Max is the largest valid status number.
const Max = Empty

// Category is τ-Argus's grouping of the statuses.
type Category uint8

// The status categories.
const (
	CategoryUnknown   Category = iota // status 0 or out of range
	CategorySafe                      // 1, 2, 13: safe, may become secondary
	CategoryProtected                 // 10, 14: safe, never suppressed
	CategoryPrimary                   // 3–9: primary unsafe
	CategorySecondary                 // 11, 12: secondary unsafe
)

// labels are τ-Argus's own descriptions of the statuses, as its reports
// print them.
var labels = [...]string{
	Unknown:               "Unknown",
	Safe:                  "Safe",
	SafeManual:            "Safe (manual)",
	UnsafeRule:            "Unsafe",
	UnsafeRequest:         "Unsafe (request)",
	UnsafeFreq:            "Unsafe (freq)",
	UnsafeZero:            "Unsafe (zero cell)",
	UnsafeSingleton:       "Unsafe (singleton)",
	UnsafeSingletonManual: "Unsafe (singleton) (manual)",
	UnsafeManual:          "Unsafe (manual)",
	Protected:             "Protected",
	Secondary:             "Secondary",
	SecondaryManual:       "Secondary (from manual)",
	EmptyNonStructural:    "Empty (non-struct.)",
	Empty:                 "Empty",
}

// phrases are the lower-case descriptions the plugin SDK's messages use.
var phrases = [...]string{
	Unknown:               "unknown",
	Safe:                  "safe",
	SafeManual:            "safe (manual)",
	UnsafeRule:            "unsafe (rule)",
	UnsafeRequest:         "unsafe (request)",
	UnsafeFreq:            "unsafe (frequency)",
	UnsafeZero:            "unsafe (zero)",
	UnsafeSingleton:       "unsafe (singleton)",
	UnsafeSingletonManual: "unsafe (singleton, manual)",
	UnsafeManual:          "unsafe (manual)",
	Protected:             "protected",
	Secondary:             "secondary",
	SecondaryManual:       "secondary (manual)",
	EmptyNonStructural:    "empty (non-structural)",
	Empty:                 "empty",
}

// String returns τ-Argus's description of the status, as the HTML report
// (output type 1) prints it: "Safe", "Unsafe (freq)", "Secondary (from
// manual)", …; "Status(n)" for a number outside 0–14.
func (s Status) String() string {
	if s <= Max {
		return labels[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Phrase returns the lower-case description of the status that the plugin
// SDK writes inside its sentences (e.g. the error for a status change a
// method may not make): "safe", "unsafe (frequency)", "secondary (manual)",
// …; "status(n)" for a number outside 0–14. It differs from [Status.String],
// τ-Argus's own words, to keep the SDK's messages as they always were.
func (s Status) Phrase() string {
	if s <= Max {
		return phrases[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Valid reports whether s is one of the statuses 1–14.
func (s Status) Valid() bool { return s >= Safe && s <= Max }

// Category returns the status category of s.
func (s Status) Category() Category {
	switch {
	case s == Safe, s == SafeManual, s == EmptyNonStructural:
		return CategorySafe
	case s == Protected, s == Empty:
		return CategoryProtected
	case s >= UnsafeRule && s <= UnsafeManual:
		return CategoryPrimary
	case s == Secondary, s == SecondaryManual:
		return CategorySecondary
	}
	return CategoryUnknown
}

// IsPrimary reports whether s marks a cell that must be protected: a primary
// unsafe status (3–9).
func (s Status) IsPrimary() bool { return s.Category() == CategoryPrimary }

// IsSecondary reports whether s is a secondary suppression (11, 12).
func (s Status) IsSecondary() bool { return s.Category() == CategorySecondary }

// IsSuppressed reports whether a cell of status s is not published: primary
// or secondary unsafe (3–9, 11, 12). These are the cells written as "x" by
// output types 1–3 without the status option.
func (s Status) IsSuppressed() bool { return s.IsPrimary() || s.IsSecondary() }

// IsSafe reports whether s is a safe status, protected ones included (1, 2,
// 10, 13, 14).
func (s Status) IsSafe() bool {
	c := s.Category()
	return c == CategorySafe || c == CategoryProtected
}

// IsSingleton reports whether s marks a single-respondent cell (7, 8), as
// methods must take a cell whose frequency they are not given.
func (s Status) IsSingleton() bool { return s == UnsafeSingleton || s == UnsafeSingletonManual }

// IsEmpty reports whether s is one of the two empty statuses (13, 14).
func (s Status) IsEmpty() bool { return s == Empty || s == EmptyNonStructural }

// CanBeSecondary reports whether a method may turn a cell of status s into a
// secondary suppression: safe, safe-manual and non-structural empty cells (1,
// 2, 13). Protected (10) and empty (14) cells are frozen.
func (s Status) CanBeSecondary() bool { return s.Category() == CategorySafe }

// ToSecondary returns the status a cell of status s gets when a method
// suppresses it (1→11, 2→12, 13→11), and false, with s unchanged, if such a
// cell may not be suppressed.
func (s Status) ToSecondary() (Status, bool) {
	switch s {
	case Safe, EmptyNonStructural:
		return Secondary, true
	case SafeManual:
		return SecondaryManual, true
	}
	return s, false
}

// IntermediateLetter returns the status letter of output type 5 (the
// intermediate .tab file): 'E' for both empty statuses, 'S' for 1 and 2, 'U'
// for 3–9, 'P' for 10 and 'M' for 11 and 12. The letter is 0 for status 0 or
// an out-of-range value.
func (s Status) IntermediateLetter() byte {
	if s.IsEmpty() {
		return 'E'
	}
	switch s.Category() {
	case CategorySafe:
		return 'S'
	case CategoryProtected:
		return 'P'
	case CategoryPrimary:
		return 'U'
	case CategorySecondary:
		return 'M'
	}
	return 0
}

// JJLetter returns the status letter of the JJ format: 's' for 1, 2, 13; 'u'
// for 3–7 and 9; 'm' for 11, 12; 'z' for 10 and 14. ok is false for status 8
// (the τ-Argus JJ writer fails on it), status 0 and out-of-range values.
func (s Status) JJLetter() (letter byte, ok bool) {
	switch {
	case s == UnsafeSingletonManual:
		return 0, false
	case s.Category() == CategorySafe:
		return 's', true
	case s.Category() == CategoryPrimary:
		return 'u', true
	case s.Category() == CategorySecondary:
		return 'm', true
	case s.Category() == CategoryProtected:
		return 'z', true
	}
	return 0, false
}

// SBSLetter returns the status letter of output type 4 (SBS format):
//
//   - "V" for 1, 2, 10, 13;
//   - "A" for 5 (minimum frequency);
//   - "B" for 4, 6, 7, 9, and for 3 when neither a p% rule is active nor
//     more than one top contribution is kept;
//   - "C" for 3 when more than one top contribution is kept and no p% rule
//     is active;
//   - "F" for 3 when a p% rule is active;
//   - "D" for 11, 12;
//   - "-" for 14;
//   - "" for 8 and 0 (τ-Argus writes nothing).
//
// pRule tells whether the table has a p% rule; severalTopN whether the SBS
// code of the table's rules says more than one top contribution is kept.
func (s Status) SBSLetter(pRule, severalTopN bool) string {
	switch s {
	case Safe, SafeManual, EmptyNonStructural, Protected:
		return "V"
	case UnsafeFreq:
		return "A"
	case UnsafeRequest, UnsafeZero, UnsafeSingleton, UnsafeManual:
		return "B"
	case UnsafeRule:
		switch {
		case pRule:
			return "F"
		case severalTopN:
			return "C"
		}
		return "B"
	case Secondary, SecondaryManual:
		return "D"
	case Empty:
		return "-"
	}
	return ""
}
