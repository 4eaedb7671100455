package rankeval_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rankeval/rankeval"
)

// externalMain is a program of another module that evaluates a log
// through the public API only.
const externalMain = `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rankeval/rankeval"
)

func main() {
	cfg := rankeval.DefaultConfig()
	cfg.Metrics = "map,ndcg@10"
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File(os.Args[1]))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := res.Write(os.Stdout, "json"); err != nil {
		os.Exit(1)
	}
}
`

// TestExternalModule builds a program in a module of its own that requires
// rankeval (replaced by this checkout) and evaluates the sample log through
// the API alone: its summary is the one Evaluate gives here.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (-short)")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	goMod := "module example.com/nightly\n\ngo 1.26.0\n\nrequire github.com/rankeval/rankeval v0.0.0\n\nreplace github.com/rankeval/rankeval => " + root + "\n"
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"go.mod": []byte(goMod), "go.sum": sum, "main.go": []byte(externalMain)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "nightly")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// the other module's graph may need go.mod files of modules rankeval's
	// own build does not (older modules' requirements): the go command
	// fetches them as it would for any user, from the module proxy
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	log := filepath.Join(root, sample)
	got, err := exec.Command(bin, log).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	cfg := rankeval.DefaultConfig()
	cfg.Metrics = "map,ndcg@10"
	res, err := rankeval.Evaluate(context.Background(), cfg, rankeval.File(log))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	res.Write(&want, "json")
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the external program printed\n%s\nwant\n%s", got, want.Bytes())
	}
}
