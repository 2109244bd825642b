//go:build !linux

package allocators

import "time"

// threadCPU is not measured off Linux.
func threadCPU() time.Duration { return 0 }
