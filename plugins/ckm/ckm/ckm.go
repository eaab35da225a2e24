// Package ckm is the cell key method (CKM) of τ-Argus 4.2 for frequency and
// magnitude tables: every cell carries a cell key in [0,1) (the fractional
// part of the sum of its records' keys) and a perturbation table (p-table,
// package argusio/ptable) turns the cell's value and key into noise. The
// noise depends on nothing else, so the same cell gets the same noise in
// every table and on every machine; the perturbed tables are not additive.
//
// Frequency tables (Giessing 2016, "Computational Issues in the Design of
// Transition Probabilities and Disclosure Risk Estimation for Additive
// Noise", PSD 2016): a count n takes the noise j − i of the first transition
// of p-table row i = min(n, last row) whose cumulated probability exceeds the
// cell key.
//
// Magnitude tables (Gießing & Tent 2019, "Concepts for generalising tools
// implementing the cell key method to the case of continuous variables",
// UNECE SDC work session): the k largest contributions x_1..x_k (or the
// mean, the largest minus the smallest contribution, or the value itself)
// are scaled by a flex function of σ0, σ1, x* and
// q, each draws a noise factor V_j from the p-table with a cell key whose
// first digit is moved to the end once per draw, and the value moves by
// Σ ε_j·flex(x_j)·x_j·V_j; unsafe cells are pushed at least μ_C·flex(x_1)·x_1
// away; contributions below the separation point z_s (from the separation
// p-table's standard deviation) are perturbed with the separation p-table
// instead; the first step never changes the sign of the value.
//
// The steps follow τ-Argus 4.2's implementation (SetCellKeyValuesFreq and
// SetCellKeyValuesCont of its C++ library); the cell key digit shift is
// done on the key's decimal digits exactly. Every product that is added to
// something is rounded explicitly (float64(a*b)): Go may otherwise fuse it
// into one multiply-add on some processors (arm64, ppc64, s390x) but not on
// amd64, and the same cell must get the same noise on every machine.
package ckm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Type is the CKM type of a magnitude response: which contributions are
// perturbed.
type Type string

// The magnitude CKM types of τ-Argus (<CKM> in the .rda).
const (
	TypeTopK  Type = "T" // the k largest contributions
	TypeMean  Type = "M" // the mean contribution
	TypeRange Type = "D" // the largest minus the smallest contribution
	TypeValue Type = "V" // the cell value
)

// Magnitude holds the parameters of magnitude CKM (the .rda's <CKM>,
// <PARITY>, <SEPARATION> and <SCALING>, and the batch line's μ_C).
type Magnitude struct {
	Type Type
	// TopK is k of T(k); 1 for the other types.
	TopK int
	// Parity: even and odd cell frequencies use the p-table's even and odd
	// rows; otherwise its rows of type all.
	Parity bool
	// Separation: small contributions use the separation p-table Sep.
	Separation bool
	// FlexScaling selects the flex function (scaling F); false is scaling N
	// (σ1 alone).
	FlexScaling bool
	// Sigma0, Sigma1, XStar and Q are the flex function's parameters.
	Sigma0, Sigma1, XStar, Q float64
	// Epsilon holds ε_1..ε_k; ε_1 is 1.
	Epsilon []float64
	// MuC is the extra push of unsafe cells (μ_C ≥ 0).
	MuC float64
	// Weighted: the table's values are weighted sums. As τ-Argus, type T
	// then perturbs each top contribution times its record's weight
	// (Cells.TopWeight) and type M the weighted mean (Cells.Value over
	// Cells.Weight); types D and V are computed as without weights (D from
	// the unweighted contributions, V from the weighted value).
	Weighted bool
	// KeyDecimals is the number of decimals of the record key, the digits
	// of the cell key that are shifted (1..MaxKeyDecimals).
	KeyDecimals int
	// Cont and Sep are the p-tables for large and small contributions.
	Cont, Sep *ptable.Table
}

