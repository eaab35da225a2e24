package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// javaCode returns a code as the Java writers print it: the total label for
// the total, no quote replacement, wrapped in quotes with QU+.
func javaCode(d *table.Dimension, i int, quotes bool) string {
	s := d.Label(i)
	if quotes {
		return `"` + s + `"`
	}
	return s
}

// TopNColumns returns the number of top-n columns of an intermediate file:
// 0 with SO+, else the number of holding-level (HI+) or individual top
// contributions the rules keep.
func TopNColumns(t *table.Table, o Options) int {
	switch {
	case o.StatusOnly:
		return 0
	case o.Holding:
		return t.Rules.HoldingTopN
	}
	return t.Rules.TopN
}

// WriteIntermediate writes the data part of output type 5, the intermediate
// .tab file that τ-Argus can read back (Java TableSet.write, §11.4). One
// line per cell in cell order (SE+ skips cells whose status is exactly
// Empty), fields separated by ';', no ';' after the last:
//
//  1. the codes (quoted with QU+, the total as its label);
//  2. the value (the rounded value after rounding);
//  3. unless the table is a microdata frequency table: the frequency (the
//     holding frequency with HI+) and, unless SO+, the shadow value;
//  4. the cost after the λ transform;
//  5. unless SO+: the top-n contributions ([TopNColumns] of them; slots
//     beyond the cell's (holding) frequency written as 0);
//  6. the status letter ([cellstatus.Status.IntermediateLetter]);
//  7. the lower and upper protection levels;
//     after interval protection, then the lower and upper end of the
//     published interval;
//  8. with AR+: realised lower and upper bound, their difference, then
//     "0;0;0" for a zero value or a safe (1, 2, 13) cell, else the three
//     percentages 100·(v−rl)/v, 100·(ru−v)/v, 100·(ru−rl)/v with 2 decimals.
//
// Numbers are formatted like Java's DecimalFormat with the response decimals
// and Options.DecimalSeparator; frequencies are plain integers.
func WriteIntermediate(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	dec := t.Response.Decimals
	sep := o.sep()
	f := func(x float64) { s.str(numfmt.Java(x, dec, sep)) }
	ntop := TopNColumns(t, o)
	javaRecords(s, t, o, func(c *table.Cell) {
		pc := Publish(t, c, TypeIntermediate, o)
		s.str(pc.Value.Text)
		s.byte(';')
		freq, top := c.Freq, c.TopN
		if o.Holding {
			freq, top = c.HoldingFreq, c.HoldingTopN
		}
		if t.Frequency != table.FrequencyMicrodata {
			s.str(strconv.FormatInt(freq, 10))
			s.byte(';')
			if !o.StatusOnly {
				f(c.Shadow)
				s.byte(';')
			}
		}
		f(t.CostValue(c))
		s.byte(';')
		for j := 0; j < ntop; j++ {
			v := 0.0
			if int64(j) < freq && j < len(top) {
				v = top[j]
			}
			f(v)
			s.byte(';')
		}
		if l := c.Status.IntermediateLetter(); l != 0 {
			s.byte(l)
		}
		s.byte(';')
		f(c.LowerPL)
		s.byte(';')
		f(c.UpperPL)
		if pc.Interval {
			s.byte(';')
			s.str(pc.Lower.Text)
			s.byte(';')
			s.str(pc.Upper.Text)
		}
		if o.AddAudit {
			s.byte(';')
			f(c.RealizedLower)
			s.byte(';')
			f(c.RealizedUpper)
			s.byte(';')
			f(c.RealizedUpper - c.RealizedLower)
			if c.Value == 0 || c.Status.Category() == cellstatus.CategorySafe {
				s.str(";0;0;0")
			} else {
				p := func(x float64) { s.str(numfmt.Java(x, 2, sep)) }
				s.byte(';')
				p(100 * (c.Value - c.RealizedLower) / c.Value)
				s.byte(';')
				p(100 * (c.RealizedUpper - c.Value) / c.Value)
				s.byte(';')
				p(100 * (c.RealizedUpper - c.RealizedLower) / c.Value)
			}
		}
	})
	return s.flush("intermediate file")
}

// javaRecords writes one line per cell of t in cell order, leaving out the
// empty cells with Options.SuppressEmpty: the codes of the cell, each
// followed by ';', then what row writes, then the newline.
func javaRecords(s *sink, t *table.Table, o Options, row func(c *table.Cell)) {
	idx := make([]int, len(t.Dims))
	for ci := range t.Cells {
		c := &t.Cells[ci]
		if o.SuppressEmpty && c.Status == cellstatus.Empty {
			continue
		}
		idx = t.Coords(ci, idx)
		for d := range t.Dims {
			s.str(javaCode(&t.Dims[d], idx[d], o.Quotes))
			s.byte(';')
		}
		row(c)
		s.line()
	}
}

