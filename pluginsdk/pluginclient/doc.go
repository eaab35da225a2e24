// Package pluginclient is the host's side of the host–plugin contract: the
// [Client] that calls a method plugin (Describe, ValidateParams, Protect),
// the [Job] a host sends, the go-plugin plugin set the runner launches
// plugins with ([PluginSet]), the host's directions of the wire codec
// (encode a Problem, decode a Result) and the Latin-1 handling of a call
// (text.go).
//
// One Job walks through the host: batch builds it (method code, parameters
// mapped from the .arb line, limits, the Problem), the Protector of
// host/cli finds the catalog entry of the plugin serving its method, the
// runner launches that plugin and hands the Job to the Client unchanged,
// and the Client builds the wire header from it in one place (header in
// stream.go).
//
// It also maps a τ-Argus batch line's positional arguments onto a method's
// parameters ([BatchParams]), as the method's batch forms say.
//
// The package imports pluginsdk, so it sits above the SDK, beside
// pluginsdk/plugintest, which drives plugins with it (go-plugin shares
// client and server the same way). A method author needs none of it but
// the Client that plugintest.Serve returns and the Job it sends.
package pluginclient
