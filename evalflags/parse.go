package evalflags

import (
	"flag"
	"strings"
)

// Parse parses args with fs and returns the positional arguments: flags may
// come before, between and after them, as people write `rankeval logs/
// -m ndcg@10`. A lone "--" ends the flags; everything after it is
// positional, so a file whose name starts with "-" can still be named
// ("-" alone is standard input, an argument like any other).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		// split off the flags before the next positional argument (or
		// "--"), which flag.Parse would otherwise stop at
		i := flagsEnd(fs, args)
		if err := fs.Parse(args[:i]); err != nil {
			return nil, err
		}
		args = args[i:]
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return pos, nil
}

// flagsEnd is the index of the first argument that is not a flag or a
// flag's value: a positional argument or "--".
func flagsEnd(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return i
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // flag.Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		i++ // the flag's value, whatever it looks like
	}
	return len(args)
}
