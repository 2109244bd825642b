package best

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"membench/results"
)

func rec(subject, status string, fp, lb, bound int64) results.Record {
	return results.Record{Workload: "w", N: 3, Hash: "h1", Subject: subject, Kind: results.KindStrategy,
		Status: status, Footprint: fp, LBLoad: lb, Bound: bound}
}

func TestUpdate(t *testing.T) {
	tb := Table{}
	recs := []results.Record{
		rec("greedy", results.StatusOK, 120, 100, 0),
		rec("bad", results.StatusInvalid, 90, 100, 0), // not validated: ignored
		rec("exact", results.StatusOK, 110, 100, 105), // better footprint and bound
		rec("worse", results.StatusOK, 130, 100, 0),   // no improvement
		{Workload: "w", Hash: "h1", Subject: "bfc", Kind: results.KindAllocator, Status: results.StatusOK, Footprint: 50},
	}
	changes, err := tb.Update(recs, "abc", "2026-11-23")
	if err != nil {
		t.Fatal(err)
	}
	want := &Entry{Workload: "w", N: 3, LBLoad: 100, Footprint: 110, FootprintBy: Source{"exact", "abc", "2026-11-23"},
		Bound: 105, BoundBy: Source{"exact", "abc", "2026-11-23"}}
	if !reflect.DeepEqual(tb["h1"], want) {
		t.Fatalf("entry %+v, want %+v", tb["h1"], want)
	}
	if len(changes) != 3 {
		t.Fatalf("changes %+v, want 3 (new, footprint, bound)", changes)
	}
	// A later sweep proves it optimal; values never get worse.
	if _, err := tb.Update([]results.Record{rec("exact", results.StatusOK, 110, 100, 110), rec("x", results.StatusOK, 200, 100, 0)}, "def", "2026-11-24"); err != nil {
		t.Fatal(err)
	}
	if e := tb["h1"]; e.Footprint != 110 || e.Bound != 110 || !e.Optimal || e.BoundBy.Revision != "def" || e.FootprintBy.Revision != "abc" {
		t.Fatalf("entry %+v, want footprint 110 (abc) bound 110 (def) optimal", e)
	}
	back, err := Parse(tb.Marshal())
	if err != nil || !reflect.DeepEqual(back, tb) {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
}

func TestUpdateContradiction(t *testing.T) {
	tb := Table{}
	_, err := tb.Update([]results.Record{rec("a", results.StatusOK, 100, 90, 0), rec("liar", results.StatusOK, 120, 90, 110)}, "r", "d")
	if err == nil || !strings.Contains(err.Error(), "bound 110 (liar) exceeds the validated footprint 100 (a)") {
		t.Fatalf("error %v", err)
	}
	if len(tb) != 0 {
		t.Fatalf("table changed on error: %+v", tb)
	}
}

func TestParseRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"h":{"workload":"w","footprint":10,"bound":12,"optimal":false}}`: `entry "h": footprint 10 is below its bound 12`,
		`{"h":{"workload":"w","footprint":12,"bound":12,"optimal":false}}`: `entry "h": optimal is false, but footprint 12 and bound 12 say true`,
		`{"h":null}`: `entry "h": want an object, got null`,
	} {
		_, err := Parse([]byte(in))
		var ee *EntryError
		if !errors.As(err, &ee) || err.Error() != want {
			t.Errorf("Parse(%s): error %v, want %s", in, err, want)
		}
	}
}

func TestShipped(t *testing.T) {
	for h, e := range Shipped() {
		if e.Footprint < e.LBLoad || e.Bound < e.LBLoad || e.FootprintBy.Subject == "" || e.FootprintBy.Revision == "" {
			t.Errorf("shipped entry %s: %+v", h, e)
		}
	}
}
