package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a writer the test reads while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestViewServes starts `membench view` as a newcomer would, reads the URL
// it prints, asks for the index, and stops it as Ctrl-C does.
func TestViewServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"view", "zoo/resnet-50", "--strategy", "greedy-by-size", "--strategy", "tflite-arena"}, &out, &errb)
	}()
	urlRE := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("view ended early: %v\n%s", err, errb.String())
		default:
		}
	}
	if url == "" {
		t.Fatalf("no URL printed; stdout %q", out.String())
	}
	resp, err := http.Get(url + "api/index")
	if err != nil {
		t.Fatal(err)
	}
	var ix struct {
		Workloads []struct {
			Spec  string
			Plans []struct {
				Name      string
				Footprint int64
				Moved     int
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&ix); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(ix.Workloads) != 1 || ix.Workloads[0].Spec != "zoo/resnet-50" || len(ix.Workloads[0].Plans) != 2 ||
		ix.Workloads[0].Plans[0].Name != "greedy-by-size" || ix.Workloads[0].Plans[1].Footprint == 0 {
		t.Fatalf("index %+v", ix)
	}
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if !strings.Contains(string(body), `<script src="app.js">`) {
		t.Fatalf("the page is not served: %.200s", body)
	}
	// A malformed request is a 400 naming the parameter.
	bad, err := http.Get(url + "api/plan?w=0&id=0&t0=x")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(bad.Body)
	bad.Body.Close()
	if bad.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "parameter t0: want an integer") {
		t.Fatalf("bad request: %d %q", bad.StatusCode, msg)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("view ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("view did not stop when its context ended")
	}
}

func TestViewHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	r := membench(t, "view", "--html", page, "zoo/resnet-50", "--strategy", "greedy-by-size", "--allocator", "bfc")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"window.MEMBENCH_STATIC = ", `"spec":"zoo/resnet-50"`, "<style>", "function local("} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(string(b), `src="app.js"`) || strings.Contains(string(b), `href="app.css"`) {
		t.Error("the page links files: it must hold everything")
	}
}

func TestViewBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"view"}, "view: want a WORKLOAD or a results folder"},
		{[]string{"view", dir}, "is a folder without results.jsonl"},
		{[]string{"view", "--html", filepath.Join(dir, "x.html"), "synthetic/random-dag?n=100001"}, "a static page holds at most 100000"},
		{[]string{"view", "--html", filepath.Join(dir, "no", "x.html"), "zoo/resnet-50"}, "view: --html"},
		{[]string{"view", "--addr", "256.1.1.1:99999", "zoo/resnet-50"}, "view: --addr"},
		{[]string{"view", "--strategy", "nope", "zoo/resnet-50"}, `unknown strategy "nope"`},
	} {
		expect(t, 2, []string{tc.want}, tc.args...)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Error("a refused export left a file")
	}
}
