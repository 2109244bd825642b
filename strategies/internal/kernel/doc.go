// Package kernel holds the building blocks the planners of package
// strategies share, so that a planner's file holds its planner only:
//
//   - order.go: Keyed and RadixSort (a stable LSD radix sort), and the
//     orders built on it: BySizeDescending, StableOrder, InOrder.
//   - spans.go: TaskSpans, which numbers buffers by first task so that
//     the buffers starting in a time range are a range of ids. (LB_load
//     is workloads.LoadBound, for every planner.)
//   - compindex.go, compids.go: CompIndex, the interval index giving the
//     connected components of the placed buffers' address ranges among
//     those that overlap a buffer in time, gathering by id ranges where
//     TaskSpans.GatherByIDPays; MergeComp, SortComps.
//   - compfit.go: CompIndex.FirstFit, first fit over those ranges without
//     merging them: the runs walked together up to the first gap that
//     holds the buffer.
//   - fitindex.go: FitIndex, CompIndex's first fits for callers that ask
//     nothing else (search.Placer): the long lifetimes covering a task
//     kept as one merged list per block of tasks, the runs walked with
//     cursors beside them (fitWalk).
//   - timeindex.go: TimeIndex, the same index buffer by buffer (for
//     zero-size buffers and ExecuTorch's objects); Placed, SortPlaced.
//   - gapwalk.go: GapWalk over spans sorted by offset and the gap choices:
//     FirstFit, and BestFit, the one best-gap walker, with BestGap (TFLite's
//     and XLA's smallest gap, else the top); AlignUp.
//   - treap.go: KeyTreap, the ordered set behind MXNet's and MegEngine's
//     free lists.
//   - check.go: RecordError and CtxCheckEvery, the record check and the
//     cancellation cadence every planner uses.
//
// Nothing here knows a planner's name or its registration.
package kernel
