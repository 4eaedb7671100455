package pipeline

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
)

// teamBatch is testBatch with a team column of the values given.
func teamBatch(teams ...string) *reader.Batch {
	b := testBatch(len(teams), true)
	b.Texts = make([]reader.Strings, 1)
	b.Texts[0].Reset()
	for _, v := range teams {
		b.Texts[0].Append([]byte(v))
	}
	return b
}

func teamRules() *Rules {
	r := testRules(false)
	r.Metrics, _ = metrics.ParseList("interleave")
	r.Teams = Teams{A: "prod", B: "cand"}
	return r
}

// TestTeamsTaken: each row's team value is read as team A or B, carried
// through the encoding of spills and shuffles in parts, and kept in step
// with the rows a --dedup first drops.
func TestTeamsTaken(t *testing.T) {
	r := teamRules()
	b := teamBatch("prod", "cand", "cand", "prod", "cand")
	var whole Group
	if err := r.NewTaker(noWhere).Append(&whole, b, 0, 5, 0); err != nil {
		t.Fatal(err)
	}
	if want := []uint8{TeamA, TeamB, TeamB, TeamA, TeamB}; !reflect.DeepEqual(whole.Team, want) {
		t.Fatalf("teams %v, want %v", whole.Team, want)
	}
	var got Group
	for _, part := range [][2]int{{0, 2}, {2, 5}} {
		var p Group
		if err := r.NewTaker(noWhere).Append(&p, b, part[0], part[1], 0); err != nil {
			t.Fatal(err)
		}
		if err := r.NewTaker(noWhere).Decode(&got, p.AppendBinary(nil)); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(got, whole) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, whole)
	}
	// doc d1 repeated as the third row: dropped with its team
	b.Doc.Reset()
	for _, d := range []string{"d0", "d1", "d1", "d3", "d4"} {
		b.Doc.Append([]byte(d))
	}
	r.DedupFirst = true
	var g Group
	if err := r.NewTaker(noWhere).Append(&g, b, 0, 5, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := r.NewUnit(noWhere).Prepare(&g); n != 1 || err != nil {
		t.Fatalf("Prepare: %d dropped, %v", n, err)
	}
	if want := []uint8{TeamA, TeamB, TeamA, TeamB}; !reflect.DeepEqual(g.Team, want) || len(g.Label) != 4 {
		t.Fatalf("after dedup: teams %v, %d labels; want %v", g.Team, len(g.Label), want)
	}
}

// TestTeamsRefused: a value that names neither team is an input error
// naming the row; a team byte the run cannot have written is an encoding
// error.
func TestTeamsRefused(t *testing.T) {
	r := teamRules()
	for _, v := range []string{"A", "", "Prod", "prod "} {
		var g Group
		err := r.NewTaker(noWhere).Append(&g, teamBatch("prod", v), 0, 2, 0)
		if want := `in:11: team "` + v + `" is neither of --teams "prod" (A) and "cand" (B)`; !errors.Is(err, reader.ErrValue) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s", v, err, want)
		}
	}
	var g Group
	if err := r.NewTaker(noWhere).Append(&g, teamBatch("cand"), 0, 1, 0); err != nil {
		t.Fatal(err)
	}
	enc := g.AppendBinary(nil)
	if enc[len(enc)-1] != TeamB {
		t.Fatalf("the last byte %d is not the row's team", enc[len(enc)-1])
	}
	enc[len(enc)-1] = 2
	if err := r.NewTaker(noWhere).Decode(new(Group), enc); !errors.Is(err, ErrEncoding) {
		t.Fatalf("team 2: %v, want ErrEncoding", err)
	}
}
