package workloads

import (
	"bytes"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
)

// bigProblem is a 1,000,000-buffer random problem shared by the benchmarks.
var bigProblem = sync.OnceValue(func() *Problem {
	return randomProblem(rand.New(rand.NewPCG(5, 6)), 1_000_000, 2_000_000)
})

func benchRead(b *testing.B, write func(*bytes.Buffer), read func([]byte) error) {
	var buf bytes.Buffer
	write(&buf)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if err := read(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadMiniMalloc1M(b *testing.B) {
	benchRead(b, func(w *bytes.Buffer) { WriteMiniMalloc(w, bigProblem()) },
		func(d []byte) error { _, err := ReadMiniMalloc(bytes.NewReader(d), "b"); return err })
}

func BenchmarkReadTFLite1M(b *testing.B) {
	benchRead(b, func(w *bytes.Buffer) { WriteTFLite(w, bigProblem()) },
		func(d []byte) error { _, err := ReadTFLite(bytes.NewReader(d), "b"); return err })
}

func BenchmarkReadJSON1M(b *testing.B) {
	benchRead(b, func(w *bytes.Buffer) { WriteJSON(w, bigProblem()) },
		func(d []byte) error { _, err := ReadJSON(bytes.NewReader(d), "b"); return err })
}

// BenchmarkReadTrace1M reads the 2,000,000-event trace of 1,000,000 buffers.
func BenchmarkReadTrace1M(b *testing.B) {
	benchRead(b, func(w *bytes.Buffer) { WriteTrace(w, mustTrace(b, bigProblem())) },
		func(d []byte) error { _, err := ReadTrace(bytes.NewReader(d), "b"); return err })
}

// BenchmarkLoadMiniMalloc1M is Load's whole path: read, sniff, parse.
func BenchmarkLoadMiniMalloc1M(b *testing.B) {
	var buf bytes.Buffer
	WriteMiniMalloc(&buf, bigProblem())
	path := b.TempDir() + "/big.csv"
	if err := writeFile(path, buf.Bytes()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
