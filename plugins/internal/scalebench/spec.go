package scalebench

import "github.com/sdcengine/argus/batch/tablegen"

// GeneratedSpec is the table of "argus generate -shape shape -seed seed
// -primary frac:0.05 -values micro" with generate's defaults (protection
// levels 20 %, cost value, a-priori bounds 1.5), the generated tables of
// issue 30's scale measurements.
func GeneratedSpec(shape string, seed uint64) (tablegen.Spec, error) {
	s := tablegen.Spec{Shape: shape, Seed: seed, Values: tablegen.ValuesMicro, BoundFactor: 1.5}
	var err error
	if s.Primary, err = tablegen.ParseRule("frac:0.05"); err != nil {
		return s, err
	}
	if s.Protection, err = tablegen.ParseProtection("frac:0.2"); err != nil {
		return s, err
	}
	s.Cost, err = tablegen.ParseCost("value")
	return s, err
}
