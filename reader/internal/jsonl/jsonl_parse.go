package jsonl

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// The parse of one JSONL line into a row: its members, found by the
// scanner (jsonscan.go), each value checked and converted by its column's
// role, every error naming the file and line. jsonl.go reads the lines.

// row holds the values of one line as they are scanned.
type row struct {
	seen         uint8
	query, doc   []byte
	score, label float64
	rank         int64
}

func (j *Jsonl) fail(kind error, format string, a ...any) error {
	return batch.ParseErrorf(j.Name, j.Line, "%s: %w", fmt.Sprintf(format, a...), kind)
}

func (j *Jsonl) Parse(s []byte) error {
	if j.Line == 1 {
		// a byte order mark, as some Windows tools write, is not content
		s = bytes.TrimPrefix(s, scan.Bom)
	}
	p := scan.SkipSpace(s, 0)
	if p == len(s) {
		return nil // blank line: no row, nothing lost
	}
	if s[p] != '{' {
		return j.fail(batch.ErrSyntax, "expected a JSON object, found %s", scan.QuoteSnippet(s[p:]))
	}
	var rw row
	j.xseen = 0
	p, err := j.members(s, scan.SkipSpace(s, p+1), &rw)
	if err != nil {
		return err
	}
	if p = scan.SkipSpace(s, p); p != len(s) {
		return j.fail(batch.ErrSyntax, "unexpected %s after the object", scan.QuoteSnippet(s[p:]))
	}
	for f := range batch.NFields {
		if j.keys[f] != "" && rw.seen&(1<<f) == 0 && !(f == batch.FDoc && j.docOpt) {
			role := "the " + batch.FieldRole[f] + " column"
			if f == batch.FScore && j.missScore || f == batch.FLabel && j.missLabel {
				// the policy reads a null; a field left out (as some writers
				// do with nulls) is not taken for one: a misnamed column
				// would then drop or rank last every row
				return j.fail(batch.ErrColumn, "no %q field (%s); %s; %s reads a null value, not a field left out: write the field as null, or name %s with %s",
					j.keys[f], role, j.fieldNames(s), batch.MissingFlag(f), role, batch.RoleFlag[f])
			}
			return j.fail(batch.ErrColumn, "no %q field (%s); %s; name %s with %s", j.keys[f], role, j.fieldNames(s), role, batch.RoleFlag[f])
		}
	}
	if want := uint64(1)<<len(j.xkeys) - 1; j.xseen != want {
		for x, k := range j.xkeys {
			if j.xseen&(1<<x) == 0 {
				return j.fail(batch.ErrColumn, "no %q field (%s); %s; name %s with %s", k, j.xrole(x), j.fieldNames(s), j.xrole(x), j.xflag(x))
			}
		}
	}
	b := j.B
	b.Query.Append(rw.query)
	if j.keys[batch.FDoc] != "" {
		b.Doc.Append(rw.doc)
	}
	if j.keys[batch.FScore] != "" {
		b.Score = append(b.Score, rw.score)
	}
	b.Label = append(b.Label, rw.label)
	if j.keys[batch.FRank] != "" {
		b.Rank = append(b.Rank, rw.rank)
	}
	for c := range b.Extra {
		b.Extra[c].Append(j.xtext[c])
	}
	for c := range b.Texts {
		b.Texts[c].Append(j.xtext[len(b.Extra)+c])
	}
	for c := range b.ExtraScore {
		b.ExtraScore[c] = append(b.ExtraScore[c], j.xnum[c])
	}
	for c := range b.Numbers {
		b.Numbers[c] = append(b.Numbers[c], j.xnum[len(b.ExtraScore)+c])
	}
	b.Pos = append(b.Pos, j.Line)
	b.N++
	return nil
}

