package reader

import (
	"bufio"
	"fmt"
	"os"
)

// Placeholders until the Parquet and Arrow IPC readers land: the format is
// recognised and refused clearly rather than parsed as JSON.

func openParquet(name string, f *os.File, _ Columns, _ Options) (Reader, error) {
	f.Close()
	return nil, fmt.Errorf("%s: Parquet input is not supported yet: %w", name, ErrFormat)
}

func openArrowFile(name string, f *os.File, _ Columns, _ Options) (Reader, error) {
	f.Close()
	return nil, fmt.Errorf("%s: Arrow IPC input is not supported yet: %w", name, ErrFormat)
}

func openArrowStream(name string, _ *bufio.Reader, f *os.File, _ Columns, _ Options) (Reader, error) {
	f.Close()
	return nil, fmt.Errorf("%s: Arrow IPC input is not supported yet: %w", name, ErrFormat)
}
