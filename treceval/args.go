package treceval

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/config"
)

// trecEvalArgs is trec_eval's command line, read.
type trecEvalArgs struct {
	perQuery, noSummary, complete, judgedOnly, help bool
	level, maxDocs, numDocs, debugLevel             int64
	debugQuery                                      string
	measures                                        []string // -m arguments, in order
	relFormat, resultsFormat, zscores               string
	qrels, run                                      string
	release                                         string // config.TrecReleases
}

// trecEvalLong are trec_eval's long options and their short ones.
var trecEvalLong = map[string]byte{
	"help": 'h', "version": 'v', "query_eval_wanted": 'q', "measure": 'm', "complete_rel_info_wanted": 'c',
	"level_for_rel": 'l', "nosummary": 'n', "Debug_level": 'D', "Judged_docs_only": 'J',
	"Number_docs_in_coll": 'N', "Max_retrieved_per_topic": 'M', "Rel_info_format": 'R',
	"Results_format": 'T', "Output_old_results_format": 'o', "Zscore": 'Z',
}

// trecEvalWithArg are the short options that take an argument (getopt's
// "hvqm:cl:nD:JN:M:R:T:oZ:"); every long one but help, version,
// query_eval_wanted, complete_rel_info_wanted, nosummary and
// Judged_docs_only takes one, --Output_old_results_format too, though -o
// does not.
const trecEvalWithArg = "mlDNMRTZ"

// longTakesArg reports whether long option name takes an argument.
func longTakesArg(name string) bool {
	return strings.IndexByte(trecEvalWithArg, trecEvalLong[name]) >= 0 || name == "Output_old_results_format"
}

// longOption finds a long option as getopt_long does: its full name, or
// a prefix of only one.
func longOption(name string) (string, bool) {
	if _, ok := trecEvalLong[name]; ok {
		return name, true
	}
	found := ""
	for full := range trecEvalLong {
		if strings.HasPrefix(full, name) {
			if found != "" {
				return "", false
			}
			found = full
		}
	}
	return found, found != "" && name != ""
}

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
	release := config.TrecReleases[0]
	if len(args) > 0 && (args[0] == "--release" || strings.HasPrefix(args[0], "--release=")) {
		var ok bool
		if release, ok = strings.CutPrefix(args[0], "--release="); ok {
			args = args[1:]
		} else if len(args) > 1 {
			release, args = args[1], args[2:]
		} else {
			return "", nil, trecUsagef("trec_eval: --release needs a release: %s", strings.Join(config.TrecReleases, " or "))
		}
		if !slices.Contains(config.TrecReleases, release) {
			return "", nil, trecUsagef("trec_eval: --release %q: want %s", release, strings.Join(config.TrecReleases, " or "))
		}
	}
	return release, args, nil
}

// parseTrecEvalArgs reads args as GNU getopt does for trec_eval: options
// anywhere, short ones bundled (-qc) or with their argument attached
// (-l2, -mmap), long ones as --name=value or --name value (or a unique
// prefix of the name), -- ending them. -v stops at once; -h is noted, and
// the other options still read (-h -m P describes P).
func parseTrecEvalArgs(args []string) (*trecEvalArgs, error) {
	a := &trecEvalArgs{level: 1, relFormat: "qrels", resultsFormat: "trec_results"}
	var err error
	if a.release, args, err = splitRelease(args); err != nil {
		return nil, err
	}
	whole := func(opt byte, val, what string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return 0, trecUsagef("trec_eval: -%c %q: want a whole number (%s)", opt, val, what)
		}
		return n, nil
	}
	var pos []string
	set := func(opt byte, val string) error {
		var err error
		switch opt {
		case 'h':
			a.help = true
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
		case 'o': // obsolete in trec_eval, and ignored
		case 'm':
			a.measures = append(a.measures, val)
		case 'l':
			if a.level, err = whole(opt, val, "the lowest relevant judgment"); err == nil && a.level < 0 {
				// trec_eval then counts a document outside the qrels as
				// relevant in some measures (its ranked judgment, -1, is
				// >= -l) and not in others (num_rel_ret and those reading it)
				err = trecUsagef("trec_eval: -l %d: rankeval trec_eval takes a level from 0 up (below, trec_eval counts the unjudged documents as relevant in some measures and not in others)", a.level)
			}
		case 'M':
			if a.maxDocs, err = whole(opt, val, "documents per query"); err == nil && a.maxDocs < 1 {
				err = trecUsagef("trec_eval: -M %q: want a number of documents >= 1", val)
			}
		case 'N':
			a.numDocs, err = whole(opt, val, "documents in the collection")
		case 'D':
			level, q, _ := strings.Cut(val, ".")
			a.debugQuery = q
			a.debugLevel, err = whole(opt, level, "the debug level")
		case 'R':
			a.relFormat = val
		case 'T':
			a.resultsFormat = val
		case 'Z':
			a.zscores = val
		default:
			return trecUsagef("trec_eval: unknown option -%c", opt)
		}
		return err
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "--"):
			given, val, hasVal := strings.Cut(arg[2:], "=")
			name, ok := longOption(given)
			if !ok {
				return nil, trecUsagef("trec_eval: unknown option --%s", given)
			}
			switch {
			case longTakesArg(name) && !hasVal:
				if i+1 >= len(args) {
					return nil, trecUsagef("trec_eval: --%s needs an argument", name)
				}
				i++
				val = args[i]
			case !longTakesArg(name) && hasVal:
				return nil, trecUsagef("trec_eval: --%s takes no argument", name)
			}
			if err := set(trecEvalLong[name], val); err != nil {
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
	if a.help {
		return a, nil
	}
	if len(pos) != 2 {
		return nil, trecUsagef("trec_eval: want two files, QRELS and RUN (got %d); rankeval trec_eval -h for help", len(pos))
	}
	a.qrels, a.run = pos[0], pos[1]
	return a, nil
}

// comments says whether the inputs may hold comment lines: trec_eval 10.0
// skips them, 9.0.8 reads them as data.
func (a *trecEvalArgs) comments() bool { return a.release != "9.0.8" }
