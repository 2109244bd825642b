package strategies

import (
	"testing"

	"membench/workloads"
)

// refEquality is TFLite's EqualityAssignmentWithHash, transcribed
// literally: a map from size to a vector of free ids, reuse from the back.
func refEquality(bufs []workloads.Buffer) ([]int, []int64) {
	ids := make([]int, len(bufs))
	sizes := []int64{}
	pool := map[int64][]int{}
	var q refQueue
	for i, b := range bufs {
		for {
			id, ok := q.pop(b.First)
			if !ok {
				break
			}
			pool[sizes[id]] = append(pool[sizes[id]], id)
		}
		if free := pool[b.Size]; len(free) > 0 {
			ids[i] = free[len(free)-1]
			pool[b.Size] = free[:len(free)-1]
		} else {
			ids[i] = len(sizes)
			sizes = append(sizes, b.Size)
		}
		q = append(q, [2]int{b.Last, ids[i]})
	}
	return ids, sizes
}

func TestEquality(t *testing.T) {
	runObjectCases(t, equality{}, []objectCase{
		// Upstream Model.ChainRecords.
		{"chain", [][3]int64{{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}}, []int{0, 1, 2, 3, 1}, []int64{16, 8, 64, 32}},
		// Objects 0 (free after 1) and 1 (free after 2) are both free at
		// task 4: the one released last (1) is reused first.
		{"lifo", [][3]int64{{8, 0, 1}, {8, 0, 2}, {8, 4, 4}, {8, 4, 4}}, []int{0, 1, 1, 0}, []int64{8, 8}},
		// Equal last task: released in id order, so id 1 is on top.
		{"lifo ties", [][3]int64{{8, 0, 1}, {8, 0, 1}, {8, 3, 3}}, []int{0, 1, 1}, []int64{8, 8}},
		// Never a bigger object: 16 is free but 8 needs an exact match.
		{"exact only", [][3]int64{{16, 0, 0}, {8, 1, 1}, {16, 2, 2}}, []int{0, 1, 0}, []int64{16, 8}},
		// Adjacent lifetimes conflict.
		{"adjacent", [][3]int64{{8, 0, 1}, {8, 1, 2}, {8, 2, 3}}, []int{0, 1, 0}, []int64{8, 8}},
	})
}

func TestEqualityMatchesReference(t *testing.T) { compareWithRef(t, equality{}, refEquality) }
func TestEqualityCases(t *testing.T)            { testPlanCases(t, equality{}) }
func TestEqualityBadInput(t *testing.T)         { testBadInput(t, equality{}) }
func TestEqualityCancel(t *testing.T)           { testCancel(t, equality{}) }
func BenchmarkEquality(b *testing.B)            { benchObjects(b, equality{}) }
