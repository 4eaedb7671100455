package treceval

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/evalflags"
)

// trecEvalArgs is trec_eval's command line, read.
type trecEvalArgs struct {
	perQuery, noSummary, complete, judgedOnly bool
	level, maxDocs                            int64
	measures                                  []string // -m arguments, in order
	qrels, run                                string
	release                                   string // evalflags.TrecReleases
}

// trecEvalOptions are trec_eval's getopt options: those that take an
// argument, by short and long name. The long names are trec_eval's.
var trecEvalLong = map[string]byte{
	"help": 'h', "version": 'v', "query_eval_wanted": 'q', "measure": 'm', "complete_rel_info_wanted": 'c',
	"level_for_rel": 'l', "nosummary": 'n', "Debug_level": 'D', "Judged_docs_only": 'J',
	"Number_docs_in_coll": 'N', "Max_retrieved_per_topic": 'M', "Rel_info_format": 'R',
	"Results_format": 'T', "Output_old_results_format": 'o', "Zscore": 'Z',
}

const trecEvalWithArg = "mlDNMRTZ"

var errTrecEvalHelp = errors.New("trec_eval help")

// UsageError is a mistake in rankeval trec_eval's command line (exit 2),
// whose help is rankeval trec_eval -h.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// trecUsagef is a usage error of rankeval trec_eval.
func trecUsagef(format string, a ...any) error {
	return UsageError{Err: fmt.Errorf(format, a...)}
}

// ErrVersion is -v: the caller prints the version.
var ErrVersion = errors.New("trec_eval version asked")

// splitRelease takes --release RELEASE (or --release=RELEASE) off the
// front of args: rankeval's own choice, before trec_eval's arguments, so
// that trec_eval's getopt never sees it.
func splitRelease(args []string) (string, []string, error) {
	release := evalflags.TrecReleases[0]
	if len(args) > 0 && (args[0] == "--release" || strings.HasPrefix(args[0], "--release=")) {
		var ok bool
		if release, ok = strings.CutPrefix(args[0], "--release="); ok {
			args = args[1:]
		} else if len(args) > 1 {
			release, args = args[1], args[2:]
		} else {
			return "", nil, trecUsagef("trec_eval: --release needs a release: %s", strings.Join(evalflags.TrecReleases, " or "))
		}
		if !slices.Contains(evalflags.TrecReleases, release) {
			return "", nil, trecUsagef("trec_eval: --release %q: want %s", release, strings.Join(evalflags.TrecReleases, " or "))
		}
	}
	return release, args, nil
}

// parseTrecEvalArgs reads args as GNU getopt does for trec_eval: options
// anywhere, short ones bundled (-qc) or with their argument attached
// (-l2, -mmap), long ones as --name=value or --name value, -- ending them.
func parseTrecEvalArgs(args []string) (*trecEvalArgs, error) {
	a := &trecEvalArgs{level: 1}
	var err error
	if a.release, args, err = splitRelease(args); err != nil {
		return nil, err
	}
	var pos []string
	set := func(opt byte, val string) error {
		switch opt {
		case 'h':
			return errTrecEvalHelp
		case 'v':
			return ErrVersion
		case 'q':
			a.perQuery = true
		case 'n':
			a.noSummary = true
		case 'c':
			a.complete = true
		case 'J':
			a.judgedOnly = true
		case 'm':
			a.measures = append(a.measures, val)
		case 'l':
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return trecUsagef("trec_eval: -l %q: want a whole number (the lowest relevant judgment)", val)
			}
			a.level = n
		case 'M':
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 1 {
				return trecUsagef("trec_eval: -M %q: want a number of documents >= 1", val)
			}
			a.maxDocs = n
		case 'R':
			if val != "qrels" {
				return trecUsagef("trec_eval: -R %s: only the qrels format is supported", val)
			}
		case 'T':
			if val != "trec_results" {
				return trecUsagef("trec_eval: -T %s: only the trec_results format is supported", val)
			}
		case 'N', 'Z', 'D', 'o':
			return trecUsagef("trec_eval: -%c is not supported by rankeval trec_eval", opt)
		default:
			return trecUsagef("trec_eval: unknown option -%c", opt)
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "--"):
			name, val, hasVal := strings.Cut(arg[2:], "=")
			opt, ok := trecEvalLong[name]
			if !ok {
				return nil, trecUsagef("trec_eval: unknown option --%s", name)
			}
			if strings.IndexByte(trecEvalWithArg, opt) >= 0 && !hasVal {
				if i+1 >= len(args) {
					return nil, trecUsagef("trec_eval: --%s needs an argument", name)
				}
				i++
				val = args[i]
			}
			if err := set(opt, val); err != nil {
				return nil, err
			}
		case len(arg) > 1 && arg[0] == '-':
			for j := 1; j < len(arg); j++ {
				opt := arg[j]
				if strings.IndexByte(trecEvalWithArg, opt) < 0 {
					if err := set(opt, ""); err != nil {
						return nil, err
					}
					continue
				}
				val := arg[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, trecUsagef("trec_eval: -%c needs an argument", opt)
					}
					i++
					val = args[i]
				}
				if err := set(opt, val); err != nil {
					return nil, err
				}
				break
			}
		default:
			pos = append(pos, arg)
		}
	}
	if len(pos) != 2 {
		return nil, trecUsagef("trec_eval: want two files, QRELS and RUN (got %d); rankeval trec_eval -h for help", len(pos))
	}
	a.qrels, a.run = pos[0], pos[1]
	return a, nil
}