// MaxKeyDecimals is the precision of cell keys (they are sums modulo 1 in
// units of 10^-15).
const MaxKeyDecimals = 15

// Check checks the parameters.
func (m *Magnitude) Check() error {
	switch m.Type {
	case TypeTopK, TypeMean, TypeRange, TypeValue:
	default:
		return fmt.Errorf("CKM type %q: only T (top k), M (mean), D (largest minus smallest contribution) and V (value) are supported", m.Type)
	}
	if m.TopK < 1 || (m.Type != TypeTopK && m.TopK != 1) {
		return fmt.Errorf("top k %d: it must be at least 1, and 1 unless the type is T", m.TopK)
	}
	if len(m.Epsilon) != m.TopK {
		return fmt.Errorf("%d epsilons for top k %d", len(m.Epsilon), m.TopK)
	}
	if m.Epsilon[0] != 1 {
		return errors.New("epsilon 1 must be 1")
	}
	if m.KeyDecimals < 1 || m.KeyDecimals > MaxKeyDecimals {
		return fmt.Errorf("the record key has %d decimals; magnitude CKM needs 1 to %d (the cell key's digits it shifts)", m.KeyDecimals, MaxKeyDecimals)
	}
	if !(m.Sigma1 > 0) || (m.FlexScaling && (!(m.Sigma0 > 0) || !(m.XStar > 0) || !(m.Q > 0))) {
		return errors.New("scaling: sigma1 (and for F also sigma0, x* and q) must be positive")
	}
	if m.MuC < 0 {
		return errors.New("muC must not be negative")
	}
	if m.Cont == nil || m.Cont.Kind != ptable.Magnitude {
		return errors.New("no magnitude p-table")
	}
	if m.Parity && !(m.Cont.Has(ptable.TypeEven) && m.Cont.Has(ptable.TypeOdd)) {
		return fmt.Errorf("p-table %s has no even and odd rows, which parity needs", m.Cont.File)
	}
	if !m.Parity && !m.Cont.Has(ptable.TypeAll) {
		return fmt.Errorf("p-table %s has no rows of type all, which CKM without parity needs", m.Cont.File)
	}
	if m.Separation && (m.Sep == nil || !m.Sep.Has(ptable.TypeAll)) {
		return errors.New("separation needs a separation p-table with rows of type all")
	}
	return nil
}

// Result is the perturbation of a table.
type Result struct {
	// Values are the perturbed values (0 for empty cells, the value itself
	// for protected cells).
	Values []float64
	// Noise is Values − the original values.
	Noise []float64
}

func checkKeys(p *pluginsdk.Problem) error {
	if len(p.Cells.CellKey) != p.NumCells() {
		return errors.New("the table has no cell keys (its microdata have no <RECORDKEY> variable)")
	}
	for i, k := range p.Cells.CellKey {
		if !(k >= 0 && k < 1) {
			return fmt.Errorf("cell %d: cell key outside [0,1)", i)
		}
	}
	return nil
}

// Frequency perturbs the counts (Cells.Freq) of a frequency table with the
// frequency p-table pt. With weighted, the cell values are weighted counts
// and the perturbed count n + d is scaled by the cell's mean weight, as
// τ-Argus does: (n + d)·value/n.
func Frequency(ctx context.Context, p *pluginsdk.Problem, pt *ptable.Table, weighted bool) (*Result, error) {
	n := p.NumCells()
	if err := checkKeys(p); err != nil {
		return nil, err
	}
	if len(p.Cells.Freq) != n {
		return nil, errors.New("the table has no frequencies")
	}
	if pt == nil || !pt.Has(ptable.TypeAll) {
		return nil, errors.New("no frequency p-table")
	}
	r := &Result{Values: make([]float64, n), Noise: make([]float64, n)}
	for i := range n {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		f := p.Cells.Freq[i]
		switch s := p.Cells.Status[i]; {
		case s == cellstatus.Empty:
			r.Noise[i] = -p.Cells.Value[i]
		case s == cellstatus.Protected:
			r.Values[i] = p.Cells.Value[i]
		default:
			r.Values[i] = pt.PerturbedCount(f, p.Cells.Value[i], p.Cells.CellKey[i], weighted)
			r.Noise[i] = r.Values[i] - p.Cells.Value[i]
		}
	}
	return r, nil
}

