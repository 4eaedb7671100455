package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rankeval/rankeval/pipeline"
)

// isTerminal reports whether w is a character device, where a progress
// line may update in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressPrinter shows progress to a person on a terminal (one line,
// redrawn) and as plain key=value log lines elsewhere (Airflow, cron).
func progressPrinter(w io.Writer, terminal bool) func(pipeline.Progress) {
	return func(p pipeline.Progress) {
		secs := p.Elapsed.Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(p.Rows) / secs
		}
		eta := time.Duration(-1)
		if p.TotalBytes > 0 && p.Bytes > 0 && !p.Done {
			eta = time.Duration(float64(p.Elapsed) * float64(p.TotalBytes-p.Bytes) / float64(p.Bytes))
		}
		if terminal {
			line := fmt.Sprintf("rankeval: %s rows, %s queries", human(float64(p.Rows)), human(float64(p.Queries)))
			if p.TotalBytes > 0 {
				line += fmt.Sprintf(", %s of %sB (%.0f%%)", human(float64(p.Bytes)), human(float64(p.TotalBytes)), 100*float64(p.Bytes)/float64(p.TotalBytes))
			}
			line += fmt.Sprintf(", %s rows/s", human(rate))
			if eta >= 0 {
				line += ", ETA " + eta.Round(time.Second).String()
			}
			if p.Note != "" {
				line += "; " + p.Note
			}
			if p.Done {
				line += fmt.Sprintf(", done in %s\n", p.Elapsed.Round(time.Millisecond))
			}
			fmt.Fprintf(w, "\r\033[K%s", line)
			return
		}
		state := "progress"
		if p.Done {
			state = "done"
		}
		line := fmt.Sprintf("rankeval: %s rows=%d queries=%d bytes=%d", state, p.Rows, p.Queries, p.Bytes)
		if p.TotalBytes > 0 {
			line += fmt.Sprintf(" total_bytes=%d", p.TotalBytes)
		}
		line += fmt.Sprintf(" rows_per_s=%.0f elapsed_s=%.1f", rate, secs)
		if eta >= 0 {
			line += fmt.Sprintf(" eta_s=%.0f", eta.Seconds())
		}
		if p.Note != "" {
			line += fmt.Sprintf(" note=%q", p.Note)
		}
		fmt.Fprintln(w, line)
	}
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
