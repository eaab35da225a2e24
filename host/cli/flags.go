package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"
)

// Command-line numbers are checked where they are read: a negative
// duration or count (--time-limit=-5s) was taken as "none" or as the
// default, silently. Where 0 means "none" or "the default" the help says
// so and 0 is accepted; elsewhere it is refused too.

// errNegative is the reason for a negative value.
var errNegative = errors.New("must not be negative")

// parseLimit reads a duration that must be positive, or zero when zeroOK.
func parseLimit(s string, zeroOK bool) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, err
	case d < 0:
		return 0, fmt.Errorf("%s: %w", s, errNegative)
	case d == 0 && !zeroOK:
		return 0, fmt.Errorf("%s: must be more than zero (leave the option out for the default)", s)
	}
	return d, nil
}

// parseCount reads an integer of at least lo.
func parseCount(s string, lo int) (int, error) {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: not an integer", s)
	case n < lo && lo == 0:
		return 0, fmt.Errorf("%d: %w", n, errNegative)
	case n < lo:
		return 0, fmt.Errorf("%d: must be at least %d", n, lo)
	}
	return n, nil
}

// durationValue is a flag.Value for a duration checked by parseLimit.
type durationValue struct {
	p      *time.Duration
	zeroOK bool
}

func (v durationValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v durationValue) Set(s string) error {
	d, err := parseLimit(s, v.zeroOK)
	if err == nil {
		*v.p = d
	}
	return err
}

// durationFlag defines a duration flag that refuses negative values, and
// zero unless zeroOK.
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, zeroOK bool, usage string) *time.Duration {
	p := new(time.Duration)
	*p = def
	fs.Var(durationValue{p: p, zeroOK: zeroOK}, name, usage)
	return p
}

// countValue is a flag.Value for an integer of at least lo.
type countValue struct {
	p  *int
	lo int
}

func (v countValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v countValue) Set(s string) error {
	n, err := parseCount(s, v.lo)
	if err == nil {
		*v.p = n
	}
	return err
}

// countFlag defines an integer flag of at least lo.
func countFlag(fs *flag.FlagSet, name string, def, lo int, usage string) *int {
	p := new(int)
	*p = def
	fs.Var(countValue{p: p, lo: lo}, name, usage)
	return p
}

// checkJobArgs checks the options given after "--" to every job of
// run-all and worker before any job runs (each job would fail on them).
// The jobs get three positional arguments before them (batch file,
// logbook, temporary directory).
func checkJobArgs(jobArgs []string) error {
	if _, err := parseBatchArgs(append([]string{"job.arb", "logbook.txt", "temp"}, jobArgs...)); err != nil {
		return fmt.Errorf("job options after --: %w", err)
	}
	return nil
}
