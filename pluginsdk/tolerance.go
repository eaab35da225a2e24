package pluginsdk

import "math"

// AuditTolerance is the absolute tolerance with which the audit
// (pluginsdk/audit, and the host reading its intervals) compares realised
// intervals with protection levels, for a table with these values: 1e-9 of
// the largest |value| (at least 1) plus 1e-7 for the accuracy of its LPs. It
// does not depend on the decimals a table is written with.
func AuditTolerance(values []float64) float64 {
	scale := 1.0
	for _, v := range values {
		scale = math.Max(scale, math.Abs(v))
	}
	return 1e-9*scale + 1e-7
}
