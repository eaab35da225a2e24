package view

import (
	"fmt"
	"io"
	"strings"
)

// Side is one of two compared patterns.
type Side struct {
	// Name is the file (or label) of the side, Audit its audit verdict
	// ("" when not audited).
	Name, Audit string
	Counts
}

// Comparison is two patterns of the same table, cell by cell.
type Comparison struct {
	A, B Side
	// OnlyA and OnlyB count the cells hidden by one side only, Both those
	// hidden by both.
	OnlyA, OnlyB, Both int
	// Differ counts the cells both publish with different values.
	Differ int
	// Confidential tells that hidden values are shown.
	Confidential bool
}

// Compare compares two patterns of one table: they must have the same
// dimension sizes (the cells are matched by position).
func Compare(a, b *Table) (*Comparison, error) {
	if err := sameShape(a, b); err != nil {
		return nil, err
	}
	c := &Comparison{A: Side{Name: a.Source, Audit: a.Audit}, B: Side{Name: b.Source, Audit: b.Audit},
		Confidential: a.Confidential || b.Confidential}
	for i := range a.Cells {
		ca, cb := a.Cells[i], b.Cells[i]
		c.A.add(ca)
		c.B.add(cb)
		ha, hb := ca.Status.IsSuppressed(), cb.Status.IsSuppressed()
		switch {
		case ha && hb:
			c.Both++
		case ha:
			c.OnlyA++
		case hb:
			c.OnlyB++
		case ca.Shown == ShowValue && cb.Shown == ShowValue && number(ca.Value, a.Decimals) != number(cb.Value, a.Decimals):
			c.Differ++
		}
	}
	return c, nil
}

// sameShape checks that a and b span the same cells.
func sameShape(a, b *Table) error {
	if len(a.Cells) != len(b.Cells) || len(a.Dims) != len(b.Dims) {
		return fmt.Errorf("%s (%d cells, %d dimensions) and %s (%d cells, %d dimensions) are not the same table",
			a.Source, len(a.Cells), len(a.Dims), b.Source, len(b.Cells), len(b.Dims))
	}
	for d := range a.Dims {
		if len(a.Dims[d].Codes) != len(b.Dims[d].Codes) {
			return fmt.Errorf("dimension %d has %d codes in %s and %d in %s", d+1, len(a.Dims[d].Codes), a.Source, len(b.Dims[d].Codes), b.Source)
		}
	}
	return nil
}

// Line is the comparison in one line, for a terminal: hidden cells of
// each side (their value when confidential), the cells hidden by one side
// only, and each side's audit verdict.
func (c *Comparison) Line() string {
	side := func(s Side) string {
		str := fmt.Sprintf("%s: %d hidden (%d primary, %d secondary)", s.Name, s.Hidden, s.Primary, s.Secondary)
		if c.Confidential {
			str += fmt.Sprintf(", hidden value %.10g", s.HiddenValue)
		}
		return str + ", audit " + orNot(s.Audit)
	}
	return fmt.Sprintf("%s; %s; hidden only in A: %d, only in B: %d, in both: %d; published differently: %d",
		side(c.A), side(c.B), c.OnlyA, c.OnlyB, c.Both, c.Differ)
}

func orNot(s string) string {
	if strings.TrimSpace(s) == "" {
		return "not audited"
	}
	return s
}

// WriteComparison writes the comparison of a and b as one self-contained
// HTML page: the summary of both sides, then the grid of a with the cells
// hidden by one side only coloured (with b's variables and codes when a,
// a JJ file, has none).
func WriteComparison(w io.Writer, a, b *Table, c *Comparison) error {
	if a.Numbered && !b.Numbered { // show B's variables and codes
		labelled := *a
		labelled.Dims, labelled.Title, labelled.Note, labelled.Numbered = b.Dims, b.Title, "", false
		a = &labelled
	}
	s, err := newSection(a, b)
	if err != nil {
		return err
	}
	p := pageData{Title: "Comparison: " + a.Source + " and " + b.Source, Sections: []section{s},
		Confidential: c.Confidential, Compare: c}
	return pages.ExecuteTemplate(w, "page", p)
}
