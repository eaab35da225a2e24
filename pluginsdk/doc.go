// Package pluginsdk is the software development kit for protection-method
// plugins, and the Go side of the host–plugin contract.
//
// A method author implements [Method] over plain Go types ([Problem],
// [Request], [Result]) and calls [Serve] from main:
//
//	func main() {
//		pluginsdk.Serve(pluginsdk.Plugin{
//			Name:    "mymethod",
//			Version: "1.0.0",
//			Methods: []pluginsdk.Method{mymethod.New()},
//		})
//	}
//
// Serve hides everything else: the go-plugin handshake, gRPC, chunking of
// tables of millions of cells into messages of about 1 MiB, a recovery
// interceptor that turns panics into errors, a watchdog that ends the plugin
// when its host dies, structured logging that arrives in the host's log, and
// keeping stdout clean (the handshake channel).
//
// The wire contract itself is pluginsdk/proto/sdcplugin/v1/method.proto; plugin
// authors writing Go never need to read it. Hosts use [Client] (over a gRPC
// connection) and [HandshakeConfig]/[PluginSet] to launch plugins.
//
// A method's [ParamSpec]s are the one schema of its parameters. Hosts set
// them by name (argus's --param and configuration file) or from the
// positional arguments of a τ-Argus batch line METHOD(t, a1, a2, ...): a
// parameter with a [ParamSpec.BatchPosition] takes the argument there, read
// as its [BatchForm] says, with τ-Argus's checks and messages
// ([BatchParams]). [ValidateParams] then checks types and ranges and calls
// the method's [ParamValidator].
//
// Texts (variable names, codes, parameters) reach a plugin as UTF-8. A host
// job keeps the bytes of its τ-Argus files, which may be Latin-1; when a
// Protect or ValidateParams call carries any text that is not valid UTF-8,
// the [Client] sends every text of that call decoded as Windows-1252 and
// encodes the plugin's diagnostics and progress messages back (see text.go).
//
// Package pluginsdk/plugintest runs a Method in-process through the real wire
// path and holds the conformance suite every plugin must pass.
package pluginsdk