// Perturb perturbs the values of a magnitude table. The top
// contributions (type T) come from Cells.Top (and Cells.TopWeight when
// weighted), the mean (type M) from Cells.Value and Cells.Freq (Cells.Weight
// when weighted), the range (type D) from Cells.Top and
// Cells.MinContribution.
func (m *Magnitude) Perturb(ctx context.Context, p *pluginsdk.Problem) (*Result, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	n := p.NumCells()
	if err := checkKeys(p); err != nil {
		return nil, err
	}
	if (m.Type == TypeMean || m.Parity || m.TopK > 1) && len(p.Cells.Freq) != n {
		return nil, errors.New("the table has no frequencies")
	}
	if m.Type == TypeTopK && (p.TopN < m.TopK || len(p.Cells.Top) != n*p.TopN) {
		return nil, fmt.Errorf("the table has %d top contributions per cell; CKM T(%d) needs %d", p.TopN, m.TopK, m.TopK)
	}
	if m.Type == TypeTopK && m.Weighted && len(p.Cells.TopWeight) != n*p.TopN {
		return nil, errors.New("the table has no weights of its top contributions, which CKM T on a weighted table needs")
	}
	if m.Type == TypeMean && m.Weighted && len(p.Cells.Weight) != n {
		return nil, errors.New("the table has no weight sums, which CKM M on a weighted table needs")
	}
	if m.Type == TypeRange && (p.TopN < 1 || len(p.Cells.Top) != n*p.TopN || len(p.Cells.MinContribution) != n) {
		return nil, errors.New("the table has no largest and smallest contributions, which CKM D needs")
	}
	e := 0.0
	for _, eps := range m.Epsilon {
		e += float64(eps * eps)
	}
	zs := 0.0
	if m.Separation {
		zs = m.Sep.SecondMoment() / (m.Sigma1 * math.Sqrt(e))
	}
	r := &Result{Values: make([]float64, n), Noise: make([]float64, n)}
	for i := range n {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		x := p.Cells.Value[i]
		switch s := p.Cells.Status[i]; {
		case s == cellstatus.Empty:
			r.Noise[i] = -x
			continue
		case s == cellstatus.Protected:
			r.Values[i] = x
			continue
		}
		r.Values[i] = m.cell(p, i, zs)
		r.Noise[i] = r.Values[i] - x
	}
	return r, nil
}

// cell perturbs cell i (τ-Argus's steps j = 1..k).
func (m *Magnitude) cell(p *pluginsdk.Problem, i int, zs float64) float64 {
	typ := ptable.TypeAll
	if m.Parity {
		typ = ptable.TypeOdd
		if p.Cells.Freq[i]%2 == 0 {
			typ = ptable.TypeEven
		}
	}
	key := newKey(p.Cells.CellKey[i], m.KeyDecimals)
	key.shift()
	x := p.Cells.Value[i]
	xj := m.contribution(p, i, 1)
	muC := 0.0
	if s := p.Cells.Status[i]; s >= cellstatus.UnsafeRule && s <= cellstatus.UnsafeManual && math.Abs(xj) >= zs {
		muC = m.MuC
	}
	xdelta := 1.0
	if math.Abs(xj) >= zs {
		xdelta = xj * m.flex(math.Abs(xj), zs)
	}
	if math.Abs(x) < math.Abs(xdelta) {
		xdelta = x
		xj = x / m.Sigma1
		if math.Abs(xj) < zs {
			xdelta = 1
		}
	}
	pt, pType := m.Cont, typ
	if !(math.Abs(xj) > zs) {
		pt, pType = m.Sep, ptable.TypeAll
	}
	v := 0.0
	if pt != nil {
		v = pt.Noise(pType, math.Abs(x/xdelta), key.value())
	}
	step := float64(sign(x) * math.Abs(xdelta) * sign(v) * (muC + math.Abs(v)))
	switch {
	case v >= 0:
		x += step
	case x < 0:
		x += math.Min(step, -x)
	default:
		x += math.Max(step, -x)
	}
	k := m.TopK
	if len(p.Cells.Freq) > i {
		k = int(min(int64(k), p.Cells.Freq[i]))
	}
	for j := 2; j <= k; j++ {
		xj := m.contribution(p, i, j)
		if math.Abs(xj) < zs {
			continue
		}
		xdelta := xj * m.Epsilon[j-1] * m.flex(math.Abs(xj), zs)
		if math.Abs(x) < math.Abs(xdelta) {
			xdelta = x
			xj = x / (m.Epsilon[j-1] * m.Sigma1)
		}
		if math.Abs(xj) < zs {
			continue
		}
		key.shift()
		v := m.Cont.Noise(typ, math.Abs(x/xdelta), key.value())
		x += float64(sign(x) * math.Abs(xdelta) * v)
	}
	return x
}

