// Package example holds a complete third-party method plugin written only
// against the public SDK: see directory argus-method-example. Plugin binaries
// are main packages in a directory named argus-method-<name>, so that
// "go build -o bin/plugins/ ./..." names them as the host's catalog expects.
package example
