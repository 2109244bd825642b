package view

import (
	"cmp"
	"slices"
)

// sortBySize orders blocks largest chunk first, then by offset.
func sortBySize(bs []Block) {
	slices.SortFunc(bs, func(a, b Block) int {
		if c := cmp.Compare(b.Chunk, a.Chunk); c != 0 {
			return c
		}
		return cmp.Compare(a.Off, b.Off)
	})
}