// fieldNames lists the keys of the object on line s (which parsed), for a
// message about a field it lacks.
func (j *Jsonl) fieldNames(s []byte) string {
	var names []string
	seen := map[string]bool{}
	var scratch []byte
	s = bytes.TrimPrefix(s, scan.Bom)
	p := scan.SkipSpace(s, 0) + 1 // past '{'
	for {
		p = scan.SkipSpace(s, p)
		if p >= len(s) || s[p] != '"' {
			break
		}
		key, np, err := j.ScanString(s, p+1, &scratch)
		if err != nil {
			break
		}
		if k := string(key); !seen[k] {
			seen[k] = true
			names = append(names, strconv.Quote(k))
		}
		p = scan.SkipSpace(s, np)
		if p >= len(s) || s[p] != ':' {
			break
		}
		if p, err = j.SkipValue(s, scan.SkipSpace(s, p+1)); err != nil {
			break
		}
		p = scan.SkipSpace(s, p)
		if p >= len(s) || s[p] != ',' {
			break
		}
		p++
	}
	if len(names) == 0 {
		return "the line has no fields"
	}
	return "the line has fields " + batch.ListNames(names)
}

// xnamed is extra column x when it is one of Texts or Numbers.
func (j *Jsonl) xnamed(x int) (batch.Named, bool) {
	if n := x - (j.nxText - len(j.texts)); x < j.nxText && n >= 0 {
		return j.texts[n], true
	}
	if n := x - (len(j.xkeys) - len(j.numbers)); n >= 0 {
		return j.numbers[n], true
	}
	return batch.Named{}, false
}

func (j *Jsonl) xrole(x int) string {
	if c, ok := j.xnamed(x); ok {
		return c.Role
	}
	if x < j.nxText {
		return "a slice column"
	}
	return "a score column"
}

// xflag is the flag that names extra column x.
func (j *Jsonl) xflag(x int) string {
	if c, ok := j.xnamed(x); ok {
		return c.Flag
	}
	if x < j.nxText {
		return batch.KindFlag(batch.KExtra)
	}
	return batch.KindFlag(batch.KExtraScore)
}

// extraValue parses the value of extra column x at s[p:].
func (j *Jsonl) extraValue(s []byte, p, x int) (int, error) {
	if p >= len(s) {
		return p, j.fail(batch.ErrSyntax, "missing value for %q", j.xkeys[x])
	}
	if x >= j.nxText {
		if score := x-j.nxText < len(j.xnum)-len(j.numbers); score && s[p] == 'n' {
			if tok, e := j.token(s, p); string(tok) == "null" {
				if !j.missScore {
					return e, j.fail(batch.ErrValue, "%q (%s) must be a number, found \"null\"%s", j.xkeys[x], j.xrole(x), batch.MissingHint(batch.KExtraScore))
				}
				j.xnum[x-j.nxText] = math.NaN()
				return e, nil
			}
		}
		tok, e, ok := j.jsonNumber(s, p)
		v, _ := scan.ParseNumber(tok)
		if !ok {
			return e, j.notNumber(s, p, tok, j.xkeys[x], j.xrole(x), "a number")
		}
		if x-j.nxText < len(j.xnum)-len(j.numbers) { // an extra score column, not a Numbers one
			if msg := scan.InexactScore(tok, v); msg != "" {
				return e, j.fail(batch.ErrValue, "%q (%s): %s", j.xkeys[x], j.xrole(x), msg)
			}
		}
		j.xnum[x-j.nxText] = v
		return e, nil
	}
	switch s[p] {
	case '"':
		v, np, err := j.ScanString(s, p+1, &j.xScratch[x])
		j.xtext[x] = v
		return np, err
	case '{', '[':
		return p, j.fail(batch.ErrValue, "%q (%s) must be a string, number or boolean, found %s", j.xkeys[x], j.xrole(x), scan.QuoteSnippet(s[p:]))
	}
	tok, e := j.token(s, p)
	if string(tok) == "null" {
		return e, j.fail(batch.ErrValue, "%q (%s) is null; every row needs a value", j.xkeys[x], j.xrole(x))
	}
	if string(tok) != "true" && string(tok) != "false" {
		var ok bool
		if tok, e, ok = j.jsonNumber(s, p); !ok {
			return e, j.fail(batch.ErrValue, "%q (%s) must be a string, number or boolean, found %s%s", j.xkeys[x], j.xrole(x), scan.QuoteSnippet(valueText(s, p, tok)), numberHint(tok))
		}
	}
	j.xtext[x] = tok
	return e, nil
}

