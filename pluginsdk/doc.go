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
// authors writing Go never need to read it. This package holds what an
// author needs and, unexported, the plugin's side of the wire (decoding a
// Problem, encoding a Result). The host's side is package
// pluginsdk/pluginclient (the client, the job a host sends, the go-plugin
// plugin set, the Latin-1 handling of a call, the reading of a batch
// line's arguments), which imports this one; what both sides share (the
// handshake, the chunk limits, the cell-status conversion) is
// internal/contract/wire, beside the generated code
// (internal/contract/sdcpb), which only pluginsdk, pluginclient and wire
// import. An author imports pluginsdk/... only: the cell status is
// pluginsdk/cellstatus, an audit's verdicts pluginsdk/verdict (both leaves
// that import nothing of the module), the tables' relations
// pluginsdk/relations. [PluginInfo], a plugin's self-description, stays here:
// it is what "plugin describe" prints, made of the author's [MethodInfo].
// So does [CheckResult], the rules a [Result] must meet: the SDK applies it
// before a result leaves the plugin, plugintest and method tests call it,
// and the host applies it again to every result it receives.
//
// A method's [ParamSpec]s are the one schema of its parameters. Hosts set
// them by name (argus's --param and configuration file) or from the
// positional arguments of a τ-Argus batch line METHOD(t, a1, a2, ...): a
// parameter with a [ParamSpec.BatchPosition] takes the argument there, read
// as its [BatchForm] says, with τ-Argus's checks and messages
// (pluginclient.BatchParams, the host's). [ValidateParams] then checks
// types and ranges and calls the method's [ParamValidator]. A name means
// nothing to the host: what it must know of a run (singleton protection,
// sliding ratio, rounding base) it reads from the parameters declared with
// a [ParamRole] (pluginclient.RunFactsOf, the host's), and it sets an audit's mode, targets and
// colluding check through theirs (contract 1.5); both sides read booleans
// with [ParseBool].
//
// Parts of a job that are independent and deterministic (MOD's sub-tables
// of one wave) can be work items: the method hands them to [RunItems] and
// merges the results in item order. By default they run on the job's
// threads; a host with a work queue (contract 1.4) takes them over the
// connection and has workers on other machines run them with the plugin
// binary in --item mode, through the item function the plugin registers in
// [Plugin.Items]. Either way the results, and so the job's, are the same.
//
// Texts (variable names, codes, parameters) reach a plugin as UTF-8, even
// from a host job whose τ-Argus files are Latin-1: the host converts them.
//
// Package pluginsdk/plugintest runs a Method in-process through the real wire
// path and holds the conformance suite every plugin must pass.
package pluginsdk
