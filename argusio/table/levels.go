package table

import "slices"

// LevelBounds returns the code lengths of the levels of a <HIERLEVELS>
// hierarchy whose digit groups have the given widths: the running sums of
// the positive widths, level 1 first.
func LevelBounds(widths []int) []int {
	var bounds []int
	sum := 0
	for _, w := range widths {
		if w > 0 {
			sum += w
			bounds = append(bounds, sum)
		}
	}
	return bounds
}

// AppendLevelCodes appends the codes of a <HIERLEVELS> hierarchy with level
// lengths bounds (see [LevelBounds]) to d.Codes: sorted, so that a prefix
// comes before its extensions, each with the level that level gives and as
// parent the code labelled with its first bounds[level-2] bytes (the total,
// index 0, at level 1). It sorts codes in place and stops at the first error
// of level, or of noParent for a code whose parent is not among the codes.
func (d *Dimension) AppendLevelCodes(codes []string, bounds []int, level func(code string) (int, error), noParent func(code, parent string) error) error {
	slices.Sort(codes)
	pos := map[string]int{}
	for _, c := range codes {
		lvl, err := level(c)
		if err != nil {
			return err
		}
		parent := 0
		if lvl > 1 {
			p, ok := pos[c[:bounds[lvl-2]]]
			if !ok {
				return noParent(c, c[:bounds[lvl-2]])
			}
			parent = p
		}
		pos[c] = len(d.Codes)
		d.Codes = append(d.Codes, Code{Label: c, Parent: parent, Level: lvl})
	}
	return nil
}