// contribution returns x_j of cell i, as τ-Argus: the j-th largest
// contribution, times its record's weight in a weighted table (type T); the
// mean, over the weight sum in a weighted table (M); the largest minus the
// smallest contribution (D); the value (V). A mean over no records or a
// zero weight sum is 0 (no noise).
func (m *Magnitude) contribution(p *pluginsdk.Problem, i, j int) float64 {
	switch m.Type {
	case TypeTopK:
		x := p.Cells.Top[i*p.TopN+j-1]
		if m.Weighted {
			x = float64(p.Cells.TopWeight[i*p.TopN+j-1] * x)
		}
		return x
	case TypeMean:
		d := float64(p.Cells.Freq[i])
		if m.Weighted {
			d = p.Cells.Weight[i]
		}
		if d != 0 {
			return p.Cells.Value[i] / d
		}
		return 0
	case TypeRange:
		return p.Cells.Top[i*p.TopN] - p.Cells.MinContribution[i]
	default:
		return p.Cells.Value[i]
	}
}

// flex is the flex function: the relative noise amplitude of a
// contribution z, σ1 for small z and falling towards σ0 for large z (scaling
// F); σ1 throughout for scaling N; 0 at or below the separation point.
func (m *Magnitude) flex(z, zs float64) float64 {
	switch {
	case m.FlexScaling && z >= m.XStar:
		s0, s1, xs := m.Sigma0, m.Sigma1, m.XStar
		return s0 * (1 + float64(((float64(s1*z)-float64(s0*xs))/float64(s0*xs))*math.Pow(float64(2*xs)/(z+xs), m.Q)))
	case z > zs:
		return m.Sigma1
	default:
		return 0
	}
}

// sign is τ-Argus's sign: 1 for x ≥ 0, else −1.
func sign(x float64) float64 {
	if x >= 0 {
		return 1
	}
	return -1
}

// key is a cell key as its first d decimal digits.
type key struct {
	digits, pow uint64 // digits < pow = 10^d
	d           int
}

// newKey takes the first d decimals of cell key k (rounded half up, as
// printing the key with d decimals does; a key rounding up to 1 becomes 0).
func newKey(k float64, d int) key {
	units := uint64(math.Round(k * 1e15)) // the key's exact units of 10^-15
	div := uint64(1)
	for range MaxKeyDecimals - d {
		div *= 10
	}
	pow := uint64(1)
	for range d {
		pow *= 10
	}
	digits := (units + div/2) / div
	if div == 1 {
		digits = units
	}
	return key{digits: digits % pow, pow: pow, d: d}
}

// shift moves the first digit to the end (0.d1d2…dn → 0.d2…dnd1), as
// τ-Argus does before every draw from the p-table.
func (k *key) shift() {
	top := k.pow / 10
	k.digits = (k.digits%top)*10 + k.digits/top
}

func (k key) value() float64 { return float64(k.digits) / float64(k.pow) }
