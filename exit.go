package rankeval

import (
	"errors"
	"fmt"
	"io"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/treceval"
)

// The exit status of the commands (rankeval, rankeval merge, rankeval
// trec_eval, rankeval-beam), documented in the README.
const (
	ExitOK    = 0
	ExitError = 1 // an input or runtime error
	ExitUsage = 2 // a setting or command line a correction fixes
	ExitGate  = 3 // a quality gate failed (the summary was written)
)

// ExitCode is the exit status of a command that ended with err, which it
// reports on stderr as the commands do: "rankeval: " and the message, and
// after a usage error where the usage is (rankeval trec_eval's own for
// its errors, treceval.UsageError).
func ExitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "rankeval:", err)
	var tu treceval.UsageError
	switch {
	case errors.As(err, &tu):
		fmt.Fprintln(stderr, "Run 'rankeval trec_eval -h' for usage.")
		return ExitUsage
	case errors.Is(err, config.ErrUsage):
		fmt.Fprintln(stderr, "Run 'rankeval --help' for usage.")
		return ExitUsage
	case errors.Is(err, ErrGateFailed):
		return ExitGate
	}
	return ExitError
}
