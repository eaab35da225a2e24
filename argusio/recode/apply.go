package recode

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Source is the code list of a non-hierarchical variable as τ-Argus holds it
// after reading the data (§5.3): all codes of the same length, sorted
// byte-wise, the total and the missing codes not included.
type Source struct {
	Codes []string
	// Missing1 and Missing2 are the missing codes of the variable, padded to
	// Length; empty means none.
	Missing1, Missing2 string
	Length             int // the variable length
}

// Result is a recoded code list.
type Result struct {
	// Codes is the new code list without the total: the new codes sorted and
	// left-padded to Width, followed by the new missing codes (NumMissing of
	// them), as τ-Argus builds it.
	Codes      []string
	NumMissing int
	Width      int
	// Missing1 and Missing2 are the new missing codes, padded to Width.
	Missing1, Missing2 string
	// Map gives, for every source code (Source.Codes followed by the source
	// missing codes), the index in Codes of its new code, or -1 if τ-Argus
	// leaves it unassigned.
	Map []int
	// Counts behind τ-Argus's warnings.
	Untouched, Overlap, NoSense int
}

// Warning returns τ-Argus's warning text for the recode: one line per
// non-zero count ("Number of untouched codes: n" etc., CRLF-terminated) or
// "Recode OK".
func (r *Result) Warning() string {
	var b strings.Builder
	if r.Untouched > 0 {
		b.WriteString("Number of untouched codes: " + strconv.Itoa(r.Untouched) + "\r\n")
	}
	if r.Overlap > 0 {
		b.WriteString("Number of overlapping codes: " + strconv.Itoa(r.Overlap) + "\r\n")
	}
	if r.NoSense > 0 {
		b.WriteString("Number of \"no sense\" codes: " + strconv.Itoa(r.NoSense) + "\r\n")
	}
	if b.Len() == 0 {
		return "Recode OK"
	}
	return b.String()
}

// recodeState mirrors τ-Argus's CVariable and RECODE structures during
// DoRecode. Index 0 of both lists is the total.
type recodeState struct {
	src      []string // total, codes, missing codes
	nMissSrc int
	length   int
	dest     []int    // per src code: -2 total, -1 untouched, else index in rec
	rec      []string // total, new codes, new missing codes
	nMissRec int
	width    int
	overlap  int
	noSense  int
}

// Apply applies the recode to a variable (τ-Argus DoRecode): syntax and
// length checks of all rules, the list of new codes (sorted), the mapping of
// the source codes with untouched codes keeping their own code, all codes
// padded to the widest new code, and the new missing codes (from <MISSING>,
// else those of the source) appended last. Errors are *poserr.Error values
// at the rule (file, line, column), with τ-Argus's message (see
// [ReadGlobal]) without the position.
//
// Ranges and open ranges select the existing codes between their ends in
// byte-wise order (missing codes excluded); a single code that does not
// exist, or an empty range, counts as "no sense"; codes assigned twice count
// as overlapping. Naming a missing code of the source in a rule is an error
// (ErrMissingToValid).
func (g *Global) Apply(src Source) (*Result, error) {
	rules, err := g.parseRules(src.Length)
	if err != nil {
		return nil, err
	}
	// As τ-Argus's SetMissing: a lone second missing code is the first.
	if src.Missing1 == "" || src.Missing1 == src.Missing2 {
		src.Missing1, src.Missing2 = src.Missing2, ""
	}
	st := newRecodeState(src)
	m1, m2, nMissFile := g.missingCodes(src, st.nMissSrc)

	// The new codes, sorted.
	if err := st.newCodes(g.File, rules); err != nil {
		return nil, err
	}
	// First assignment: finds errors and the untouched codes.
	if err := st.assign(g.File, rules); err != nil {
		return nil, tauWording(err)
	}
	untouched := st.addUntouched()
	st.equalWidth(src, m1, m2)
	rm1, rm2 := st.addMissing(src, m1, m2, nMissFile)

	// Final assignment.
	st.resetDest()
	st.overlap, st.noSense = 0, 0
	if err := st.assign(g.File, rules); err != nil {
		return nil, tauWording(err)
	}
	st.mapRest()
	return st.result(rm1, rm2, untouched), nil
}

// parseRules parses a copy of the rules for a variable of length srcLen.
func (g *Global) parseRules(srcLen int) ([]Rule, error) {
	rules := make([]Rule, len(g.Rules))
	copy(rules, g.Rules)
	for i := range rules {
		rules[i].Items = nil
		if err := parseRule(g.File, &rules[i], srcLen); err != nil {
			return nil, tauWording(err)
		}
	}
	return rules, nil
}

