package batch

import (
	"fmt"
	"strings"
)

// Kinds of requested columns beyond the five roles fQuery..fRank.
const (
	KExtra      = NFields + iota // a slice column (Columns.Extra), read as text
	KExtraScore                  // a further score column (Columns.ExtraScore)
	KNumber                      // a numeric column of a run's rules (Columns.Numbers)
	KText                        // a text column of a run's rules (Columns.Texts)
)

// ColReq is one column a columnar reader must find.
type ColReq struct {
	Name string
	Kind int // fQuery..fRank, kExtra, kExtraScore, kNumber or kText
	X    int // index in Columns.Extra, ExtraScore, Numbers or Texts
	// what and flag name a kNumber or kText column in messages (Named.Role, Flag)
	what, flag string
	Optional   bool // may be absent or null (the doc column with DocOptional)
}

// ReadLabel is the name of the label column to read: Label, or "" under
// LabelUnread.
func (c Columns) ReadLabel() string {
	if c.LabelUnread {
		return ""
	}
	return c.Label
}

func (c Columns) Requests() []ColReq {
	var rs []ColReq
	for f, n := range [NFields]string{c.Query, c.Doc, c.Score, c.ReadLabel(), c.Rank} {
		if n != "" {
			rs = append(rs, ColReq{Name: n, Kind: f, Optional: f == FDoc && c.DocOptional})
		}
	}
	for x, n := range c.Extra {
		rs = append(rs, ColReq{Name: n, Kind: KExtra, X: x})
	}
	for x, n := range c.ExtraScore {
		rs = append(rs, ColReq{Name: n, Kind: KExtraScore, X: x})
	}
	for x, n := range c.Numbers {
		rs = append(rs, ColReq{Name: n.Name, Kind: KNumber, X: x, what: n.Role, flag: n.Flag})
	}
	for x, n := range c.Texts {
		rs = append(rs, ColReq{Name: n.Name, Kind: KText, X: x, what: n.Role, flag: n.Flag})
	}
	return rs
}

// Role names the request in messages, as the JSONL reader does.
func (r ColReq) Role() string {
	switch r.Kind {
	case KExtra:
		return "a slice column"
	case KExtraScore:
		return "a score column"
	case KNumber, KText:
		return r.what
	}
	return "the " + FieldRole[r.Kind] + " column"
}

// FlagName is the flag that names the request's column.
func (r ColReq) FlagName() string {
	if r.Kind == KNumber || r.Kind == KText {
		return r.flag
	}
	return KindFlag(r.Kind)
}

// Types says, for an error message, which Arrow types the request accepts.
func (r ColReq) Types() string {
	switch r.Kind {
	case FQuery, FDoc:
		return "string, large_string, binary, string_view, dictionary of strings, or an integer"
	case FScore, KExtraScore, KNumber:
		return "float, integer or decimal"
	case FLabel:
		return "integer, float or boolean"
	case KExtra, KText:
		return "string, dictionary of strings, integer, float, boolean, date or decimal"
	}
	return "integer, or float of whole numbers"
}

// field roles of the configured columns.
const (
	FQuery = iota
	FDoc
	FScore
	FLabel
	FRank
	NFields
)

var FieldRole = [NFields]string{"query", "doc", "score", "label", "rank"}

// RoleFlag is the command-line flag that names each role's column, for
// messages about a column that is missing.
var RoleFlag = [NFields]string{"--query-col", "--doc-col", "--score-col", "--label-col", "--rank-col"}

// KindFlag is the flag that names a column of kind (a role, kExtra or
// kExtraScore).
func KindFlag(kind int) string {
	switch kind {
	case KExtra:
		return "--by"
	case KExtraScore:
		return "--score-col"
	}
	return RoleFlag[kind]
}

// MaxExtra bounds Columns.Extra, Texts, ExtraScore and Numbers together,
// so one word can record which of them a line has.
const MaxExtra = 64

func ListNames(names []string) string {
	const most = 20
	switch {
	case len(names) == 0:
		return "no columns"
	case len(names) > most:
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}
