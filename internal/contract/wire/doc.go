// Package wire holds what both ends of the host–plugin contract share and
// what needs none of pluginsdk's types: the handshake (protocol version,
// magic cookie, the name the method service is dispensed under), the limits
// of the chunked streams and their error, the conversion of cell statuses to
// and from the wire enum, and small slice helpers of the stream codecs.
//
// The two codecs themselves are split by direction: the plugin's side
// (decode a Problem, encode a Result) is unexported in package pluginsdk,
// which its Serve needs; the host's side (encode a Problem, decode a
// Result) is in pluginsdk/pluginclient. Package wire imports only the
// generated code (internal/contract/sdcpb), the leaf pluginsdk/cellstatus,
// go-plugin's handshake type and the standard library, so both sides can
// import it.
package wire
