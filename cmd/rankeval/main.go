// Command rankeval computes ranking-evaluation metrics over search and click
// logs. This package only wires flags, inputs and outputs to the pipeline;
// formats live in reader, metrics in metrics, concurrency in pipeline.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/rankeval/rankeval"
)

// signalGrace is how long an interrupted run may take to stop cleanly
// before the watchdog removes its temporary files and exits anyway (a
// reader blocked on a silent pipe cannot be woken otherwise).
const signalGrace = time.Second

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var caught os.Signal
	var mu sync.Mutex
	go func() {
		s := <-sigs
		mu.Lock()
		caught = s
		mu.Unlock()
		cancel()
		select {
		case <-sigs: // a second signal: stop now
		case <-time.After(signalGrace):
		}
		temps.removeAll()
		fmt.Fprintln(os.Stderr, "rankeval: interrupted")
		os.Exit(signalExit(s))
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	mu.Lock()
	s := caught
	mu.Unlock()
	if s != nil {
		temps.removeAll()
		fmt.Fprintln(os.Stderr, "rankeval: interrupted")
		os.Exit(signalExit(s))
	}
	os.Exit(exitCode(err, os.Stderr))
}

// signalExit follows the shell's convention: 128 + the signal number
// (130 for SIGINT, 143 for SIGTERM).
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return rankeval.ExitError
}

func exitCode(err error, stderr io.Writer) int {
	if errors.Is(err, errHelp) {
		return rankeval.ExitOK
	}
	return rankeval.ExitCode(err, stderr)
}
