// Package docblock owns the generated blocks of the docs: a fenced block
// that follows a line `<!-- generated: COMMAND ARGS... -->` holds what the
// command prints for those arguments (its --help, say), and each command's
// test regenerates its blocks and fails when a page differs, so the
// reference cannot drift from the code (-update rewrites the page).
package docblock

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

const (
	open  = "<!-- generated: "
	close = " -->"
	fence = "```"
)

// Block is one generated block of a page.
type Block struct {
	Command string   // the program, as rankeval or rankeval-beam
	Args    []string // its arguments
	Body    string   // what the page holds now
}

// Update returns page with the body of every block whose command is
// command replaced by what gen prints for its arguments, and the blocks
// that changed. A marker not followed by a fenced block is an error.
func Update(page []byte, command string, gen func(args []string) (string, error)) ([]byte, []string, error) {
	var out bytes.Buffer
	var changed []string
	lines := strings.SplitAfter(string(page), "\n")
	for i := 0; i < len(lines); i++ {
		out.WriteString(lines[i])
		line := strings.TrimRight(lines[i], "\n")
		if !strings.HasPrefix(line, open) || !strings.HasSuffix(line, close) {
			continue
		}
		words := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, open), close))
		if len(words) == 0 || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], fence) {
			return nil, nil, fmt.Errorf("line %d: %q is not followed by a fenced block", i+1, line)
		}
		out.WriteString(lines[i+1])
		end := i + 2
		for end < len(lines) && strings.TrimRight(lines[end], "\n") != fence {
			end++
		}
		if end == len(lines) {
			return nil, nil, fmt.Errorf("line %d: the block after %q is never closed", i+1, line)
		}
		body := strings.Join(lines[i+2:end], "")
		if words[0] == command {
			got, err := gen(words[1:])
			if err != nil {
				return nil, nil, fmt.Errorf("line %d: %s: %w", i+1, strings.Join(words, " "), err)
			}
			if got != "" && !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			if got != body {
				changed = append(changed, strings.Join(words, " "))
			}
			body = got
		}
		out.WriteString(body)
		i = end - 1
	}
	return out.Bytes(), changed, nil
}

// Sync reads the page at path and regenerates command's blocks: it
// rewrites the page when update is set, and otherwise fails when a block
// differs from what gen prints, naming the blocks and how to update them
// (hint: the command line that does).
func Sync(path, command string, update bool, hint string, gen func(args []string) (string, error)) error {
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	got, changed, err := Update(page, command, gen)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if update {
		return os.WriteFile(path, got, 0o644)
	}
	if len(changed) > 0 {
		return fmt.Errorf("%s is not what these print now (%s): %s", path, hint, strings.Join(changed, "; "))
	}
	return nil
}