// members scans the key/value pairs of an object whose '{' precedes s[p],
// up to and including its '}'. A column's key given twice is an error
// (which value is meant?); other keys may repeat, as RFC 8259 allows.
func (j *Jsonl) members(s []byte, p int, rw *row) (int, error) {
	if p < len(s) && s[p] == '}' {
		return p + 1, nil
	}
	for {
		if p >= len(s) || s[p] != '"' {
			return p, j.fail(batch.ErrSyntax, "expected a quoted key at column %d", p+1)
		}
		// the usual key, without escapes, found here; others by scanString
		var key []byte
		var err error
		if np, found := PlainInWords(s, p+1); found && s[np] == '"' {
			key, p = s[p+1:np], np+1
		} else if key, np, err = j.ScanString(s, p+1, &j.kScratch); err != nil {
			return np, err
		} else {
			p = np
		}
		p = scan.SkipSpace(s, p)
		if p >= len(s) || s[p] != ':' {
			return p, j.fail(batch.ErrSyntax, "expected ':' after key %q at column %d", key, p+1)
		}
		p = scan.SkipSpace(s, p+1)
		// only the columns whose names have the key's length are compared,
		// so most keys are passed over without a comparison
		f, x := -1, -1
		fc, xc := j.anyLen, len(j.xkeys) > 0
		if len(key) < len(j.byLen) {
			fc, xc = j.byLen[len(key)], j.xLen[len(key)]
		}
		for ; fc != 0; fc &= fc - 1 {
			if i := bits.TrailingZeros8(fc); string(key) == j.keys[i] {
				f = i
				break
			}
		}
		if f < 0 && xc {
			for i, k := range j.xkeys {
				if string(key) == k {
					x = i
					break
				}
			}
		}
		if x >= 0 {
			if j.xseen&(1<<x) != 0 {
				return p, j.twice(j.xkeys[x], j.xrole(x))
			}
			p, err = j.extraValue(s, p, x)
			j.xseen |= 1 << x
		} else if f < 0 {
			// the usual unread value, a string without escapes, skipped
			// here; others by skipValue
			e, found := 0, false
			if p < len(s) && s[p] == '"' {
				e, found = PlainInWords(s, p+1)
			}
			if found && s[e] == '"' {
				p = e + 1
			} else {
				p, err = j.SkipValue(s, p)
			}
		} else {
			if rw.seen&(1<<f) != 0 {
				return p, j.twice(j.keys[f], "the "+batch.FieldRole[f]+" column")
			}
			p, err = j.value(s, p, f, rw)
			rw.seen |= 1 << f
		}
		if err != nil {
			return p, err
		}
		p = scan.SkipSpace(s, p)
		if p < len(s) && s[p] == ',' {
			p = scan.SkipSpace(s, p+1)
			continue
		}
		if p < len(s) && s[p] == '}' {
			return p + 1, nil
		}
		return p, j.fail(batch.ErrSyntax, "expected ',' or '}' at column %d", p+1)
	}
}

// twice is the error for a line that gives column key (which plays role)
// twice: no value of the two is more right than the other.
func (j *Jsonl) twice(key, role string) error {
	return j.fail(batch.ErrColumn, "%q (%s) appears twice in the line", key, role)
}

