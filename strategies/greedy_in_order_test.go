package strategies

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"membench/workloads"
)

// refGreedyInOrder is TFLite's GreedyInOrderAssignment (no reallocation
// graph) with its std::set replaced by a sorted slice of (size, id).
func refGreedyInOrder(bufs []workloads.Buffer) ([]int, []int64) {
	ids := make([]int, len(bufs))
	sizes := []int64{}
	type rec struct {
		size int64
		id   int
	}
	recCmp := func(a, b rec) int {
		if c := cmp.Compare(a.size, b.size); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	}
	var pool []rec
	var q refQueue
	for i, b := range bufs {
		for {
			id, ok := q.pop(b.First)
			if !ok {
				break
			}
			at, _ := slices.BinarySearchFunc(pool, rec{sizes[id], id}, recCmp)
			pool = slices.Insert(pool, at, rec{sizes[id], id})
		}
		best := -1
		if len(pool) > 0 {
			at, _ := slices.BinarySearchFunc(pool, rec{b.Size, 0}, recCmp)
			var diff int64
			if at < len(pool) {
				best, diff = at, pool[at].size-b.Size
			}
			if at > 0 && (best < 0 || b.Size-pool[at-1].size < diff) {
				best = at - 1
			}
		}
		if best < 0 {
			ids[i] = len(sizes)
			sizes = append(sizes, b.Size)
		} else {
			ids[i] = pool[best].id
			pool = slices.Delete(pool, best, best+1)
			sizes[ids[i]] = max(sizes[ids[i]], b.Size)
		}
		q = append(q, [2]int{b.Last, ids[i]})
	}
	return ids, sizes
}

func TestGreedyInOrder(t *testing.T) {
	runObjectCases(t, greedyInOrder{}, []objectCase{
		// Upstream Model.ChainRecords and Model.ComplexRecords.
		{"chain", [][3]int64{{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}}, []int{0, 1, 0, 1, 0}, []int64{64, 32}},
		{"complex", [][3]int64{{32, 0, 1}, {32, 1, 4}, {8, 2, 5}, {16, 3, 5}, {8, 4, 5}, {64, 5, 7}, {8, 6, 8}, {8, 7, 8}, {16, 8, 9}},
			[]int{0, 1, 0, 2, 3, 1, 3, 2, 0}, []int64{32, 64, 16, 8}},
		// 12 and 20 both waste 4 for 16: the larger one (A) wins.
		{"equal waste", [][3]int64{{12, 0, 0}, {20, 0, 0}, {16, 1, 1}}, []int{0, 1, 1}, []int64{12, 20}},
		// Smaller waste below: 15 grows to 16 rather than using 32.
		{"grow", [][3]int64{{15, 0, 0}, {32, 0, 0}, {16, 1, 1}}, []int{0, 1, 0}, []int64{16, 32}},
		// Among equal sizes >= s the lowest id wins ...
		{"ge ties", [][3]int64{{8, 0, 1}, {8, 0, 0}, {8, 2, 2}}, []int{0, 1, 0}, []int64{8, 8}},
		// ... and among equal sizes < s the highest id.
		{"lt ties", [][3]int64{{8, 0, 0}, {8, 0, 1}, {9, 2, 2}}, []int{0, 1, 1}, []int64{8, 9}},
	})
}

// TestObjectPool drives the treap with random inserts, erases and
// queries and checks it against a sorted slice.
func TestObjectPool(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pool := objectPool{root: -1, seed: 2463534242}
	var free []int32 // ids in the tree
	var out []int32  // ids not in the tree
	for range 20000 {
		switch op := r.IntN(4); {
		case op == 0 || len(free)+len(out) == 0:
			out = append(out, pool.add(int64(r.IntN(30))))
		case op == 1 && len(out) > 0:
			k := r.IntN(len(out))
			id := out[k]
			out = slices.Delete(out, k, k+1)
			pool.nodes[id].size = int64(r.IntN(30)) // sizes change only outside the tree
			pool.insert(id)
			free = append(free, id)
		case op == 2 && len(free) > 0:
			k := r.IntN(len(free))
			pool.erase(free[k])
			out = append(out, free[k])
			free = slices.Delete(free, k, k+1)
		default:
			s := int64(r.IntN(32))
			ge, lt := pool.around(s)
			wantGe, wantLt := int32(-1), int32(-1)
			for _, id := range free {
				if sz := pool.nodes[id].size; sz >= s && (wantGe < 0 || pool.less(id, wantGe)) {
					wantGe = id
				} else if sz < s && (wantLt < 0 || pool.less(wantLt, id)) {
					wantLt = id
				}
			}
			if ge != wantGe || lt != wantLt {
				t.Fatalf("around(%d) = %d,%d, want %d,%d", s, ge, lt, wantGe, wantLt)
			}
		}
	}
}

func TestGreedyInOrderMatchesReference(t *testing.T) {
	compareWithRef(t, greedyInOrder{}, refGreedyInOrder)
}
func TestGreedyInOrderCases(t *testing.T)    { testPlanCases(t, greedyInOrder{}) }
func TestGreedyInOrderBadInput(t *testing.T) { testBadInput(t, greedyInOrder{}) }
func TestGreedyInOrderCancel(t *testing.T)   { testCancel(t, greedyInOrder{}) }
func BenchmarkGreedyInOrder(b *testing.B)    { benchObjects(b, greedyInOrder{}) }
