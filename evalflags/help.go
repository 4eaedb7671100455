package evalflags

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// PrintFlags lists the flags of fs (those keep keeps, or all when keep is
// nil) in the layout of every command's --help: the flag, its default
// when it has one, then its explanation indented below. One layout for
// rankeval, rankeval merge and rankeval-beam, which docs/cli.md shows.
func PrintFlags(w io.Writer, fs *flag.FlagSet, keep func(name string) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "h" || f.Name == "m" || keep != nil && !keep(f.Name) {
			return // the short forms are named with their long ones
		}
		name := "--" + f.Name
		switch f.Name {
		case "metrics":
			name = "-m, --metrics"
		case "help":
			name = "-h, --help"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s%s\n", name, def)
		for _, line := range strings.Split(f.Usage, "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	})
}
