// Package pluginlog bridges plugin logs into the host's zerolog stream.
//
// go-plugin reads each plugin's stderr line by line, parses the JSON lines
// that pluginsdk writes (hclog's @level/@message/@timestamp keys) and hands
// them to an hclog.Logger. [New] returns such a logger that writes into a
// zerolog.Logger, so a plugin's
//
//	req.Log.Info().Int("cells", n).Msg("started")
//
// arrives in the host's log as a structured event with logger=<plugin name>.
package pluginlog

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/rs/zerolog"
)

// Logger is an hclog.Logger over a zerolog.Logger.
type Logger struct {
	zl   zerolog.Logger
	name string
	args []any
	// root marks go-plugin's own logger, whose routine info messages
	// ("plugin started", "plugin process exited") are demoted to debug.
	root bool
}

var _ hclog.Logger = (*Logger)(nil)

// New returns the hclog.Logger to give go-plugin for the plugin called name.
// go-plugin's own info messages are logged at debug level; the plugin's log
// lines, which go-plugin passes through a named sub-logger, keep their level
// and carry logger=name.
func New(zl zerolog.Logger, name string) *Logger { return &Logger{zl: zl, name: name, root: true} }

func toZerolog(l hclog.Level) zerolog.Level {
	switch l {
	case hclog.Trace:
		return zerolog.TraceLevel
	case hclog.Debug:
		return zerolog.DebugLevel
	case hclog.Info, hclog.NoLevel, hclog.DefaultLevel:
		return zerolog.InfoLevel
	case hclog.Warn:
		return zerolog.WarnLevel
	case hclog.Error:
		return zerolog.ErrorLevel
	case hclog.Off:
		return zerolog.Disabled
	}
	return zerolog.InfoLevel
}

func fromZerolog(l zerolog.Level) hclog.Level {
	switch l {
	case zerolog.TraceLevel:
		return hclog.Trace
	case zerolog.DebugLevel:
		return hclog.Debug
	case zerolog.InfoLevel:
		return hclog.Info
	case zerolog.WarnLevel:
		return hclog.Warn
	case zerolog.ErrorLevel, zerolog.FatalLevel, zerolog.PanicLevel:
		return hclog.Error
	case zerolog.Disabled:
		return hclog.Off
	}
	return hclog.Info
}

// Log writes one event. go-plugin appends a duplicate "timestamp" pair to
// entries it parsed; it is dropped, as are the hclog keys already mapped.
func (l *Logger) Log(level hclog.Level, msg string, args ...any) {
	if l.root && level == hclog.Info {
		level = hclog.Debug
	}
	ev := l.zl.WithLevel(toZerolog(level))
	if ev == nil || !ev.Enabled() {
		return
	}
	if l.name != "" {
		ev = ev.Str("logger", l.name)
	}
	all := append(append([]any{}, l.args...), args...)
	for i := 0; i+1 < len(all); i += 2 {
		k := fmt.Sprint(all[i])
		switch k {
		case "timestamp", "@timestamp", "@level", "@message", "@module":
			continue
		}
		ev = ev.Interface(k, all[i+1])
	}
	if len(all)%2 == 1 {
		ev = ev.Interface("EXTRA_VALUE_AT_END", all[len(all)-1])
	}
	ev.Msg(msg)
}

// Trace logs at trace level.
func (l *Logger) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }

// Debug logs at debug level.
func (l *Logger) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }

// Info logs at info level.
func (l *Logger) Info(msg string, args ...any) { l.Log(hclog.Info, msg, args...) }

// Warn logs at warn level.
func (l *Logger) Warn(msg string, args ...any) { l.Log(hclog.Warn, msg, args...) }

// Error logs at error level.
func (l *Logger) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

func (l *Logger) enabled(level hclog.Level) bool { return l.zl.GetLevel() <= toZerolog(level) }

// IsTrace reports whether trace events are written.
func (l *Logger) IsTrace() bool { return l.enabled(hclog.Trace) }

// IsDebug reports whether debug events are written.
func (l *Logger) IsDebug() bool { return l.enabled(hclog.Debug) }

// IsInfo reports whether info events are written.
func (l *Logger) IsInfo() bool { return l.enabled(hclog.Info) }

// IsWarn reports whether warnings are written.
func (l *Logger) IsWarn() bool { return l.enabled(hclog.Warn) }

// IsError reports whether errors are written.
func (l *Logger) IsError() bool { return l.enabled(hclog.Error) }

// ImpliedArgs returns the key/value pairs added by With.
func (l *Logger) ImpliedArgs() []any { return l.args }

// With returns a logger that adds args to every event.
func (l *Logger) With(args ...any) hclog.Logger {
	c := *l
	c.args = append(append([]any{}, l.args...), args...)
	return &c
}

// Name returns the logger's name.
func (l *Logger) Name() string { return l.name }

// Named returns a logger whose name is extended by name. On the root logger
// it returns the logger for the plugin's own lines, named after the plugin.
func (l *Logger) Named(name string) hclog.Logger {
	c := *l
	if c.root {
		c.root = false
		return &c
	}
	if c.name != "" {
		c.name += "." + name
	} else {
		c.name = name
	}
	return &c
}

// ResetNamed returns a logger with the given name.
func (l *Logger) ResetNamed(name string) hclog.Logger {
	c := *l
	c.name = name
	return &c
}

// SetLevel changes the level of this logger.
func (l *Logger) SetLevel(level hclog.Level) { l.zl = l.zl.Level(toZerolog(level)) }

// GetLevel returns the level, so go-plugin skips parsing when logs are off.
func (l *Logger) GetLevel() hclog.Level { return fromZerolog(l.zl.GetLevel()) }

// StandardLogger returns a standard library logger writing through l.
func (l *Logger) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

// StandardWriter returns a writer logging each line through l at info level.
func (l *Logger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return LineWriter(func(line string) { l.Info(line) })
}

// LineWriter returns a writer that calls fn once per complete line written to
// it (without the line end). Used for plugins' stray stdout and stderr.
func LineWriter(fn func(line string)) io.Writer { return &lineWriter{fn: fn} }

type lineWriter struct {
	fn  func(string)
	buf bytes.Buffer
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimRight(string(w.buf.Next(i+1)), "\r\n")
		w.fn(line)
	}
}
