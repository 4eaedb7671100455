package evalflags

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/config"
)

// ConfigEnv is the environment variable that names a settings file when
// --config is not given.
const ConfigEnv = "RANKEVAL_CONFIG"

// ConfigFlag is the flag that names a settings file.
const ConfigFlag = "config"

// Origins of a setting, as the JSON summary's settings object shows them.
const (
	FromCommandLine = "command line"
	FromEnvironment = "environment " + ConfigEnv
)

// notInFile are the flags a settings file may not hold: they are about
// the command, not about a run.
var notInFile = map[string]bool{ConfigFlag: true, "help": true, "h": true, "version": true}

// aliases maps a flag's short form to the setting it writes.
var aliases = map[string]string{"m": "metrics", "h": "help"}

func canonical(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// RegisterConfig defines --config on fs, storing into path.
func RegisterConfig(fs *flag.FlagSet, path *string) {
	fs.StringVar(path, ConfigFlag, *path, "a settings file: one flag a line as on the command line (--query-col qid),\n# comments, blank lines, a value with spaces in double quotes; flags on the\ncommand line override it (a flag given there replaces all of the file's lines\nof that flag, as -m does); "+ConfigEnv+" names one when --config is not given,\nand --config '' reads none")
}

// Setting is one line of a settings file: the flag (as written, without
// dashes), its value, and whether the line gave one (--unsorted does not).
type Setting struct {
	Name     string
	Value    string
	HasValue bool
	Line     int
}

// ErrSettings is wrapped by every error about a settings file's lines.
var ErrSettings = errors.New("bad settings file")

// ReadSettings reads the settings file text r, named path in messages,
// whose flags fs defines: one flag a line (--name value, --name=value, or
// a boolean --name), blank lines and # comments (a line's rest from a #
// outside quotes), a value in double quotes (with \" and \\) or single
// quotes (as written) when it holds spaces. A flag fs does not define, a
// flag about the command (--config, --help, --version), a line that is
// no flag, or a value missing or extra is an error naming path:line.
func ReadSettings(path string, r io.Reader, fs *flag.FlagSet) ([]Setting, error) {
	var out []Setting
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		bad := func(format string, a ...any) error {
			return config.Usagef("%s:%d: %w: %s", path, n, ErrSettings, fmt.Sprintf(format, a...))
		}
		words, err := splitLine(sc.Text())
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(words) == 0 {
			continue
		}
		w := words[0]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			return nil, bad("%q is not a flag (write one flag a line, as --query-col qid)", w)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(w, "-"), "-")
		s := Setting{Line: n}
		s.Name, s.Value, s.HasValue = strings.Cut(name, "=")
		f := fs.Lookup(s.Name)
		switch {
		case f == nil:
			return nil, bad("unknown flag --%s", s.Name)
		case notInFile[s.Name]:
			return nil, bad("--%s cannot be given in a settings file", s.Name)
		}
		boolean := false
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			boolean = true
		}
		rest := words[1:]
		if !s.HasValue && !boolean && len(rest) > 0 {
			s.Value, s.HasValue, rest = rest[0], true, rest[1:]
		}
		switch {
		case len(rest) > 0:
			return nil, bad("%q after --%s: one flag a line (quote a value with spaces)", rest[0], s.Name)
		case !s.HasValue && !boolean:
			return nil, bad("--%s needs a value", s.Name)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, config.Usagef("--config %s: %w", path, err)
	}
	return out, nil
}

// splitLine splits a settings line into words as a shell would for the
// simple cases: blanks separate words, a # that starts a word starts a
// comment, and quotes group (double quotes with \" and \\ escapes,
// single quotes as written).
func splitLine(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case ch == '#' && !inWord:
			return words, nil
		case ch == '"':
			inWord = true
			closed := false
			for i++; i < len(line); i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				} else if line[i] == '"' {
					closed = true
					break
				}
				cur.WriteByte(line[i])
			}
			if !closed {
				return nil, errors.New("a double quote is not closed")
			}
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
		default:
			inWord = true
			cur.WriteByte(ch)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// ParseSettings parses args with fs as Parse does, then applies the
// settings file that --config names (or, when --config is not given, the
// one getenv(ConfigEnv) names; fs must define --config, see
// RegisterConfig): each flag of the file that the command line does not
// give is set, in the file's order, so the command line overrides the
// file, and a flag given there replaces every line of the file that gives
// it (-m and --metrics are one flag). It returns the positional arguments
// and where each setting given came from: flag name -> FromCommandLine,
// "file:PATH:LINE" (the first line that gives it) or, for --config itself,
// FromEnvironment. With --help or --version given no file is read.
func ParseSettings(fs *flag.FlagSet, args []string, getenv func(string) string) ([]string, map[string]string, error) {
	pos, err := Parse(fs, args)
	if err != nil {
		return nil, nil, err
	}
	origins := map[string]string{}
	fs.Visit(func(f *flag.Flag) { origins[canonical(f.Name)] = FromCommandLine })
	path := ""
	if _, ok := origins[ConfigFlag]; ok {
		path = fs.Lookup(ConfigFlag).Value.String()
	} else if path = getenv(ConfigEnv); path != "" {
		origins[ConfigFlag] = FromEnvironment
	}
	if path == "" {
		delete(origins, ConfigFlag) // --config '': no file
		return pos, origins, nil
	}
	for name := range notInFile {
		if name != ConfigFlag && origins[name] == FromCommandLine {
			return pos, origins, nil // --help and --version need no settings, nor a good file
		}
	}
	name := "--config"
	if origins[ConfigFlag] == FromEnvironment {
		name = ConfigEnv
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, config.Usagef("%s %s: %w", name, strconv.Quote(path), err)
	}
	defer file.Close()
	settings, err := ReadSettings(path, file, fs)
	if err != nil {
		return nil, nil, err
	}
	fromFile := map[string]bool{}
	for _, s := range settings {
		c := canonical(s.Name)
		if origins[c] == FromCommandLine {
			continue
		}
		v := s.Value
		if !s.HasValue {
			v = "true"
		}
		if err := fs.Set(s.Name, v); err != nil {
			return nil, nil, config.Usagef("%s:%d: %w: invalid value %q for --%s: %v", path, s.Line, ErrSettings, v, s.Name, err)
		}
		if !fromFile[c] {
			fromFile[c], origins[c] = true, fmt.Sprintf("file:%s:%d", path, s.Line)
		}
	}
	return pos, origins, nil
}
