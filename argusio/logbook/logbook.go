// Package logbook writes the τ-Argus logbook and the <VERSIONINFO> file
// (docs/formats.md §2.3 and §3.4).
//
// The contract: every message becomes "<timestamp> : <text>" with the
// timestamp formatted as dd-MMM-yyyy HH:mm:ss with English month
// abbreviations (the project's fixed choice; τ-Argus uses the JVM locale).
// A message containing "\n" is split: every further part goes on its own
// line prefixed by 23 blanks instead of a timestamp (so a trailing "\n"
// yields a line of 23 blanks, as in τ-Argus). An empty message writes
// nothing. Lines end in CRLF by default, like τ-Argus on Windows.
//
// τ-Argus opens the logbook in append mode for every message and ignores
// I/O errors; [AppendFile] gives that behaviour for a file, and
// [Writer.Log] returns the error so that callers can choose to ignore it.
package logbook

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Continuation is the prefix of the second and further lines of a message:
// as wide as a timestamp plus " : ".
const Continuation = "                       " // 23 blanks

// DefaultNewline is the line end written unless Writer.Newline says
// otherwise.
const DefaultNewline = "\r\n"

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// Timestamp formats t (in its own location) as dd-MMM-yyyy HH:mm:ss with an
// English month abbreviation, e.g. "23-Oct-2014 09:05:01".
func Timestamp(t time.Time) string {
	return fmt.Sprintf("%02d-%s-%04d %02d:%02d:%02d",
		t.Day(), months[t.Month()-1], t.Year(), t.Hour(), t.Minute(), t.Second())
}

// Format returns the logbook lines for msg written at time t, each ended by
// newline. It returns "" for an empty message.
func Format(t time.Time, msg, newline string) string {
	if msg == "" {
		return ""
	}
	var b strings.Builder
	hs := Timestamp(t) + " : " + msg
	for hs != "" {
		i := strings.IndexByte(hs, '\n')
		if i < 0 {
			b.WriteString(hs)
			b.WriteString(newline)
			break
		}
		b.WriteString(hs[:i])
		b.WriteString(newline)
		hs = Continuation + hs[i+1:]
	}
	return b.String()
}

// Writer writes logbook messages to Out. Writers are not safe for
// concurrent use.
type Writer struct {
	// Out receives the formatted lines; one Write call per message.
	Out io.Writer
	// Now returns the time of a message; nil means time.Now.
	Now func() time.Time
	// Newline ends every line; "" means DefaultNewline (CRLF).
	Newline string
}

// New returns a Writer to out using the system clock and CRLF line ends.
func New(out io.Writer) *Writer { return &Writer{Out: out} }

// Log writes one message (see the package comment for the layout).
func (w *Writer) Log(msg string) error {
	if msg == "" || w.Out == nil {
		return nil
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	nl := w.Newline
	if nl == "" {
		nl = DefaultNewline
	}
	if _, err := io.WriteString(w.Out, Format(now(), msg, nl)); err != nil {
		return fmt.Errorf("logbook: %w", err)
	}
	return nil
}

// Logf formats a message with fmt.Sprintf and writes it.
func (w *Writer) Logf(format string, args ...any) error {
	return w.Log(fmt.Sprintf(format, args...))
}

// AppendFile is an io.Writer that opens the file Path in append mode (creating
// it if needed) for every Write and closes it again, like τ-Argus does for
// every logbook message, so that the file may be switched, moved or read
// between messages.
type AppendFile struct {
	Path string
}

// Write appends p to the file.
func (f AppendFile) Write(p []byte) (int, error) {
	fh, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	n, werr := fh.Write(p)
	cerr := fh.Close()
	if werr != nil {
		return n, werr
	}
	return n, cerr
}

// Version and build that τ-Argus 4.2.5 reports in the <VERSIONINFO> file.
const (
	TauArgusVersion = "4.2.5"
	TauArgusBuild   = "3"
)

// VersionInfo returns the content of the <VERSIONINFO> file:
// "TAU-ARGUS version: <version>; build: <build>", without a line end.
// Clients (sdcTable) split it at ';' and ':'.
func VersionInfo(version, build string) string {
	return "TAU-ARGUS version: " + version + "; build: " + build
}

// WriteVersionInfo writes VersionInfo(version, build) to w.
func WriteVersionInfo(w io.Writer, version, build string) error {
	if _, err := io.WriteString(w, VersionInfo(version, build)); err != nil {
		return fmt.Errorf("logbook: writing version info: %w", err)
	}
	return nil
}
