package batch

import "fmt"

// ParseError is bad input at a place in it, as encoding/csv's ParseError
// is: the input's name as messages give it, the 1-based line (text
// formats) or row, the 1-based column of the line when one is known, and
// what is wrong, which wraps one of the sentinel errors (ErrSyntax,
// ErrValue, ...) or the error of the read that failed, so errors.Is and
// errors.As see through it. Its message is "input:line: err", or
// "input:line: column c: err" when Column is set.
type ParseError struct {
	Input  string
	Line   int64
	Column int
	Err    error
}

func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d: column %d: %v", e.Input, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Input, e.Line, e.Err)
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseErrorf returns a *ParseError at line of input whose Err is
// fmt.Errorf(format, a...): format wraps a sentinel error with %w.
func ParseErrorf(input string, line int64, format string, a ...any) error {
	return &ParseError{Input: input, Line: line, Err: fmt.Errorf(format, a...)}
}
