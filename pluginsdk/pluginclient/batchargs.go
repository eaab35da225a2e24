package pluginclient

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/pluginsdk"
)

// BatchArg is one positional argument written after the table number of a
// τ-Argus batch line METHOD(t, a1, a2, ...): its text as written (trimmed,
// one pair of quotes removed), or the error that stopped its reading.
type BatchArg struct {
	Text string
	Err  error
}

// ErrArgNotTaken is matched (errors.Is) by the error of a batch argument
// the method does not take: its position is where the argument list
// should have ended.
var ErrArgNotTaken = errors.New("argument not taken")

// batchArgError returns the error of the argument of 0-based index i: a
// *poserr.Error with Index i+1 and cause err, also matching
// [ErrArgNotTaken] when notTaken. Its message is err's.
func batchArgError(i int, notTaken bool, err error) error {
	if notTaken {
		err = lex.Reason(ErrArgNotTaken, err.Error(), err)
	}
	return &poserr.Error{Index: i + 1, Err: err}
}

// BatchParams maps the positional arguments of a batch line onto the
// method's parameters by their [pluginsdk.ParamSpec.BatchPosition], reading each as
// its [pluginsdk.ParamSpec.Batch] form says. linked is table number 0 (all tables
// linked), for which the arguments of [pluginsdk.BatchForm.NotLinked] parameters are
// not read. The arguments are taken in order and the first problem is
// returned as a *poserr.Error whose Index is the 1-based index of the
// argument in args and whose message is its cause's: an argument that could
// not be read (its own Err), one the method does not take (matching
// [ErrArgNotTaken]), or one its form refuses.
//
// The values are what the parameters receive; [pluginsdk.ValidateParams] checks them
// further (types, ranges, the method's validator).
func BatchParams(info pluginsdk.MethodInfo, args []BatchArg, linked bool) (map[string]string, error) {
	params := map[string]string{}
	for i, a := range args {
		k := slices.IndexFunc(info.Params, func(s pluginsdk.ParamSpec) bool { return s.BatchPosition == i+1 })
		if k < 0 || linked && info.Params[k].Batch.NotLinked {
			if err := tooMany(info, linked); err != nil {
				return nil, batchArgError(i, true, err)
			}
			if a.Err != nil {
				return nil, batchArgError(i, false, a.Err)
			}
			return nil, batchArgError(i, true,
				fmt.Errorf("method %s takes no parameter at position %d (got %q)", info.Code, i+2, a.Text))
		}
		if a.Err != nil {
			return nil, batchArgError(i, false, a.Err)
		}
		s := info.Params[k]
		v, err := readBatchArg(info.Code, s.Batch, a.Text)
		if err != nil {
			return nil, batchArgError(i, false, err)
		}
		params[s.Name] = v
	}
	return params, nil
}

// readBatchArg reads one argument as form f says.
func readBatchArg(code string, f pluginsdk.BatchForm, text string) (string, error) {
	var v string
	var x float64
	switch f.Syntax {
	case pluginsdk.BatchInt:
		n, err := lex.ParseInt(text)
		if err != nil {
			return "", fmt.Errorf("Illegal value (%s) for %s in %s", text, f.Label, code)
		}
		v, x = strconv.Itoa(n), float64(n)
	case pluginsdk.BatchDouble:
		d, err := lex.ToDouble(text)
		if err != nil {
			return "", err
		}
		v, x = strconv.FormatFloat(d, 'g', -1, 64), d
	case pluginsdk.BatchFlag:
		if text == "1" {
			return "1", nil
		}
		return "0", nil
	default:
		return text, nil
	}
	if f.Above != "" {
		if lo, err := strconv.ParseFloat(f.Above, 64); err == nil && x <= lo {
			return "", errors.New(strings.ReplaceAll(f.InvalidMessage, "%s", text))
		}
	}
	return v, nil
}

// tooMany is τ-Argus's complaint about one argument too many, for a method
// whose positional parameters carry τ-Argus's labels; nil for another.
func tooMany(info pluginsdk.MethodInfo, linked bool) error {
	var labels []string
	cut := false
	for pos := 1; ; pos++ {
		k := slices.IndexFunc(info.Params, func(s pluginsdk.ParamSpec) bool { return s.BatchPosition == pos })
		if k < 0 {
			break
		}
		f := info.Params[k].Batch
		if f.Label == "" {
			return nil
		}
		if linked && f.NotLinked {
			cut = true
			break
		}
		labels = append(labels, f.Label)
	}
	if len(labels) == 0 {
		return nil
	}
	names := strings.Join(labels, ", ")
	if cut {
		names += " (linked tables)"
	}
	return fmt.Errorf("too many arguments for %s: it takes at most %d (t, %s)", info.Code, len(labels)+1, names)
}
