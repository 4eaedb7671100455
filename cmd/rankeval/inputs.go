package main

import "github.com/rankeval/rankeval/reader"

// expandInputs turns the arguments into the files to read, in order:
// directories recursively (data-lake part files in lexical order, hidden and
// _SUCCESS-style names skipped) and globs (for shells that pass them
// through quoted). Hive partition values are not used yet.
func expandInputs(args []string) ([]string, error) {
	ins, err := reader.Expand(args)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(ins))
	for i, in := range ins {
		paths[i] = in.Path
	}
	return paths, nil
}
