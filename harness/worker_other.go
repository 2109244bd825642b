//go:build !unix

package harness

func closeOnExec(int) {}

func killedBySignal(error) bool { return false }
