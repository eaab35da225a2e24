package runall

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// The nightly page's charts are inline SVG drawn here: bars with their
// labels and values, no script and no library.

// Bar is one bar of a chart.
type Bar struct {
	Label, Text string
	// Class colours the bar (a job's status).
	Class string
	// Y is the bar's top, W its width, TextX where its value is written,
	// in the chart's coordinates.
	Y, W, TextX float64
}

// Chart is a horizontal bar chart.
type Chart struct {
	Title         string
	Bars          []Bar
	Width, Height float64
	// LabelWidth is the space left of the bars for their labels.
	LabelWidth float64
}

// Chart geometry, in SVG user units (pixels at 100%).
const (
	barHeight    = 16
	barGap       = 4
	chartWidth   = 640
	labelWidth   = 220
	valueWidth   = 90
	maxChartBars = 60
)

// barChart draws values as bars scaled to the largest, at most
// maxChartBars of them (the largest).
func barChart(title string, bars []Bar, values []float64) *Chart {
	if len(bars) == 0 {
		return nil
	}
	idx := make([]int, len(bars))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(values[b], values[a]) })
	if len(idx) > maxChartBars {
		title += fmt.Sprintf(" (the %d largest of %d)", maxChartBars, len(idx))
		idx = idx[:maxChartBars]
	}
	top := values[idx[0]]
	c := &Chart{Title: title, Width: chartWidth, LabelWidth: labelWidth, Height: float64(len(idx)) * (barHeight + barGap)}
	span := chartWidth - labelWidth - valueWidth
	for k, i := range idx {
		b := bars[i]
		b.Y = float64(k) * (barHeight + barGap)
		if top > 0 {
			b.W = max(1, values[i]/top*float64(span))
		}
		b.TextX = labelWidth + b.W + 4
		c.Bars = append(c.Bars, b)
	}
	return c
}

// timeChart is the time each job took.
func timeChart(s *Summary) *Chart {
	var bars []Bar
	var values []float64
	for _, j := range s.Jobs {
		bars = append(bars, Bar{Label: shortLabel(j.ID), Text: fmt.Sprintf("%.1f s", j.Seconds), Class: j.Status})
		values = append(values, j.Seconds)
	}
	return barChart("Time per job", bars, values)
}

// methodChart is the secondaries per method: their sum over the tables
// the method protected, and how many tables that is.
func methodChart(s *Summary) *Chart {
	type acc struct{ secondaries, tables int }
	per := map[string]*acc{}
	for _, j := range s.Jobs {
		for _, t := range j.Tables {
			if t.Method == "" {
				continue
			}
			a := per[t.Method]
			if a == nil {
				a = &acc{}
				per[t.Method] = a
			}
			a.secondaries += t.Secondaries
			a.tables++
		}
	}
	var bars []Bar
	var values []float64
	for _, m := range slices.Sorted(maps.Keys(per)) {
		a := per[m]
		bars = append(bars, Bar{Label: m, Text: fmt.Sprintf("%d (%d tables)", a.secondaries, a.tables), Class: "method"})
		values = append(values, float64(a.secondaries))
	}
	return barChart("Secondaries per method", bars, values)
}

// shortLabel keeps a chart label short.
func shortLabel(s string) string {
	if r := []rune(s); len(r) > 30 {
		return string(r[:29]) + "…"
	}
	return s
}

// Link is a file linked from the page.
type Link struct {
	Text string
	URL  template.URL
}

// fileLink links path from a page in dir: a relative URL when path is
// under dir, else a file: URL.
func fileLink(dir, text, path string) Link {
	if dir != "" {
		if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
			return Link{Text: text, URL: template.URL((&url.URL{Path: filepath.ToSlash(rel)}).String())}
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive
	}
	return Link{Text: text, URL: template.URL((&url.URL{Scheme: "file", Path: p}).String())}
}

// jobLinks are a job's files: logbook, run report, stderr, and the HTML
// reports and pattern views of its outputs.
func jobLinks(dir string, r *Result) []Link {
	if r.Dir == "" {
		return nil
	}
	links := []Link{fileLink(dir, "logbook", filepath.Join(r.Dir, LogbookFile)),
		fileLink(dir, "run report", filepath.Join(r.Dir, ReportFile)), fileLink(dir, "stderr", filepath.Join(r.Dir, StderrFile))}
	for _, v := range r.Views {
		links = append(links, fileLink(dir, "view "+filepath.Base(v), v))
	}
	for _, p := range r.Reports {
		links = append(links, fileLink(dir, "report "+filepath.Base(p), p))
	}
	return links
}
