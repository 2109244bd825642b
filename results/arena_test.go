package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRecordArenaFields: records written before the arena and persistent
// fields still decode (both 0); new ones keep them, and leave them out
// when 0.
func TestRecordArenaFields(t *testing.T) {
	old := `{"workload":"w","n":1,"hash":"h","subject":"tflm-greedy","kind":"strategy","repeat":0,"status":"ok","footprint":42,"lb_load":30,"lb_objects":0,"ratio":1.4,"ratio_objects":0,"iters":1,"times_ns":[1]}`
	r, err := decodeRecord([]byte(old))
	if err != nil || r.Footprint != 42 || r.Arena != 0 || r.Persistent != 0 {
		t.Fatalf("old record: %+v, %v", r, err)
	}
	r.Arena, r.Persistent = 48, 40
	data, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeRecord(data)
	if err != nil || back.Arena != 48 || back.Persistent != 40 {
		t.Fatalf("round trip of %s: %+v, %v", data, back, err)
	}
	r.Arena, r.Persistent = 0, 0
	data, _ = json.Marshal(&r)
	if s := string(data); strings.Contains(s, "arena") || strings.Contains(s, "persistent") {
		t.Errorf("zero arena and persistent written: %s", s)
	}
}