// ReplaceExtension replaces the extension of a file name (from its last '.'
// after the last path separator) by ext, as τ-Argus's
// StrUtils.replaceExtension does; ext includes the dot if one is wanted
// (".rda"), and a name without extension gets ext appended.
func ReplaceExtension(name, ext string) string {
	slash := strings.LastIndexAny(name, `/\`)
	if dot := strings.LastIndexByte(name, '.'); dot > slash {
		return name[:dot] + ext
	}
	return name + ext
}

// MetadataName returns the name of the metadata file τ-Argus writes next to
// an intermediate or CKM output file: the output name with extension
// ".rda".
func MetadataName(out string) string { return ReplaceExtension(out, ".rda") }

// RecodedHRCName returns the name of the hierarchy file τ-Argus writes for a
// recoded hierarchical dimension of an intermediate output whose metadata
// file is rda: the extension of rda replaced by "<MetaIndex>_New.HRC".
func RecodedHRCName(rda string, d *table.Dimension) string {
	return ReplaceExtension(rda, strconv.Itoa(d.MetaIndex)+"_New.HRC")
}

// WriteHRC writes the code list of dimension d as a hierarchy file (Java
// Metadata.writeHrcFile): every non-missing code except the total, one per
// line, preceded by (level−1) copies of lead.
func WriteHRC(w io.Writer, d *table.Dimension, lead string, o Options) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	s := newSink(w, o.newline())
	for i := 1; i < d.Len(); i++ {
		c := d.Codes[i]
		if c.Missing {
			continue
		}
		s.str(strings.Repeat(lead, max(c.Level-1, 0)))
		s.str(c.Label)
		s.line()
	}
	return s.flush("hierarchy file")
}

// quote is StrUtils.quote: the text between double quotes.
func quote(s string) string { return `"` + s + `"` }

// writeDimension writes the metadata block of an explanatory variable (Java
// Metadata.writeVariable for a free-format tabular file).
func writeDimension(s *sink, d *table.Dimension, rda string) {
	s.str(d.Name)
	for _, m := range d.MissingCodes {
		if strings.TrimSpace(m) != "" {
			s.str(" " + quote(m))
		}
	}
	s.line()
	s.str("    <RECODEABLE>")
	s.line()
	s.str("    <TOTCODE> " + quote(d.TotalLabel()))
	s.line()
	if d.Distance != nil {
		s.str("    <DISTANCE>")
		for _, v := range d.Distance {
			s.str(" " + strconv.Itoa(v))
		}
		s.line()
	}
	if d.CodelistFile != "" {
		s.str("    <CODELIST> " + quote(d.CodelistFile))
		s.line()
	}
	if !d.Hierarchical() {
		return
	}
	s.str("    <HIERARCHICAL>")
	s.line()
	switch {
	case d.Recoded:
		s.str("    <HIERCODELIST> " + quote(RecodedHRCName(rda, d)))
		s.line()
		s.str("    <HIERLEADSTRING> " + quote("@"))
		s.line()
	case d.Hierarchy == table.HierLevels:
		s.str("    <HIERLEVELS>")
		for _, v := range d.HierLevels {
			if v != 0 {
				s.str(" " + strconv.Itoa(v))
			}
		}
		s.line()
	case d.Hierarchy == table.HierFile:
		s.str("    <HIERCODELIST> " + quote(d.HierFile))
		s.line()
		s.str("    <HIERLEADSTRING> " + quote(d.LeadString))
		s.line()
	}
}

func writeResponse(s *sink, v table.Variable) {
	s.str(v.Name)
	s.line()
	s.str("    <NUMERIC>")
	s.line()
	if v.Decimals > 0 {
		s.str("    <DECIMALS> " + strconv.Itoa(v.Decimals))
		s.line()
	}
}

// WriteIntermediateMetadata writes the .rda companion of an intermediate
// file (Java Metadata.writeTableMetadata, §11.4). rda is the name of the
// metadata file being written (see [MetadataName]); it is used only to name
// the hierarchy files of recoded hierarchical dimensions (see
// [RecodedHRCName]; write those with [WriteHRC] using the dimension's own
// lead string — the metadata always says "@", as τ-Argus does).
//
// Layout: "   <SEPARATOR> \";\"", one block per dimension (name plus quoted
// missing codes, <RECODEABLE>, <TOTCODE>, optional <DISTANCE>, <CODELIST>
// and hierarchy keywords), the response (omitted for microdata frequency
// tables), FreqVar, the shadow (omitted with SO+ or for microdata frequency
// tables; "<resp>_Shadow" when no shadow variable was given), the cost
// (FreqCost, UnitCost, DistCost, the cost variable, "<resp>_Cost" or
// "FreqVar_Cost"), Top1…Topk (omitted with SO+), StatusVar, LowerProtLevel,
// UpperProtLevel and, with AR+, seven comment lines naming the audit
// columns.
func WriteIntermediateMetadata(w io.Writer, t *table.Table, o Options, rda string) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	kv := func(a, b string) {
		s.str(a)
		s.line()
		s.str(b)
		s.line()
	}
	s.str(`   <SEPARATOR> ";"`)
	s.line()
	for d := range t.Dims {
		writeDimension(s, &t.Dims[d], rda)
	}
	builtin := t.Frequency == table.FrequencyMicrodata
	if !builtin {
		writeResponse(s, t.Response)
	}
	kv("FreqVar", "    <FREQUENCY>")
	// A shadow or cost variable that is the response itself is named
	// <resp>_Shadow / <resp>_Cost, as without one: the file has its own
	// column for it, and a second variable named like the response would
	// make the metadata ambiguous (τ-Argus's SAS2Argus output
	// Example1_Out_5_1.rda for "Resp"|"Resp"|"Resp").
	isResponse := func(name string) bool { return charset.EqualFold(name, t.Response.Name) }
	if !builtin && !o.StatusOnly {
		name := t.ShadowName
		if name == "" || isResponse(name) {
			name = t.Response.Name + "_Shadow"
		}
		kv(name, "    <NUMERIC> <SHADOW>")
	}
	switch t.Cost.Kind {
	case table.CostFrequency:
		s.str("FreqCost")
	case table.CostUnity:
		s.str("UnitCost")
	case table.CostDistance:
		s.str("DistCost")
	case table.CostVariable:
		if !builtin && isResponse(t.Cost.Name) {
			s.str(t.Response.Name + "_Cost")
		} else {
			s.str(t.Cost.Name)
		}
	default:
		if builtin {
			s.str("FreqVar_Cost")
		} else {
			s.str(t.Response.Name + "_Cost")
		}
	}
	s.line()
	s.str("    <NUMERIC> <COSTVAR>")
	s.line()
	for i := 1; i <= TopNColumns(t, o); i++ {
		kv("Top"+strconv.Itoa(i), "    <MAXSCORE>")
	}
	kv("StatusVar", "    <STATUS>")
	kv("LowerProtLevel", "    <NUMERIC> <LOWERPL>")
	kv("UpperProtLevel", "    <NUMERIC> <UPPERPL>")
	if t.Method == table.MethodInterval {
		// Plain numeric variables: a reader takes them as further
		// responses.
		for _, end := range []string{"_Lower", "_Upper"} {
			writeResponse(s, table.Variable{Name: t.Response.Name + end, Decimals: t.Response.Decimals})
		}
	}
	if o.AddAudit {
		for _, l := range []string{
			"//The audit info cannot be read back into TauArgus",
			"//Lower auditlevel",
			"//Upper auditlevel",
			"//Audit range",
			"//Percentage lower auditrange",
			"//Percentage upper auditrange",
			"//Percentage audit range",
		} {
			s.str(l)
			s.line()
		}
	}
	return s.flush("intermediate metadata")
}

// WriteCKM writes the data part of output type 7, the cell-key method file
// (Java TableSet.writeCKM, §11.6): per cell (SE+ skips cells whose status is
// exactly Empty) the codes followed by ';' (quoted with QU+), the perturbed
// value, then ";original" with AO+, ";perturbed−original" with AD+ and
// ";cellkey" with AC+ (with the decimals of the record-key variable).
// Numbers are formatted like Java's DecimalFormat with
// Options.DecimalSeparator.
func WriteCKM(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	dec := t.Response.Decimals
	sep := o.sep()
	javaRecords(s, t, o, func(c *table.Cell) {
		s.str(Publish(t, c, TypeCKM, o).Value.Text)
		if o.CKMOriginal {
			s.byte(';')
			s.str(numfmt.Java(c.Value, dec, sep))
		}
		if o.CKMDifference {
			s.byte(';')
			s.str(numfmt.Java(c.Perturbed-c.Value, dec, sep))
		}
		if o.CKMCellKey {
			s.byte(';')
			s.str(numfmt.Java(c.CellKey, t.CellKey.Decimals, sep))
		}
	})
	return s.flush("CKM file")
}

// WriteCKMMetadata writes the .rda companion of a CKM file (Java
// Metadata.writeCKMMetadata): the separator line, the dimension blocks, the
// response as <NUMERIC>, then OrigVar and Difference as <NUMERIC> and CellKey
// as <CELLKEY> when the corresponding options are on. rda is the metadata
// file name (used for recoded hierarchies as in
// [WriteIntermediateMetadata]).
func WriteCKMMetadata(w io.Writer, t *table.Table, o Options, rda string) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	s.str(`   <SEPARATOR> ";"`)
	s.line()
	for d := range t.Dims {
		writeDimension(s, &t.Dims[d], rda)
	}
	writeResponse(s, t.Response)
	if o.CKMOriginal {
		s.str("OrigVar")
		s.line()
		s.str("    <NUMERIC>")
		s.line()
	}
	if o.CKMDifference {
		s.str("Difference")
		s.line()
		s.str("    <NUMERIC>")
		s.line()
	}
	if o.CKMCellKey {
		s.str("CellKey")
		s.line()
		s.str("    <CELLKEY>")
		s.line()
	}
	return s.flush("CKM metadata")
}
