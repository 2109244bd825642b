package main

import "testing"

// TestListHelp: list --help names the arguments list takes.
func TestListHelp(t *testing.T) {
	r := expect(t, 0, nil, "list", "--help")
	checkGolden(t, "help-list.txt", r.stdout)
}
