package wire

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseInt reads an integer parameter value as both sides of the contract
// read it: surrounding spaces ignored, and a whole number written with
// decimals ("10.0", as τ-Argus clients sometimes write integers) accepted.
func ParseInt(s string) (int, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.Atoi(s); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int(f)) {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return int(f), nil
}
