package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/metrics"
)

// TestHelpCommand: rankeval help [COMMAND] prints the help of rankeval or
// of a command on standard output; --help names every command, CSV/TSV
// inputs and every gate of exit status 3.
func TestHelpCommand(t *testing.T) {
	_, _, help := cli(t, "--help")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stdout, or stderr for an error
	}{
		{"help", []string{"help"}, 0, []string{help}},
		{"help help", []string{"help", "help"}, 0, []string{help}},
		{"help merge", []string{"help", "merge"}, 0, []string{"Usage: rankeval merge [flags] STATE...", "--correction"}},
		{"help trec_eval", []string{"help", "trec_eval"}, 0, []string{"Usage: rankeval trec_eval [--release 10.0|9.0.8] [-h]"}},
		{"help metrics", []string{"help", "metrics"}, 0, []string{metrics.Help()}},
		{"help completion", []string{"help", "completion"}, 0, []string{"Usage: rankeval completion bash|zsh|fish", "source <(rankeval completion bash)"}},
		{"help --man", []string{"help", "--man"}, 0, []string{".TH RANKEVAL 1"}},
		{"help of a near miss", []string{"help", "trec-eval"}, 2, []string{`rankeval: rankeval help: no command "trec-eval"; did you mean rankeval help trec_eval?`}},
		{"help of no command", []string{"help", "frobnicate"}, 2, []string{`no command "frobnicate" (the commands: merge, propensities, trec_eval, metrics, help, completion)`}},
		{"help of two", []string{"help", "merge", "metrics"}, 2, []string{"rankeval help takes one command"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			out := stdout
			if tc.code != 0 {
				out = stderr
			}
			for _, w := range tc.want {
				if code != tc.code || !strings.Contains(out, w) {
					t.Fatalf("exit %d (want %d); %q not in\n%s\nstderr %s", code, tc.code, w, out, stderr)
				}
			}
		})
	}
	t.Run("--help names every command, CSV/TSV and --fail-if-worse", func(t *testing.T) {
		for _, w := range []string{"rankeval merge [flags] STATE...", "rankeval trec_eval [trec_eval's flags] QRELS RUN", "rankeval metrics",
			"rankeval help [COMMAND]", "rankeval completion bash|zsh|fish", "JSONL, CSV or TSV", "(--fail-under, --fail-if-worse, --fail-on-empty)", "--config"} {
			if !strings.Contains(help, w) {
				t.Errorf("--help does not say %q", w)
			}
		}
		for _, c := range commandNames {
			if !strings.Contains(help, "rankeval "+c+" ") {
				t.Errorf("--help does not name rankeval %s", c)
			}
		}
	})
}

// TestNearCommand: a first word that is no file but near a command's name
// says which command was likely meant; a file of that name is an input.
func TestNearCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct{ word, command string }{
		{"trec-eval", "trec_eval"}, {"treceval", "trec_eval"}, {"marge", "merge"}, {"hlep", "help"}, {"completions", "completion"}, {"metric", "metrics"},
	} {
		t.Run(tc.word, func(t *testing.T) {
			code, _, stderr := cli(t, tc.word, "qrels", "run")
			want := `rankeval: "` + tc.word + `" is not a file; did you mean rankeval ` + tc.command + "?"
			if code != 2 || !strings.HasPrefix(stderr, want) {
				t.Fatalf("exit %d stderr %q, want 2 and %q", code, stderr, want)
			}
		})
	}
	t.Run("a file of that name is read", func(t *testing.T) {
		os.WriteFile("marge", []byte(twoQueries), 0o644)
		if code, _, stderr := cli(t, "marge", "--quiet", "-m", "map"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	})
	t.Run("a word near no command is a missing file", func(t *testing.T) {
		code, _, stderr := cli(t, "nightly.jsonl")
		if code != 1 || !strings.Contains(stderr, "no such file or directory") {
			t.Fatalf("exit %d stderr %q", code, stderr)
		}
	})
}

