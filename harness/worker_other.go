//go:build !unix

package harness

func closeOnExec(int) {}

func killedBySignal(error) (string, bool) { return "", false }

func reapChildren() {}

func raiseSIGTERM() {}
