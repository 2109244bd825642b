package strategies_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"membench/strategies"
	"membench/workloads"
)

func records(rs ...[3]int64) []workloads.Buffer {
	var bufs []workloads.Buffer
	for i, r := range rs {
		bufs = append(bufs, workloads.Buffer{ID: i, Size: r[0], First: int(r[1]), Last: int(r[2])})
	}
	return bufs
}

var (
	chainRecords = records([3]int64{16, 0, 1}, [3]int64{8, 1, 2}, [3]int64{64, 2, 3}, [3]int64{32, 3, 4}, [3]int64{8, 4, 5})

	complexRecords = records([3]int64{32, 0, 1}, [3]int64{32, 1, 4}, [3]int64{8, 2, 5}, [3]int64{16, 3, 5},
		[3]int64{8, 4, 5}, [3]int64{64, 5, 7}, [3]int64{8, 6, 8}, [3]int64{8, 7, 8}, [3]int64{16, 8, 9})
)

// TestTaskProfiles checks TFLite's internal_test.cc assertions
// (UPSTREAM_TESTS.md, TaskProfileTest.*).
func TestTaskProfiles(t *testing.T) {
	tests := []struct {
		name     string
		bufs     []workloads.Buffer
		profiles [][]int32
		maxima   []int64
	}{
		{"EmptyRecords", nil, [][]int32{}, nil},
		{"OneRecord", records([3]int64{16, 0, 1}), [][]int32{{0}, {0}}, []int64{16}},
		{"ChainRecords", chainRecords,
			[][]int32{{0}, {0, 1}, {2, 1}, {2, 3}, {3, 4}, {4}},
			[]int64{64, 32}},
		{"ComplexRecords", complexRecords,
			[][]int32{{0}, {0, 1}, {1, 2}, {1, 3, 2}, {1, 3, 2, 4}, {5, 3, 2, 4}, {5, 6}, {5, 6, 7}, {8, 6, 7}, {8}},
			[]int64{64, 32, 8, 8}},
		// Equal sizes keep record order (a stable sort), and a task with no
		// live buffer has an empty profile.
		{"EqualSizesAndGap", records([3]int64{8, 0, 0}, [3]int64{16, 0, 0}, [3]int64{8, 0, 0}, [3]int64{4, 2, 2}),
			[][]int32{{1, 0, 2}, {}, {3}},
			[]int64{16, 8, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strategies.TaskProfiles(tt.bufs)
			if len(got) != len(tt.profiles) {
				t.Fatalf("TaskProfiles = %v, want %v", got, tt.profiles)
			}
			for task := range got {
				if !slices.Equal(got[task], tt.profiles[task]) {
					t.Errorf("task %d: profile %v, want %v", task, got[task], tt.profiles[task])
				}
			}
			if pm := strategies.PositionalMaximums(tt.bufs); !slices.Equal(pm, tt.maxima) {
				t.Errorf("PositionalMaximums = %v, want %v", pm, tt.maxima)
			}
		})
	}
}

// TestPositionalMaximumsDefinition checks the maximums against their
// definition on random records: element k is the largest k-th largest size
// over tasks, and their sum is LowerBounds' Objects.
func TestPositionalMaximumsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for iter := range 300 {
		n := rng.IntN(30)
		var bufs []workloads.Buffer
		T := 1 + rng.IntN(20)
		for i := range n {
			f := rng.IntN(T)
			bufs = append(bufs, workloads.Buffer{ID: i, Size: int64(rng.IntN(5) * 8), First: f, Last: f + rng.IntN(T-f)})
		}
		var want []int64
		for task := range T {
			var live []int64
			for _, b := range bufs {
				if b.First <= task && task <= b.Last {
					live = append(live, b.Size)
				}
			}
			slices.Sort(live)
			slices.Reverse(live)
			for k, s := range live {
				if k == len(want) {
					want = append(want, s)
				}
				want[k] = max(want[k], s)
			}
		}
		got := strategies.PositionalMaximums(bufs)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: PositionalMaximums(%v) = %v, want %v", iter, bufs, got, want)
		}
		var sum int64
		for _, s := range want {
			sum += s
		}
		if lb := strategies.LowerBounds(&workloads.Problem{Buffers: bufs}); lb.Objects != sum || lb.Load > sum {
			t.Fatalf("iter %d: LowerBounds = %+v, want Objects %d >= Load", iter, lb, sum)
		}
	}
}
