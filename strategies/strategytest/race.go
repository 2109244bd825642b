//go:build race

package strategytest

// raceSlowdown scales the cancellation limit: the race detector makes code
// 5-10x slower, and the check is about ctx being looked at, not speed.
const raceSlowdown = 10
