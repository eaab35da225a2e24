//go:build !unix

package pluginsdk

import "github.com/rs/zerolog"

// isolateStdout does nothing where descriptors cannot be duplicated; solver
// output must then be switched off by the solver's own options.
func isolateStdout(zerolog.Logger) {}
