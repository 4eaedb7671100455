package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// atomicFile is written under a temporary name in the target's directory
// and renamed over the target only when complete, so a failed or
// interrupted run never leaves a half-written output.
type atomicFile struct {
	*os.File
	target    string
	committed bool
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

func createAtomic(target string) (*atomicFile, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, err)
	}
	temps.add(f.Name())
	return &atomicFile{File: f, target: target}, nil
}

func (a *atomicFile) commit() error {
	defer temps.remove(a.Name())
	if err := a.File.Close(); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("writing %s: %w", a.target, err)
	}
	if err := os.Rename(a.Name(), a.target); err != nil {
		os.Remove(a.Name())
		return fmt.Errorf("writing %s: %w", a.target, err)
	}
	a.committed = true
	return nil
}

func (a *atomicFile) abortUnlessCommitted() {
	if !a.committed {
		a.File.Close()
		os.Remove(a.Name())
		temps.remove(a.Name())
	}
}
