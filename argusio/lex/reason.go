package lex

// Reason returns an error whose text is msg (τ-Argus's full message, say,
// with the field or value it is about) and which matches kind, the
// sentinel of its kind, and each non-nil cause with errors.Is and
// errors.As. The readers of τ-Argus files wrap such errors in a
// [poserr.Error].
func Reason(kind error, msg string, causes ...error) error {
	r := &reason{msg: msg, kinds: []error{kind}}
	for _, c := range causes {
		if c != nil {
			r.kinds = append(r.kinds, c)
		}
	}
	return r
}

// reason is the error [Reason] returns.
type reason struct {
	msg   string
	kinds []error // the sentinel first, then the causes
}

func (e *reason) Error() string   { return e.msg }
func (e *reason) Unwrap() []error { return e.kinds }
