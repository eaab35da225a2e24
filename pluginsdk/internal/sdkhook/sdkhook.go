// Package sdkhook passes functions of pluginsdk that the SDK's own
// packages (pluginclient, plugintest) call but a method's author does not,
// so they are not in the author's API. pluginsdk sets every variable once,
// in its init, before any of its importers runs; nothing sets them after.
// This is the pattern of grpc-go's internal package: the variables are of
// type any because this package cannot name pluginsdk's types (pluginsdk
// imports it); each comment gives the dynamic type, and the one wrapper
// of each (pluginclient.LintInfo, pluginclient.CheckParams, plugintest's
// Serve) asserts it.
package sdkhook

var (
	// LintInfo checks a method's self-description:
	// func(pluginsdk.MethodInfo) []error.
	LintInfo any
	// CheckParams checks a job's raw parameter values against a method's
	// specs: func(pluginsdk.MethodInfo, map[string]string) []pluginsdk.Diagnostic.
	CheckParams any
	// ServeListener serves a plugin on a listener with Serve's server
	// options until the context ends: func(context.Context,
	// pluginsdk.Plugin, net.Listener, zerolog.Logger) error.
	ServeListener any
)
