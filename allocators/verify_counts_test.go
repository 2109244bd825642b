package allocators

import "testing"

// TestVerifyCounts: the Verifier counts what it checked.
func TestVerifyCounts(t *testing.T) {
	f, err := Lookup("first-fit")
	if err != nil {
		t.Fatal(err)
	}
	v := Verify(f.New())
	var offs []int64
	for _, size := range []int64{100, 3, 4096} {
		b, err := v.Alloc(size)
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, b.Offset)
	}
	for _, off := range offs[:2] {
		if err := v.Free(off); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Free(1 << 40); err == nil {
		t.Fatal("a free of an offset never allocated was accepted")
	}
	if err := v.Check(); err != nil {
		t.Fatal(err)
	}
	// 2 stamps for each of the 2 frees and for the 1 block live at Check.
	want := VerifyCounts{Allocs: 3, Frees: 3, Stamps: 6}
	if got := v.Counts(); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}