// TestCompletion: rankeval completion SHELL prints a script made from the
// flag sets; bash's is loaded and asked, zsh's and fish's are checked for
// their shape (and their syntax where the shell is installed).
func TestCompletion(t *testing.T) {
	script := func(t *testing.T, shell string) string {
		code, stdout, stderr := cli(t, "completion", shell)
		if code != 0 || stdout == "" {
			t.Fatalf("completion %s: exit %d %s", shell, code, stderr)
		}
		return stdout
	}
	t.Run("bash", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash")
		}
		path := filepath.Join(t.TempDir(), "rankeval.bash")
		os.WriteFile(path, []byte(script(t, "bash")), 0o644)
		if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
			t.Fatalf("bash -n: %v %s", err, out)
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "log.jsonl"), nil, 0o644)
		probe := `source "$1"; complete -p rankeval
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _rankeval; echo "$*: ${COMPREPLY[*]}"; }
t rankeval trec; t rankeval --qu; t rankeval --unsor; t rankeval merge --st; t rankeval merge --qu; t rankeval help me; t rankeval completion z; t rankeval --config lo; t rankeval lo; t rankeval x.jsonl -m ""`
		cmd := exec.Command(bash, "-c", probe, "probe", path)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v %s", err, out)
		}
		want := `complete -o bashdefault -o filenames -F _rankeval rankeval
rankeval trec: trec_eval
rankeval --qu: --query-col --quiet
rankeval --unsor: --unsorted
rankeval merge --st: --state
rankeval merge --qu: --quiet
rankeval help me: merge metrics
rankeval completion z: zsh
rankeval --config lo: log.jsonl
rankeval lo: log.jsonl
rankeval x.jsonl -m : log.jsonl
`
		if string(out) != want {
			t.Fatalf("bash completes\n%s\nwant\n%s", out, want)
		}
	})
	t.Run("zsh", func(t *testing.T) {
		s := script(t, "zsh")
		for _, w := range []string{"#compdef rankeval\n", "_rankeval() {", "commands=('merge' 'propensities' 'trec_eval' 'metrics' 'help' 'completion')",
			"'--query-col'", "'--unsorted'", "'--config'", "'-m'", "compadd -- bash zsh fish", "compdef _rankeval rankeval", "_files"} {
			if !strings.Contains(s, w) {
				t.Errorf("zsh script lacks %q", w)
			}
		}
		if zsh, err := exec.LookPath("zsh"); err == nil {
			if out, err := exec.Command(zsh, "-n", "-c", s).CombinedOutput(); err != nil {
				t.Fatalf("zsh -n: %v %s", err, out)
			}
		}
	})
	t.Run("fish", func(t *testing.T) {
		s := script(t, "fish")
		for _, w := range []string{"complete -c rankeval -n '__fish_use_subcommand' -a 'merge propensities trec_eval metrics help completion'\n",
			" -l query-col -r -d 'field holding the query id (a string or an integer)'\n", " -l unsorted -d ", " -l metrics -s m -r ",
			"complete -c rankeval -n '__fish_seen_subcommand_from merge' -l state -r ", "complete -c rankeval -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'\n"} {
			if !strings.Contains(s, w) {
				t.Errorf("fish script lacks %q", w)
			}
		}
		if fish, err := exec.LookPath("fish"); err == nil {
			cmd := exec.Command(fish, "-n")
			cmd.Stdin = strings.NewReader(s)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fish -n: %v %s", err, out)
			}
		}
	})
	t.Run("every flag", func(t *testing.T) {
		s := script(t, "bash") + script(t, "zsh") + script(t, "fish")
		c := config.Default()
		newFlags(&c).fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(s, "--"+f.Name) && !strings.Contains(s, " -l "+f.Name) && f.Name != "h" && f.Name != "m" {
				t.Errorf("no completion of --%s", f.Name)
			}
		})
	})
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if code, _, stderr := cli(t, args...); code != 2 || !strings.Contains(stderr, "bash, zsh, fish") {
				t.Fatalf("exit %d stderr %q", code, stderr)
			}
		})
	}
}

// TestManPage holds docs/rankeval.1 to rankeval help --man, which is
// generated from the help (go test ./cmd/rankeval -run TestManPage
// -update rewrites it), and checks it with groff when installed.
func TestManPage(t *testing.T) {
	code, page, stderr := cli(t, "help", "--man")
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	path := filepath.Join("..", "..", "docs", "rankeval.1")
	if *update {
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != page {
		t.Fatalf("%s is not what rankeval help --man prints now (go test ./cmd/rankeval -run TestManPage -update): %v", path, err)
	}
	for _, w := range []string{".SH SYNOPSIS", ".SH OPTIONS", ".SH EXIT STATUS", `\fB\-\-query\-col\fR (default query_id)`, `\fB\-m\fR, \fB\-\-metrics\fR`, "rankeval completion bash|zsh|fish"} {
		if !strings.Contains(page, w) {
			t.Errorf("the man page lacks %q", w)
		}
	}
	if groff, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(page)
		var warn bytes.Buffer
		cmd.Stderr = &warn
		if err := cmd.Run(); err != nil || warn.Len() > 0 {
			t.Fatalf("groff: %v %s", err, warn.String())
		}
	}
}
