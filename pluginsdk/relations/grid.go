package relations

import (
	"errors"
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
)

// Errors of the coordinate maps.
var (
	// ErrTooLarge is returned when a table's full grid has more cells than
	// an int can count.
	ErrTooLarge = errors.New("table grid too large")
	// ErrDuplicateCell is returned when two cells claim the same coordinates
	// of a table.
	ErrDuplicateCell = errors.New("two cells with the same coordinates")
	// ErrMissingCell is returned when a relation's parent cell is absent
	// while one of its children is present.
	ErrMissingCell = errors.New("parent cell missing")
)

// Grid maps the coordinate tuples of a table (one code index per dimension)
// to dense indices 0..Len()-1 in τ-Argus cell order: row-major, the first
// dimension varying slowest. The zero Grid has no cells.
type Grid struct {
	ext    []int
	stride []int
	size   int
}

// NewGrid returns the grid of t.
func NewGrid(t *pluginsdk.Table) (Grid, error) {
	ext := make([]int, len(t.Dims))
	for d := range t.Dims {
		ext[d] = len(t.Dims[d].Codes)
	}
	return NewGridSizes(ext)
}

// NewGridSizes returns the grid with ext[d] codes in dimension d.
func NewGridSizes(ext []int) (Grid, error) {
	g := Grid{ext: append([]int(nil), ext...), stride: make([]int, len(ext)), size: 1}
	for d := len(ext) - 1; d >= 0; d-- {
		if ext[d] <= 0 {
			return Grid{}, fmt.Errorf("grid: dimension %d has %d codes", d, ext[d])
		}
		g.stride[d] = g.size
		if g.size > math.MaxInt/ext[d] {
			return Grid{}, fmt.Errorf("%w: dimension sizes %v", ErrTooLarge, ext)
		}
		g.size *= ext[d]
	}
	return g, nil
}

// Len returns the number of cells of the full grid.
func (g Grid) Len() int { return g.size }

// Dims returns the number of dimensions.
func (g Grid) Dims() int { return len(g.ext) }

// Size returns the number of codes of dimension d.
func (g Grid) Size(d int) int { return g.ext[d] }

// Stride returns the distance in dense index between neighbouring codes of
// dimension d.
func (g Grid) Stride(d int) int { return g.stride[d] }

// Index returns the dense index of the coordinate tuple, or −1 when the
// tuple has the wrong length or a code index out of range.
func (g Grid) Index(coords []int32) int {
	if len(coords) != len(g.ext) {
		return -1
	}
	i := 0
	for d, c := range coords {
		if c < 0 || int(c) >= g.ext[d] {
			return -1
		}
		i += int(c) * g.stride[d]
	}
	return i
}

// Coords writes the coordinate tuple of dense index i into dst (grown as
// needed) and returns it; nil when i is out of range.
func (g Grid) Coords(i int, dst []int32) []int32 {
	if i < 0 || i >= g.size {
		return nil
	}
	dst = dst[:0]
	for d := range g.ext {
		dst = append(dst, int32(i/g.stride[d]))
		i %= g.stride[d]
	}
	return dst
}

// CellMap maps the coordinates of one table of a problem to the problem's
// cell ids, including the cells that Problem.Links lists as members of the
// table. It stores a dense array when the table's cells fill a reasonable
// share of the grid and a hash map otherwise.
type CellMap struct {
	grid   Grid
	dense  []int32
	sparse map[int]int32
	cells  int
}

// NewCellMap returns the cell map of table t of p. Coordinates must be
// valid (see pluginsdk.Problem.Validate); two cells at the same coordinates
// are an error.
func NewCellMap(p *pluginsdk.Problem, t int) (*CellMap, error) {
	if t < 0 || t >= len(p.Tables) {
		return nil, fmt.Errorf("cell map: table %d out of range (%d tables)", t, len(p.Tables))
	}
	g, err := NewGrid(&p.Tables[t])
	if err != nil {
		return nil, fmt.Errorf("cell map of table %d: %w", t, err)
	}
	if len(p.Cells.Coords) == 0 && p.NumCells() > 0 {
		return nil, fmt.Errorf("cell map of table %d: cells carry no coordinates", t)
	}
	count := 0
	for i := range p.NumCells() {
		if p.TableOf(i) == t {
			count++
		}
	}
	for _, lt := range p.Links.Table {
		if int(lt) == t {
			count++
		}
	}
	m := &CellMap{grid: g}
	if g.Len() <= 8*count+4096 {
		m.dense = make([]int32, g.Len())
		for i := range m.dense {
			m.dense[i] = -1
		}
	} else {
		m.sparse = make(map[int]int32, count)
	}
	nd := g.Dims()
	for i := range p.NumCells() {
		if p.TableOf(i) != t {
			continue
		}
		if err := m.set(p.Coords(i), i); err != nil {
			return nil, fmt.Errorf("cell map of table %d: cell %d: %w", t, i, err)
		}
	}
	off := 0
	for k, lt := range p.Links.Table {
		w := len(p.Tables[lt].Dims)
		if int(lt) == t {
			if off+nd > len(p.Links.Coords) {
				return nil, fmt.Errorf("cell map of table %d: link %d: coordinates missing", t, k)
			}
			if err := m.set(p.Links.Coords[off:off+nd], p.Links.Cell[k]); err != nil {
				return nil, fmt.Errorf("cell map of table %d: link %d (cell %d): %w", t, k, p.Links.Cell[k], err)
			}
		}
		off += w
	}
	return m, nil
}

func (m *CellMap) set(coords []int32, cell int) error {
	if cell < 0 || cell > math.MaxInt32 {
		return fmt.Errorf("cell id %d out of range", cell)
	}
	i := m.grid.Index(coords)
	if i < 0 {
		return fmt.Errorf("coordinates %v out of range", coords)
	}
	if m.dense != nil {
		if old := m.dense[i]; old >= 0 {
			if int(old) == cell {
				return nil
			}
			return fmt.Errorf("%w %v: cells %d and %d", ErrDuplicateCell, coords, old, cell)
		}
		m.dense[i] = int32(cell)
	} else {
		if old, ok := m.sparse[i]; ok {
			if int(old) == cell {
				return nil
			}
			return fmt.Errorf("%w %v: cells %d and %d", ErrDuplicateCell, coords, old, cell)
		}
		m.sparse[i] = int32(cell)
	}
	m.cells++
	return nil
}

// Grid returns the table's grid.
func (m *CellMap) Grid() Grid { return m.grid }

// Len returns the number of cells of the table.
func (m *CellMap) Len() int { return m.cells }

// At returns the cell id at dense index i, or −1 when there is no cell.
func (m *CellMap) At(i int) int {
	if i < 0 || i >= m.grid.Len() {
		return -1
	}
	if m.dense != nil {
		return int(m.dense[i])
	}
	if c, ok := m.sparse[i]; ok {
		return int(c)
	}
	return -1
}

// Cell returns the cell id at the coordinates, or −1 when there is none.
func (m *CellMap) Cell(coords []int32) int { return m.At(m.grid.Index(coords)) }