// newRecodeState lists the source codes: the total, the codes, the
// missing codes; all untouched.
func newRecodeState(src Source) *recodeState {
	st := &recodeState{length: src.Length}
	st.src = append(st.src, "")
	st.src = append(st.src, src.Codes...)
	for _, m := range []string{src.Missing1, src.Missing2} {
		if m != "" {
			st.src = append(st.src, m)
			st.nMissSrc++
		}
	}
	st.resetDest()
	return st
}

// missingCodes returns the missing codes the recode asks for (from
// <MISSING>, else those of the source) and how many the file gives.
func (g *Global) missingCodes(src Source, nMissSrc int) (m1, m2 string, nMissFile int) {
	m1, m2 = g.Missing1, g.Missing2
	if strings.TrimSpace(m1) != "" {
		nMissFile = 1
	}
	if strings.TrimSpace(m2) != "" {
		nMissFile = 2
	}
	if m1 == "" && m2 != "" {
		m1 = m2
	}
	if m1 == "" && m2 == "" {
		m1 = src.Missing1
		if nMissSrc == 2 {
			m2 = src.Missing2
		} else {
			m2 = m1
		}
	}
	return m1, m2, nMissFile
}

// newCodes lists the new codes of the rules, sorted, after the total.
func (st *recodeState) newCodes(file string, rules []Rule) error {
	st.rec = []string{""}
	for _, r := range rules {
		for range r.Items {
			st.addRecode(r.Dest)
		}
	}
	if len(st.rec) < 2 {
		first := Rule{Index: 1}
		if len(rules) > 0 {
			first = rules[0]
		}
		return tauWording(ruleError(file, ErrEmptySpec, &first, 1))
	}
	slices.Sort(st.rec)
	return nil
}

// addUntouched adds the untouched source codes (not missing) as new codes
// of their own and returns how many there are.
func (st *recodeState) addUntouched() int {
	untouched := 0
	for i := 0; i < len(st.src)-st.nMissSrc; i++ {
		if st.dest[i] == -1 {
			untouched++
			st.addRecode(st.src[i])
		}
	}
	return untouched
}

// equalWidth pads the new codes to the widest of them and of the missing
// codes (MakeRecodelistEqualWidth).
func (st *recodeState) equalWidth(src Source, m1, m2 string) {
	width := 0
	if m1 == "" && m2 == "" {
		width = max(len(src.Missing1), len(src.Missing2))
	}
	for _, c := range st.rec[1:] {
		width = max(width, len(c))
	}
	width = max(width, len(m1), len(m2))
	st.width = width
	for i := 1; i < len(st.rec); i++ {
		st.rec[i] = lex.PadLeft(st.rec[i], width)
	}
}

// addMissing moves the new missing codes to the end of the new codes and
// returns them, padded.
func (st *recodeState) addMissing(src Source, m1, m2 string, nMissFile int) (rm1, rm2 string) {
	width := st.width
	hasMissing := !(nMissFile == 0 && st.nMissSrc == 0)
	if hasMissing {
		for _, m := range []string{m1, m2} {
			if n, _ := binSearch(st.rec, lex.PadLeft(m, width), 0); n >= 0 {
				st.rec = slices.Delete(st.rec, n, n+1)
			}
		}
	}
	slices.Sort(st.rec)
	if !hasMissing {
		return "", ""
	}
	switch {
	case m1 == "" && m2 == "":
		rm1, rm2 = src.Missing1, src.Missing2
	case m1 == "":
		rm1, rm2 = m2, m1
	default:
		rm1, rm2 = m1, m2
	}
	switch {
	case rm2 == "":
		rm2 = rm1
		st.nMissRec = 1
	case rm1 == rm2:
		st.nMissRec = 1
	default:
		st.nMissRec = 2
	}
	rm1 = lex.PadLeft(rm1, width)
	st.addRecode(rm1)
	if st.nMissRec == 2 {
		rm2 = lex.PadLeft(rm2, width)
		st.addRecode(rm2)
	} else {
		rm2 = rm1
	}
	return rm1, rm2
}

// mapRest maps the source missing codes no rule assigned to the new missing
// codes, and the other unassigned source codes to their own padded code.
func (st *recodeState) mapRest() {
	nRec := len(st.rec)
	if first := len(st.src) - st.nMissSrc; st.nMissSrc > 0 && first < len(st.src) {
		if st.dest[first] == -1 {
			st.dest[first] = nRec - st.nMissRec
		}
		if st.nMissSrc == 2 && st.dest[first+1] == -1 {
			if st.nMissRec == 2 {
				st.dest[first+1] = nRec - st.nMissRec + 1
			} else {
				st.dest[first+1] = nRec - st.nMissRec
			}
		}
	}
	for i := 0; i < len(st.src)-st.nMissSrc; i++ {
		if st.dest[i] == -1 {
			st.dest[i], _ = binSearch(st.rec, lex.PadLeft(st.src[i], st.width), st.nMissRec)
		}
	}
}

