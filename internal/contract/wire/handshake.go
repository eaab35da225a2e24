package wire

import "github.com/hashicorp/go-plugin"

// PluginKey is the name under which the method service is dispensed.
const PluginKey = "method"

// ProtocolVersion is the contract's major version (go-plugin's protocol
// version). It changes only with an incompatible contract (sdcplugin.v2).
const ProtocolVersion = 1

// ProtocolMinor is the contract minor version both sides implement
// (HostInfo.protocol_minor, DescribeResponse.protocol_minor). Minor 1: the
// host acts on needs_frequency and max_dimensions, and the capability flags
// no host read are reserved; a plugin of minor 0 is sent the frequencies
// whatever it declares, as it always was. Minor 2: parameter roles
// (ParamSpec.role): the host reads what it must know of a method's run from
// them; a plugin of minor 0 or 1 declares none (see catalog's compatible).
// Minor 3: Capabilities.thread_independent; a plugin of an earlier minor
// declares none, and its methods get one thread unless the user sets more.
// Minor 4: the host's ItemService (Header.item_service); a plugin of an
// earlier minor never reads it, and a plugin whose host sets none runs its
// work items itself. Minor 5: the audit's roles (mode, targets, colluding
// check); for an audit method of an earlier minor the host sets those
// parameters by their names. Minor 6: witnesses (WitnessBlock): a method
// sends them to a host that accepts them (ClientCapabilities), the host
// passes them to an audit plugin of minor 6 or later.
const ProtocolMinor = 6

// MinorRoles is the contract minor that added parameter roles: a plugin of
// an earlier minor declares none.
const MinorRoles = 2

// MinorItems is the contract minor that added the host's item service: a
// host serves it only to a plugin of this minor or later.
const MinorItems = 4

// MinorAuditRoles is the contract minor that added the audit's parameter
// roles (RoleAuditMode, RoleAuditTargets, RoleAuditColludingCheck).
const MinorAuditRoles = 5

// MinorWitnesses is the contract minor that added witnesses: a host sends
// them only to an audit plugin of this minor or later.
const MinorWitnesses = 6

// HostMinorFlag is the flag (--host-minor=N) through which a host since
// contract 1.5 tells a plugin's "describe" command its contract minor, as
// HostInfo.protocol_minor does in Describe; a plugin describes to a host
// that passes none (an earlier host) no role newer than 1.4. Plugins before
// 1.5 ignore it.
const HostMinorFlag = "host-minor"

// EnvLogLevel names the environment variable through which the host sets a
// plugin's log level (trace, debug, info, warn, error).
const EnvLogLevel = "ARGUS_PLUGIN_LOG_LEVEL"

// Handshake returns the handshake shared by host and plugins. The cookie
// only stops a plugin binary run by hand from waiting forever; it is not a
// security measure (AutoMTLS is).
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "ARGUS_METHOD_PLUGIN",
		MagicCookieValue: "a1f6c1e0-sdc-method-v1",
	}
}
