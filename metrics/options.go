package metrics

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadOption is wrapped when a convention's name is not one of its
// values.
var ErrBadOption = errors.New("unknown value")

// The names of the conventions' values, as flags take them and summaries
// print them; the index is the value.
var (
	tiesNames  = []string{TiesInput: "input", TiesTrec: "trec", TiesOptimistic: "optimistic", TiesPessimistic: "pessimistic", TiesAverage: "average"}
	gainNames  = []string{GainExp: "exp", GainLinear: "linear"}
	emptyNames = []string{EmptySkip: "skip", EmptyZero: "zero", EmptyOne: "one", EmptyError: "error"}
)

func (t Ties) String() string  { return nameOf(tiesNames, int(t)) }
func (g Gain) String() string  { return nameOf(gainNames, int(g)) }
func (e Empty) String() string { return nameOf(emptyNames, int(e)) }

// ParseTies reads a tie policy's name (case-insensitive).
func ParseTies(s string) (Ties, error) { v, err := parseName(tiesNames, s); return Ties(v), err }

// ParseGain reads a gain's name (case-insensitive).
func ParseGain(s string) (Gain, error) { v, err := parseName(gainNames, s); return Gain(v), err }

// ParseEmpty reads an empty-query policy's name (case-insensitive).
func ParseEmpty(s string) (Empty, error) { v, err := parseName(emptyNames, s); return Empty(v), err }

func nameOf(names []string, v int) string {
	if v < 0 || v >= len(names) {
		return fmt.Sprintf("?(%d)", v)
	}
	return names[v]
}

// parseName returns the index of s in names; the error lists them all, as
// "want a, b or c".
func parseName(names []string, s string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return i, nil
		}
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return 0, optionError(fmt.Sprintf("%q: want %s", s, want))
}

// optionError is ErrBadOption with a message that lists the choices, and
// nothing after them: it ends the line a user reads.
type optionError string

func (e optionError) Error() string        { return string(e) }
func (e optionError) Is(target error) bool { return target == ErrBadOption }
