package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/metrics"
)

// commandNames are rankeval's subcommands. A first word that names one is
// the command, not an input (a file named metrics is ./metrics).
var commandNames = []string{"merge", "propensities", "trec_eval", "metrics", "help", "completion"}

// commands describes the subcommands for the help, the completion
// scripts and the man page.
func commands() []evalflags.Command {
	return []evalflags.Command{
		{Name: "merge", Args: "[flags] STATE...", Summary: "the summary of runs saved with --state, without reading their logs again", Flags: mergeFlags(&rankeval.MergeConfig{}, new(bool))},
		{Name: "propensities", Args: "[flags] LOG...", Summary: "the position bias of a click log, estimated from its own clicks, as a --position-bias file", Flags: propensityFlagSet()},
		{Name: "trec_eval", Args: "[trec_eval's flags] QRELS RUN", Summary: "a drop-in trec_eval: its command line and output, byte for byte"},
		{Name: "metrics", Summary: "lists the metrics and their names", Words: []string{}}, // takes no argument
		{Name: "help", Args: "[COMMAND] | --man", Summary: "this help, a command's, or (--man) this man page", Words: append(commandNames[:len(commandNames):len(commandNames)], "--man")},
		{Name: "completion", Args: "bash|zsh|fish", Summary: "prints a shell completion script", Words: evalflags.Shells},
	}
}

// propensityFlagSet is rankeval propensities' flag set, for the help,
// completion and man page.
func propensityFlagSet() *flag.FlagSet {
	c := config.Default()
	fs, _ := propensityFlags(&c, new(bool))
	return fs
}

// notACommand refuses a first word that is no file but close to a
// command's name (trec-eval, marge): a usage error naming the command,
// instead of the input's "no such file". Nil otherwise.
func notACommand(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || strings.ContainsAny(args[0], "/*?[") {
		return nil
	}
	word := args[0]
	c := evalflags.Suggest(word, commandNames)
	if c == "" {
		return nil
	}
	if _, err := os.Lstat(word); !errors.Is(err, fs.ErrNotExist) {
		return nil // a file (or an error the input's reading reports)
	}
	return config.Usagef("%q is not a file; did you mean rankeval %s?", word, c)
}

// helpCommand is rankeval help [COMMAND | --man]: the help of rankeval or
// of a command on standard output, or rankeval's man page.
func helpCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 1 {
		return config.Usagef("rankeval help takes one command, not %q", strings.Join(args, " "))
	}
	topic := ""
	if len(args) == 1 {
		topic = args[0]
	}
	switch topic {
	case "", "help":
		c := config.Default()
		printUsage(newFlags(&c).fs, stdout)
		return nil
	case "--man":
		return manPage(stdout)
	case "metrics":
		_, err := fmt.Fprint(stdout, metrics.Help())
		return err
	case "merge":
		if err := mergeStates(ctx, []string{"--help"}, stdout, stdout); !errors.Is(err, errHelp) {
			return err
		}
		return nil
	case "propensities":
		if err := propensitiesCommand(ctx, []string{"--help"}, stdout, stdout); !errors.Is(err, errHelp) {
			return err
		}
		return nil
	case "trec_eval":
		return run(ctx, []string{"trec_eval", "-h"}, stdout, stderr)
	case "completion":
		_, err := fmt.Fprint(stdout, completionUsage)
		return err
	}
	if c := evalflags.Suggest(topic, commandNames); c != "" {
		return config.Usagef("rankeval help: no command %q; did you mean rankeval help %s?", topic, c)
	}
	return config.Usagef("rankeval help: no command %q (the commands: %s)", topic, strings.Join(commandNames, ", "))
}

const completionUsage = `Usage: rankeval completion bash|zsh|fish

Prints a completion script for the shell: commands, flags (each command's
own), and file names for inputs and flag values. Load it with
  bash:  source <(rankeval completion bash)   (or save it under
         ~/.local/share/bash-completion/completions/rankeval)
  zsh:   source <(rankeval completion zsh)    (or save it as _rankeval in $fpath)
  fish:  rankeval completion fish | source    (or save it as
         ~/.config/fish/completions/rankeval.fish)
`

// completionCommand is rankeval completion SHELL.
func completionCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return config.Usagef("rankeval completion takes one shell: %s", strings.Join(evalflags.Shells, ", "))
	}
	c := config.Default()
	if err := evalflags.Completion(stdout, args[0], "rankeval", newFlags(&c).fs, commands()); err != nil {
		return config.Usagef("rankeval completion: %w", err)
	}
	return nil
}

// manPage writes rankeval's man page, generated from its help.
func manPage(w io.Writer) error {
	c := config.Default()
	return evalflags.Man(w, "rankeval", "ranking-evaluation metrics over search and click logs and TREC runs", "",
		usageHead, usageTail, newFlags(&c).fs, commands())
}
