//go:build !race

package strategytest

const raceSlowdown = 1
