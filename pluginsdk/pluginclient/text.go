package pluginclient

import (
	"unicode/utf8"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/pluginsdk"
)

// Text on the wire.
//
// The host keeps every text of a job (variable names, codes, the response
// name, parameters) as the bytes of its input files, UTF-8 or Windows-1252
// (see package charset); protobuf string fields must be UTF-8. So the client
// decides per call how texts cross the wire: when every text of the call is
// valid UTF-8 it is sent as it is; otherwise every text of the call is
// decoded as Windows-1252 (all of them, so that two different codes stay
// different on the wire) and the plugin sees proper UTF-8 text ("Zürich").
// Texts coming back (diagnostics, progress messages) are encoded back to
// Windows-1252 for such a call, so that a code a plugin quotes reaches the
// logbook as the bytes of the input.

// wireText converts the texts of one call between the job's bytes and the
// wire's UTF-8: the zero value passes texts through unchanged.
type wireText struct{ cp1252 bool }

// wireTextFor returns the conversion for a call carrying the given texts:
// Windows-1252 when any of them is not valid UTF-8.
func wireTextFor(texts ...[]string) wireText {
	for _, ts := range texts {
		for _, s := range ts {
			if !utf8.ValidString(s) {
				return wireText{cp1252: true}
			}
		}
	}
	return wireText{}
}

// out converts a job text for the wire.
func (w wireText) out(s string) string {
	if !w.cp1252 {
		return s
	}
	return charset.Decode(s)
}

// in converts a text from the wire back to the job's encoding.
func (w wireText) in(s string) string {
	if !w.cp1252 {
		return s
	}
	return charset.Encode(s)
}

// params converts a parameter map for the wire.
func (w wireText) params(m map[string]string) map[string]string {
	if !w.cp1252 || m == nil {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[w.out(k)] = w.out(v)
	}
	return out
}

// tables returns ts with every name and code converted for the wire (ts
// itself when no conversion is needed).
func (w wireText) tables(ts []pluginsdk.Table) []pluginsdk.Table {
	if !w.cp1252 {
		return ts
	}
	out := make([]pluginsdk.Table, len(ts))
	for i, t := range ts {
		out[i] = pluginsdk.Table{Name: w.out(t.Name), Dims: make([]pluginsdk.Dimension, len(t.Dims))}
		for j, d := range t.Dims {
			d.Name = w.out(d.Name)
			codes := make([]string, len(d.Codes))
			for k, c := range d.Codes {
				codes[k] = w.out(c)
			}
			d.Codes = codes
			out[i].Dims[j] = d
		}
	}
	return out
}

// diags converts diagnostics from the wire back to the job's encoding.
func (w wireText) diags(ds []pluginsdk.Diagnostic) []pluginsdk.Diagnostic {
	if !w.cp1252 {
		return ds
	}
	for i := range ds {
		ds[i].Code, ds[i].Summary, ds[i].Detail, ds[i].Param = w.in(ds[i].Code), w.in(ds[i].Summary), w.in(ds[i].Detail), w.in(ds[i].Param)
	}
	return ds
}

// job returns job with every text converted for the wire: a copy when a
// conversion is needed (the caller's job and problem are not modified).
func (w wireText) job(job Job) Job {
	if !w.cp1252 {
		return job
	}
	wp := *job.Problem
	wp.Tables, wp.Response = w.tables(wp.Tables), w.out(wp.Response)
	job.Method, job.Params, job.JobID, job.Problem = w.out(job.Method), w.params(job.Params), w.out(job.JobID), &wp
	return job
}

// jobTexts lists every text of a Protect call.
func jobTexts(job Job) [][]string {
	texts := [][]string{{job.Method, job.JobID}, mapsTexts(job.Params)}
	if p := job.Problem; p != nil {
		texts = append(texts, []string{p.Response})
		for _, t := range p.Tables {
			texts = append(texts, []string{t.Name})
			for _, d := range t.Dims {
				texts = append(texts, []string{d.Name}, d.Codes)
			}
		}
	}
	return texts
}

func mapsTexts(m map[string]string) []string {
	out := make([]string, 0, 2*len(m))
	for k, v := range m {
		out = append(out, k, v)
	}
	return out
}
