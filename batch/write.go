package batch

import (
	"fmt"
	"io"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/output"
)

// writeTable writes one output file and its HTML report, each atomically.
func (e *engine) writeTable(c *arb.WriteTable) error {
	t, err := e.tableArg(c.Table)
	if err != nil {
		return err
	}
	if err := checkNotConfidential(t, c.Table); err != nil {
		return err
	}
	typ := output.Type(c.Type)
	if !typ.Valid() {
		return fmt.Errorf("Unknown output type (%d)", c.Type)
	}
	opts := c.Options
	if err := output.CheckAllowed(typ, t.table.Method); err != nil {
		return err
	}
	path, err := e.outputPath(c.File, e.resolver.Output)
	if err != nil {
		return err
	}
	if e.withhold(c, t, path) {
		return nil
	}
	if err := checkPrinted(t.table, typ, opts); err != nil {
		return err
	}
	report, err := output.ReportName(path)
	if err != nil {
		return fmt.Errorf("output file name %s has no extension", c.File)
	}
	files, err := writeTableFiles(c, path)
	if err != nil {
		return err
	}
	viewPath := e.viewFile(c, t, path)
	if viewPath != "" {
		files = append(files, plannedFile{path: viewPath, what: fmt.Sprintf("the pattern view of <WRITETABLE> at line %d", c.Pos.Line)})
	}
	if err := e.guard.checkAll(files); err != nil {
		return err
	}
	if prev := e.guard.reportOf(report); prev != "" {
		msg := fmt.Sprintf("the HTML report %s of %s is replaced by that of this output", report, prev)
		e.warnAs(msg, fmt.Sprintf("%s:%d: warning: %s", c.Pos.File, c.Pos.Line, msg))
	}
	defer e.guard.recordAll(files) // written or not, this job's own files from now on
	switch typ {
	case output.TypeJJ:
		frq := path + ".frq"
		var frqErr error
		err = e.writeFile(path, func(w io.Writer) error {
			return e.writeFileErr(&frqErr, frq, func(fw io.Writer) error {
				return jj.Write(w, fw, t.table, jj.WriteOptions{RemoveTrivial: opts.RemoveTrivial})
			})
		})
		if err == nil {
			err = frqErr
		}
	case output.TypeIntermediate:
		meta := output.MetadataName(path)
		err = e.writeFile(path, func(w io.Writer) error { return output.Write(w, typ, t.table, opts) })
		if err == nil {
			err = e.writeFile(meta, func(w io.Writer) error {
				return output.WriteIntermediateMetadata(w, t.table, opts, meta)
			})
		}
	case output.TypeCKM:
		meta := output.MetadataName(path)
		err = e.writeFile(path, func(w io.Writer) error { return output.Write(w, typ, t.table, opts) })
		if err == nil {
			err = e.writeFile(meta, func(w io.Writer) error { return output.WriteCKMMetadata(w, t.table, opts, meta) })
		}
	default:
		err = e.writeFile(path, func(w io.Writer) error { return output.Write(w, typ, t.table, opts) })
	}
	if err != nil {
		return err
	}
	rep := output.Report{Date: e.cfg.Now(), DataFile: t.dataFile, MetaFile: t.metaFile, OutputFile: path, Type: typ,
		Options: opts, FromMicrodata: !t.tabular, SafetyRules: ruleLines(t), Method: t.method, ProcessingTime: t.protected,
		MethodDetails: t.details, Version: "argus " + e.cfg.Version}
	if t.method == "" {
		rep.ProcessingTime = -1
	}
	if err := e.writeFile(report, func(w io.Writer) error { return output.WriteReport(w, t.table, rep) }); err != nil {
		return err
	}
	if viewPath != "" {
		if err := e.writeView(c, t, path, viewPath); err != nil {
			return err
		}
	}
	e.logf("Table: %s has been written\nOutput file name: %s", describe(t), path)
	e.report.Outputs = append(e.report.Outputs, OutputReport{Table: c.Table, Type: c.Type, File: path, Report: report, View: viewPath})
	return nil
}

// writeFileErr writes a second file atomically inside the fill of the first,
// recording its error.
func (e *engine) writeFileErr(errp *error, path string, fill func(w io.Writer) error) error {
	*errp = e.writeFile(path, fill)
	return nil
}

// ruleLines describes the safety rules for the HTML report.
func ruleLines(t *tableSpec) []string {
	var lines []string
	s := &t.set
	level := func(slot int) string {
		if slot >= 2 {
			return "Holding level"
		}
		return "Individual level"
	}
	for i, r := range s.NK {
		if r != nil {
			lines = append(lines, fmt.Sprintf("Dominance rule (%s) with n = %d and k = %g%%", level(i), r.N, r.K))
		}
	}
	for i, r := range s.P {
		if r != nil {
			lines = append(lines, fmt.Sprintf("p%% rule (%s) with p = %g%%, q = %g%% and n = %d", level(i), r.P, r.Q, r.N))
		}
	}
	for i, r := range s.Freq {
		if r != nil {
			lines = append(lines, fmt.Sprintf("Minimum frequency rule (%s) with frequency %d and safety range %g%%", level(i*2), r.MinFreq, r.Range))
		}
	}
	if s.Zero {
		lines = append(lines, fmt.Sprintf("Zero cells are unsafe, safety range %g", s.ZeroRange))
	}
	if s.MissingSafe {
		lines = append(lines, "Cells with a missing code are safe")
	}
	return lines
}
