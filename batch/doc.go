// Package batch will execute parsed τ-Argus batch jobs (.arb) command by
// command: opening data and metadata, specifying tables, applying the safety
// rules, dispatching <SUPPRESS> to method plugins through the host's runner,
// auditing and writing outputs. It is being built; see the issue tracker.
package batch