// value parses the value of configured field f at s[p:].
func (j *Jsonl) value(s []byte, p, f int, rw *row) (int, error) {
	if p >= len(s) {
		return p, j.fail(batch.ErrSyntax, "missing value for %q", j.keys[f])
	}
	switch f {
	case batch.FQuery, batch.FDoc:
		scratch := &j.qScratch
		if f == batch.FDoc {
			scratch = &j.dScratch
		}
		var v []byte
		var np int
		var err error
		if s[p] == '"' {
			v, np, err = j.ScanString(s, p+1, scratch)
			if err != nil {
				return np, err
			}
		} else {
			tok, e, ok := j.jsonNumber(s, p)
			if !ok || !scan.IsInteger(tok) {
				return e, j.fail(batch.ErrValue, "%q (the %s column) must be a string or an integer, found %s", j.keys[f], batch.FieldRole[f], scan.QuoteSnippet(valueText(s, p, tok)))
			}
			v, np = tok, e
		}
		if f == batch.FQuery {
			rw.query = v
		} else {
			rw.doc = v
		}
		return np, nil
	case batch.FScore, batch.FLabel:
		if f == batch.FLabel {
			if bytes.HasPrefix(s[p:], []byte("true")) {
				rw.label = 1
				return p + 4, nil
			}
			if bytes.HasPrefix(s[p:], []byte("false")) {
				rw.label = 0
				return p + 5, nil
			}
		}
		if s[p] == 'n' {
			if tok, e := j.token(s, p); string(tok) == "null" {
				if !(f == batch.FScore && j.missScore || f == batch.FLabel && j.missLabel) {
					what := "a number"
					if f == batch.FLabel {
						what = "a number or a boolean"
					}
					return e, j.fail(batch.ErrValue, "%q (the %s column) must be %s, found \"null\"%s", j.keys[f], batch.FieldRole[f], what, batch.MissingHint(f))
				}
				if f == batch.FScore {
					rw.score = math.NaN()
				} else {
					rw.label = math.NaN()
				}
				return e, nil
			}
		}
		tok, e, ok := j.jsonNumber(s, p)
		v, _ := scan.ParseNumber(tok)
		if !ok {
			what := "a number"
			if f == batch.FLabel {
				what = "a number or a boolean"
			}
			return e, j.notNumber(s, p, tok, j.keys[f], "the "+batch.FieldRole[f]+" column", what)
		}
		if f == batch.FScore {
			if msg := scan.InexactScore(tok, v); msg != "" {
				return e, j.fail(batch.ErrValue, "%q (the score column): %s", j.keys[f], msg)
			}
			rw.score = v
		} else {
			rw.label = v
		}
		return e, nil
	default: // fRank
		tok, e, ok := j.jsonNumber(s, p)
		if !ok {
			return e, j.notNumber(s, p, tok, j.keys[batch.FRank], "the rank column", "a whole number")
		}
		v, err := j.rank(s, p, tok)
		rw.rank = v
		return e, err
	}
}

// rank parses the rank token tok at s[p:] (scan.ParseRank).
func (j *Jsonl) rank(s []byte, p int, tok []byte) (int64, error) {
	v, bad := scan.ParseRank(tok)
	switch bad {
	case scan.RankNotNumber:
		return 0, j.notNumber(s, p, tok, j.keys[batch.FRank], "the rank column", "a whole number")
	case scan.RankNotWhole:
		return 0, j.fail(batch.ErrValue, "%q (the rank column) must be a whole number, found %s", j.keys[batch.FRank], scan.QuoteSnippet(tok))
	case scan.RankRange:
		return 0, j.fail(batch.ErrValue, "rank %s out of range", tok)
	}
	return v, nil
}

// notNumber is the error for the value at s[p:] (tok, when bare) of field
// col, which plays role and must be what (a number, ...). A number or a
// boolean written as a JSON string says so and gives the remedy; only the
// value is quoted, never the rest of the line.
func (j *Jsonl) notNumber(s []byte, p int, tok []byte, col, role, what string) error {
	if p < len(s) && s[p] == '"' {
		var scratch []byte
		if str, _, err := j.ScanString(s, p+1, &scratch); err == nil {
			t := bytes.TrimSpace(str)
			if _, ok := scan.ParseNumber(t); ok {
				return j.fail(batch.ErrValue, "%q (%s) is the string %s; write numbers without quotes, or convert the column", col, role, quoteValue(str))
			}
			if strings.Contains(what, "boolean") && (string(t) == "true" || string(t) == "false") {
				return j.fail(batch.ErrValue, "%q (%s) is the string %s; write booleans without quotes, or convert the column", col, role, quoteValue(str))
			}
			return j.fail(batch.ErrValue, "%q (%s) must be %s, found the string %s", col, role, what, quoteValue(str))
		}
	}
	return j.fail(batch.ErrValue, "%q (%s) must be %s, found %s%s", col, role, what, scan.QuoteSnippet(valueText(s, p, tok)), numberHint(tok))
}
