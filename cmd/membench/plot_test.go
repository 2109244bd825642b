package main

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membench/results/plot"
)

// TestPlotChoices draws a tiny sweep's figures in every format at column
// size, and a layout and a timeline chosen by workload and subject.
func TestPlotChoices(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", dir)
	plots := filepath.Join(dir, "plots")
	os.RemoveAll(plots)

	r := expect(t, 0, nil, "plot", "--format", "png,svg,pdf", "--size", "column", dir)
	wrote := strings.Fields(strings.ReplaceAll(r.stdout, "wrote ", ""))
	var n [3]int
	for _, f := range wrote {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(f) {
		case ".png":
			n[0]++
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if w, h := plot.Column.Pixels(); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
				t.Errorf("%s: %v, want %dx%d", f, img.Bounds(), w, h)
			}
		case ".svg":
			n[1]++
			if !bytes.Contains(data, []byte(`<svg width="252pt"`)) {
				t.Errorf("%s: not 3.5 in wide", f)
			}
		case ".pdf":
			n[2]++
			if !bytes.HasPrefix(data, []byte("%PDF-")) {
				t.Errorf("%s: not a PDF", f)
			}
		}
	}
	// footprint (strategies, allocators, best known), layout and timeline,
	// each thrice.
	if n != [3]int{5, 5, 5} || len(wrote) != 15 {
		t.Errorf("wrote %d png, %d svg, %d pdf:\n%s", n[0], n[1], n[2], r.stdout)
	}

	const w = "synthetic/chain?n=8&seed=1"
	r = expect(t, 0, nil, "plot", "--kind", "layout", "--workload", w, "--subject", "naive", "--format", "svg", dir)
	file := filepath.Join(plots, "layout-naive-chain-n-8-s-1.svg")
	if r.stdout != "wrote "+file+"\n" {
		t.Errorf("plot --kind layout --workload --subject:\n%s", r.stdout)
	}
	if data, _ := os.ReadFile(file); !bytes.Contains(data, []byte(">naive on chain n=8 s=1</text>")) {
		t.Errorf("%s does not draw naive on the chain", file)
	}
	r = expect(t, 0, nil, "plot", "--kind", "timeline", "--workload", w, dir)
	if r.stdout != "wrote "+filepath.Join(plots, "timeline-chain-n-8-s-1.png")+"\n" {
		t.Errorf("plot --kind timeline --workload:\n%s", r.stdout)
	}
	results := filepath.Join(dir, "results.jsonl")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--kind", "timeline", "--subject", "naive"}, 2, results + `: no ok result of allocator "naive" to draw`},
		{[]string{"--kind", "layout", "--workload", "zoo/unet"}, 2, results + `: no ok result of a strategy on workload "zoo/unet" to draw`},
		{[]string{"--workload", w}, 2, "plot: --workload and --subject choose a layout or timeline: add --kind layout or --kind timeline"},
		{[]string{"--format", "png,jpg"}, 2, `plot: --format: unknown figure format "jpg" (valid: png, svg, pdf)`},
		{[]string{"--size", "a4"}, 2, `plot: unknown --size "a4" (valid: column, page)`},
	} {
		expect(t, tc.code, []string{tc.want}, append(append([]string{"plot"}, tc.args...), dir)...)
	}

	// plan and replay draw in the format of --plot's extension.
	out := t.TempDir()
	expect(t, 0, nil, "plan", "--strategy", "greedy-by-size", "--plot", filepath.Join(out, "l.pdf"), w)
	if data, err := os.ReadFile(filepath.Join(out, "l.pdf")); err != nil || !bytes.HasPrefix(data, []byte("%PDF-")) {
		t.Errorf("plan --plot l.pdf: %v", err)
	}
	expect(t, 0, nil, "replay", "--allocator", "bfc", "--plot", filepath.Join(out, "t.svg"), w)
	if data, err := os.ReadFile(filepath.Join(out, "t.svg")); err != nil || !bytes.Contains(data, []byte(">bfc on chain n=8 s=1</text>")) {
		t.Errorf("replay --plot t.svg: %v", err)
	}
	expect(t, 2, []string{`--plot: ` + filepath.Join(out, "t.jpg") + `: unknown figure format "jpg" (valid: png, svg, pdf)`},
		"replay", "--allocator", "bfc", "--plot", filepath.Join(out, "t.jpg"), w)
}

// TestPlotRuntime draws the runtime figure of a sweep of planners of three
// runtimes (tflite-gpu, xla, tflm): one bar per runtime and workload,
// named by the registry's runtimes, and its table; a sweep of one runtime
// has none.
func TestPlotRuntime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runtimes")
	r := expect(t, 0, nil, "run", "--config", "testdata/runtimes.toml", "--out", dir)
	file := filepath.Join(dir, "plots", "runtime-synthetic.png")
	if !strings.Contains(r.stdout, "wrote "+file+"\n") {
		t.Errorf("run does not draw %s:\n%s", file, r.stdout)
	}
	r = expect(t, 0, nil, "plot", "--kind", "runtime", "--format", "svg", dir)
	file = filepath.Join(dir, "plots", "runtime-synthetic.svg")
	if r.stdout != "wrote "+file+"\nwrote "+filepath.Join(dir, "plots", "runtime-synthetic.md")+"\n" {
		t.Fatalf("plot --kind runtime:\n%s", r.stdout)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">tflite-gpu</text>", ">tflm</text>", ">xla</text>", ">Best planner of each runtime</text>",
		">chain n=8 s=1</text>", ">random-dag n=20 s=2</text>"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
	// Runtimes take the palette in sorted order.
	for i, rt := range []string{"tflite-gpu", "tflm", "xla"} {
		// Two bars and the legend's square.
		if n := bytes.Count(data, []byte(`style="fill:`+plotHex(plot.Palette[i])+`"`)); n != 3 {
			t.Errorf("%s: %d squares in the colour of %s, want 2 bars and the legend's", file, n, rt)
		}
	}

	tiny := filepath.Join(t.TempDir(), "tiny")
	expect(t, 0, nil, "run", "--config", "testdata/tiny.toml", "--out", tiny)
	expect(t, 1, []string{"plot: the results in " + tiny + " support no runtime figure"}, "plot", "--kind", "runtime", tiny)
}

// plotHex writes a colour as SVG fills do.
func plotHex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}
