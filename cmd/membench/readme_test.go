package main

import (
	"go/format"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExample: the README's worked example is
// strategies/example_test.go, which the conformance suite runs, written as
// a file of package strategies under its own name: "my-first-fit", so that
// saving it beside the test file registers no name twice.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) != 1 {
		t.Fatalf("README.md has %d Go blocks, want 1", len(blocks))
	}
	src, err := os.ReadFile("../../strategies/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The test file as a file of package strategies.
	s := string(src)
	for _, r := range []struct{ old, new string }{
		{"package strategies_test", "package strategies"},
		{"\t\"membench/strategies\"\n", ""},
		{"strategies.", ""},
		{" (the README's example)", ""},
		{"example-first-fit", "my-first-fit"},
		{"firstFit", "myFirstFit"},
	} {
		if !strings.Contains(s, r.old) {
			t.Fatalf("strategies/example_test.go lacks %q", r.old)
		}
		s = strings.ReplaceAll(s, r.old, r.new)
	}
	s = regexp.MustCompile(`(?m)^// The README's worked example(.*\n)*?\n`).ReplaceAllString(s, "")
	want, err := format.Source([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.Source(blocks[0][1])
	if err != nil {
		t.Fatalf("README.md's Go block: %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("README.md's Go block is not strategies/example_test.go as my-first-fit:\n--- README\n%s--- want\n%s", got, want)
	}
	if strings.Contains(string(readme), "example_first_fit.go") || !strings.Contains(string(readme), "strategies/my_first_fit.go") ||
		!strings.Contains(string(readme), "--candidate my-first-fit") {
		t.Error("README.md should say to save the example as strategies/my_first_fit.go and compare my-first-fit")
	}
}
