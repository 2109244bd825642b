//go:build !unix

package strategies_test

import "time"

// processCPU returns 0: this platform's CPU time is not read here, and
// BenchmarkStrategies then reports wall time only.
func processCPU() time.Duration { return 0 }
