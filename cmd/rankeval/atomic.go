package main

import (
	"context"
	"os"
	"sync"

	"github.com/rankeval/rankeval/internal/outfile"
)

// atomicFile is an output written whole or not at all (outfile), whose
// temporary name the signal watchdog knows.
type atomicFile struct {
	*outfile.File
}

// temps lists the temporary files and directories of the run, so that a signal's watchdog
// can remove them even while the run is stuck.
var temps tempRegistry

type tempRegistry struct {
	mu    sync.Mutex
	names map[string]bool
}

func (r *tempRegistry) add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names == nil {
		r.names = map[string]bool{}
	}
	r.names[name] = true
}

func (r *tempRegistry) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.names, name)
}

func (r *tempRegistry) removeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.names {
		os.RemoveAll(name)
		delete(r.names, name)
	}
}

// createAtomic creates target (outfile); an object's requests are made
// under ctx.
func createAtomic(ctx context.Context, target string) (*atomicFile, error) {
	f, err := outfile.CreateContext(ctx, target)
	if err != nil {
		return nil, err
	}
	temps.add(f.Name())
	return &atomicFile{f}, nil
}

func (a *atomicFile) commit() error {
	defer temps.remove(a.Name())
	return a.Commit()
}

func (a *atomicFile) abortUnlessCommitted() {
	a.Abort()
	temps.remove(a.Name())
}
