package trec

import (
	"math"

	"github.com/rankeval/rankeval/reader/internal/batch"
)

// The judgments of -R prefs (get_prefs.c): lines
//
//	qid  jg  jsg  docno  rel_level
//
// A judgment group (jg) is one user's information need; within it, each
// judgment sub-group (jsg) prefers every document to those of its lower
// rel_levels, and the sub-groups' preferences join transitively. A
// rel_level of 0 means not relevant. -R qrels_prefs reads a qrels file
// (qid iter docno label) so: the iter field is the jg, one sub-group.
// trec_eval 9.0.8 keeps a rel_level as a 32-bit float, 10.0 as a double.

// PrefLine is one line of a prefs file.
type PrefLine struct {
	JG, JSG, Doc string
	Rel          float64
	Line         int64
}

// Prefs is a prefs (or qrels_prefs) file, read: its lines by query.
type Prefs struct {
	Name    string
	ByQuery map[string][]PrefLine
}

// ReadPrefs reads the prefs file name in -R format (prefs or
// qrels_prefs), skipping comment lines when comments is set, as trec_eval
// release reads it (9.0.8 keeps a rel_level as a 32-bit float).
func ReadPrefs(name, format, release string, comments bool) (*Prefs, error) {
	t, err := OpenTextLines(name, comments, true)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	fields, shape := 5, "qid jg jsg docno rel_level"
	if format == "qrels_prefs" {
		fields, shape = 4, "qid jg docno rel_level"
	}
	f := &Prefs{Name: t.Name(), ByQuery: map[string][]PrefLine{}}
	var lastQ string
	var lines []PrefLine
	started := false
	for t.Next() {
		if n := t.Fields(); n != fields {
			return nil, batch.ParseErrorf(t.Name(), t.Line(), "a -R %s line has %d fields (%s), found %d: %w", format, fields, shape, n, batch.ErrSyntax)
		}
		l := PrefLine{JG: string(t.Field(1)), JSG: "0", Line: t.Line()}
		if fields == 5 {
			l.JSG = string(t.Field(2))
		}
		l.Doc = string(t.Field(fields - 2))
		lev := t.Field(fields - 1)
		rel, ok := ParseNumber(lev)
		if !ok || math.IsNaN(rel) || math.IsInf(rel, 0) {
			return nil, batch.ParseErrorf(t.Name(), t.Line(), "rel_level %q is not a number: %w", lev, batch.ErrValue)
		}
		if release == "9.0.8" {
			if math.Abs(rel) > math.MaxFloat32 {
				return nil, batch.ParseErrorf(t.Name(), t.Line(), "rel_level %q is beyond the range of the 32-bit floats trec_eval 9.0.8 keeps it in: %w", lev, batch.ErrValue)
			}
			rel = float64(float32(rel))
		}
		l.Rel = rel
		// a query's lines usually come together: one map access each
		if q := t.Field(0); !started || string(q) != lastQ {
			if started {
				f.ByQuery[lastQ] = lines
			}
			started, lastQ = true, string(q)
			lines = f.ByQuery[lastQ]
		}
		lines = append(lines, l)
	}
	if err := t.Err(); err != nil {
		return nil, err
	}
	if started {
		f.ByQuery[lastQ] = lines
	}
	return f, nil
}