// result is the recoded code list, without the total.
func (st *recodeState) result(rm1, rm2 string, untouched int) *Result {
	res := &Result{
		Codes:      st.rec[1:],
		NumMissing: st.nMissRec,
		Width:      st.width,
		Missing1:   rm1,
		Missing2:   rm2,
		Map:        make([]int, len(st.src)-1),
		Untouched:  untouched,
		Overlap:    st.overlap,
		NoSense:    st.noSense,
	}
	for i := 1; i < len(st.src); i++ {
		d := st.dest[i]
		if d > 0 {
			d-- // without the total
		} else {
			d = -1
		}
		res.Map[i-1] = d
	}
	return res
}

// resetDest marks every source code untouched, the total as a (sub)total.
func (st *recodeState) resetDest() {
	st.dest = make([]int, len(st.src))
	for i := range st.dest {
		st.dest[i] = -1
	}
	st.dest[0] = -2
}

// tauWording makes τ-Argus's message, without the position, the message of
// e, as Apply has always reported it.
func tauWording(e *poserr.Error) *poserr.Error {
	e.Msg = e.Err.Error()
	return e
}

// addRecode appends code to the new code list unless it is there already.
func (st *recodeState) addRecode(code string) {
	if !slices.Contains(st.rec, code) {
		st.rec = append(st.rec, code)
	}
}

// assign runs τ-Argus's SRCCODE phase over all rules.
func (st *recodeState) assign(file string, rules []Rule) *poserr.Error {
	for _, r := range rules {
		for _, it := range r.Items {
			if st.setCode(r.Dest, it) {
				return ruleError(file, ErrMissingToValid, &r, it.Pos)
			}
		}
	}
	return nil
}

// setCode ports SetCode2Recode; it reports true for the fatal case of a
// missing source code assigned to a non-missing new code.
func (st *recodeState) setCode(destCode string, it Item) bool {
	src1 := lex.PadLeft(it.From, st.length)
	src2 := lex.PadLeft(it.To, st.length)
	nCodes := len(st.src) - st.nMissSrc
	locate := func(code string) (int, bool, bool) {
		c, missing := binSearch(st.src, code, st.nMissSrc)
		if c >= 0 {
			return c, true, missing
		}
		if st.src[nCodes-1] < code {
			return nCodes, false, false
		}
		c = 0
		for st.src[c] < code {
			c++
		}
		return c, false, false
	}
	c1, exact, src1Missing := locate(src1)
	src2Missing := false
	var c2 int
	switch it.Kind {
	case UpTo:
		c2 = c1
		if !exact {
			c2--
		}
		c1 = 0
	case Single:
		if !exact {
			st.noSense++
			return false
		}
		c2 = c1
	case From:
		c2 = nCodes - 1
	case Range:
		c2, exact, src2Missing = locate(src2)
		if !exact {
			c2--
		}
	}
	if c2 < c1 {
		st.noSense++
		return false
	}
	destIndex, destMissing := binSearch(st.rec, lex.PadLeft(destCode, st.width), st.nMissRec)
	if !destMissing && (src1Missing || src2Missing) {
		return true
	}
	if destIndex < 0 {
		return false // τ-Argus: PROGRAMERROR, ignored
	}
	for c := c1; c <= c2 && c < len(st.dest); c++ {
		d := st.dest[c]
		if d >= 0 {
			st.overlap++
		}
		if d != -2 {
			st.dest[c] = destIndex
		}
	}
	return false
}

// binSearch ports τ-Argus's BinSearchStringArray: std::lower_bound over all
// but the last nMissing entries (which need not be sorted, τ-Argus does not
// care), then a linear search of the last nMissing entries. It returns the
// index or -1 and whether x was found among the missing entries.
func binSearch(s []string, x string, nMissing int) (int, bool) {
	n := len(s) - nMissing
	first, count := 0, n
	for count > 0 {
		half := count / 2
		mid := first + half
		if s[mid] < x {
			first = mid + 1
			count -= half + 1
		} else {
			count = half
		}
	}
	if first < n && s[first] == x {
		return first, false
	}
	for m := n; m < len(s); m++ {
		if s[m] == x {
			return m, true
		}
	}
	return -1, false
}
