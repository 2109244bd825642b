package kernel

import (
	"cmp"
	"slices"

	"membench/workloads"
)

// TaskSpans numbers buffers by (first task, index), so the buffers
// starting in a time range are a range of ids, and numbers the distinct
// first tasks 0..D-1. Between two consecutive distinct first tasks no
// buffer starts, so they are the only points where a buffer's set of
// overlapping buffers can change.
type TaskSpans struct {
	// ID[i] is the id of buffer index i.
	ID []int32
	// Span[id] = [a, b]: the numbers of the buffer's first task and of the
	// last distinct first task <= its last task.
	Span [][2]int32
	// The buffers whose first task is number t have ids StartPtr[t] .. StartPtr[t+1]-1.
	StartPtr []int32
}

// NewTaskSpans builds the spans of bufs, whose lifetimes must satisfy
// First <= Last; with clamp, first tasks below 0 count as 0 (as TFLite's
// task profiles do), and buffers must have Last >= 0.
func NewTaskSpans(bufs []workloads.Buffer, clamp bool) *TaskSpans {
	n := len(bufs)
	byFirst := make([]Keyed, n)
	for i, b := range bufs {
		f := b.First
		if clamp {
			f = max(f, 0)
		}
		byFirst[i] = Keyed{int64(f), int32(i)}
	}
	byFirst = RadixSort(byFirst, make([]Keyed, n))
	// At most n distinct first tasks: room for all of them up front saves
	// the appends' regrowth, a tenth of greedy-by-breadth's time.
	ts := &TaskSpans{ID: make([]int32, n), Span: make([][2]int32, n), StartPtr: make([]int32, 0, n+1)}
	firsts := make([]int64, 0, n)
	for id, k := range byFirst {
		ts.ID[k.I] = int32(id)
		if len(firsts) == 0 || firsts[len(firsts)-1] != k.Key {
			firsts = append(firsts, k.Key)
			ts.StartPtr = append(ts.StartPtr, int32(id))
		}
		ts.Span[id][0] = int32(len(firsts) - 1)
	}
	ts.StartPtr = append(ts.StartPtr, int32(n))
	for id, k := range byFirst {
		// The last distinct first task <= last: gallop up from the
		// buffer's own first task, as most lifetimes are short.
		last := int64(bufs[k.I].Last)
		lo := int(ts.Span[id][0]) // firsts[lo] <= last
		step := 1
		for lo+step < len(firsts) && firsts[lo+step] <= last {
			lo += step
			step *= 2
		}
		hi := min(lo+step, len(firsts)) // firsts[hi] > last, or hi is the end
		for hi-lo > 1 {
			h := int(uint(lo+hi) >> 1)
			if firsts[h] <= last {
				lo = h
			} else {
				hi = h
			}
		}
		ts.Span[id][1] = int32(lo)
	}
	return ts
}

// Tasks returns D, the number of distinct first tasks.
func (ts *TaskSpans) Tasks() int32 { return int32(len(ts.StartPtr) - 1) }

// ConflictPairs returns the number of pairs of bufs that are live at a
// common task (workloads.Conflicts), counted without listing them: in
// order of first task, each buffer counts the later ones that start by
// its last task.
func ConflictPairs(bufs []workloads.Buffer) int64 {
	life := make([][2]int, len(bufs))
	for i, b := range bufs {
		life[i] = [2]int{b.First, b.Last}
	}
	slices.SortFunc(life, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	firsts := make([]int, len(bufs))
	for k, l := range life {
		firsts[k] = l[0]
	}
	var total int64
	for k, l := range life {
		upTo, _ := slices.BinarySearch(firsts, l[1]+1)
		total += int64(upTo - k - 1)
	}
	return total
}
