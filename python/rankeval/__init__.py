"""rankeval from Python: ranking-evaluation metrics over logs, pandas
DataFrames and TREC runs, computed by the rankeval binary that the wheel
installs beside the interpreter (docs/python.md).

    import rankeval
    summary = rankeval.evaluate("log.jsonl.zst", metrics=["ndcg@10", "map"])
    summary["metrics"]["ndcg@10"]["mean"]

Every function runs the binary, so the numbers are the command line's, bit
for bit. Options are the command's flags with "_" for "-" (fail_under=,
score_col=, unsorted=True); a failure raises RankevalError with the
command's message and exit code, a failed quality gate GateFailed.
Only the standard library is needed; pandas only to pass a DataFrame.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

__all__ = ["evaluate", "evaluate_frame", "trec_eval", "binary", "RankevalError",
           "UsageError", "GateFailed", "EXIT_OK", "EXIT_ERROR", "EXIT_USAGE", "EXIT_GATE"]

# The exit status of the rankeval commands (rankeval.ExitCode in Go).
EXIT_OK = 0
EXIT_ERROR = 1  # an input or runtime error
EXIT_USAGE = 2  # a setting or command line a correction fixes
EXIT_GATE = 3  # a quality gate failed (the summary was written)

BINARY_ENV = "RANKEVAL_BINARY"


class RankevalError(Exception):
    """The rankeval command failed: message is its error as it printed it
    (without the "rankeval: " prefix), exit_code its exit status, stderr
    all it printed there, command the command line."""

    def __init__(self, message, exit_code, stderr="", command=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr
        self.command = command


class UsageError(RankevalError):
    """A setting or command line the command refused (exit 2)."""


class GateFailed(RankevalError):
    """A quality gate (fail_under, fail_if_worse, fail_on_empty) failed
    (exit 3). summary is the summary the command wrote, whose "gates"
    say which check failed."""

    def __init__(self, message, exit_code, stderr="", command=None, summary=None):
        super().__init__(message, exit_code, stderr, command)
        self.summary = summary


def binary():
    """The path of the rankeval binary: $RANKEVAL_BINARY when set, else the
    one in the scripts directory of this interpreter (where pip installs
    it, the user's scheme too), else the first on PATH."""
    env = os.environ.get(BINARY_ENV)
    if env:
        return env
    exe = "rankeval.exe" if os.name == "nt" else "rankeval"
    dirs = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    try:
        scheme = sysconfig.get_preferred_scheme("user")
    except AttributeError:  # Python < 3.10
        scheme = os.name + "_user"
    try:
        dirs.append(sysconfig.get_path("scripts", scheme))
    except KeyError:
        pass
    for d in dirs:
        path = os.path.join(d, exe)
        if d and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(exe)
    if found:
        return found
    raise FileNotFoundError("the rankeval binary is not in %s nor on PATH; install the rankeval wheel "
                            "for this platform or set %s to its path" % (" or ".join(d for d in dirs if d), BINARY_ENV))


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ",".join("%s=%s" % (k, _text(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _flags(options):
    """The command-line flags of keyword options: name_x=v is --name-x=v;
    True a bare flag, False --name=false, None nothing; a list or a dict
    (fail_under={"ndcg@10": 0.4}) a comma-separated value, except system=,
    which repeats --system NAME=PATH for each item of a dict or list."""
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None:
            continue
        if value is True:
            args.append(flag)
        elif name == "system" and isinstance(value, dict):
            args += ["%s=%s=%s" % (flag, k, _text(v)) for k, v in value.items()]
        elif name == "system" and isinstance(value, (list, tuple)):
            args += ["%s=%s" % (flag, _text(v)) for v in value]
        else:
            args.append("%s=%s" % (flag, _text(value)))
    return args


def _message(stderr):
    """The command's error in its stderr: from its last "rankeval: " line
    that is not a warning, without the prefix and the usage hint."""
    lines = stderr.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.startswith("rankeval: ") and not line.startswith("rankeval: warning:"):
            start = i
    if start is None:
        return stderr.strip()
    kept = [l for l in lines[start:] if not (l.startswith("Run 'rankeval") and l.endswith("for usage."))]
    return "\n".join(kept)[len("rankeval: "):].strip()


def _raise(code, stdout, stderr, command):
    message = _message(stderr)
    if code == EXIT_GATE:
        try:
            summary = json.loads(stdout) if stdout.strip() else None
        except ValueError:
            summary = None
        raise GateFailed(message, code, stderr, command, summary)
    if code == EXIT_USAGE:
        raise UsageError(message, code, stderr, command)
    raise RankevalError(message, code, stderr, command)


def _command(metrics, options, reserved):
    for name in reserved:
        if name in options:
            raise TypeError("%s= is set by this function" % name)
    args = [binary()]
    if metrics is not None:
        args.append("--metrics=" + (metrics if isinstance(metrics, str) else ",".join(metrics)))
    options = dict(options)
    options.setdefault("quiet", True)
    return args + _flags(options)


def evaluate(inputs, metrics=None, **options):
    """Evaluates the inputs (a path, an s3:// or gs:// URL, a glob, or a list
    of them; none with system=) as `rankeval --format json` does and
    returns its summary as a dict (docs/output.md). metrics is a list or a
    comma-separated string (the default: the command's); options are the
    command's flags (docs/cli.md), e.g. by="market", fail_under={"ndcg@10": 0.4},
    system={"a": "a.jsonl", "b": "b.jsonl"}, per_query="q.jsonl".
    Raises RankevalError, UsageError (exit 2) or GateFailed (exit 3)."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    cmd = _command(metrics, options, ("format", "output")) + ["--format=json", "--"]
    cmd += [os.fspath(i) for i in inputs]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    stdout, stderr = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    if r.returncode != 0:
        _raise(r.returncode, stdout, stderr, cmd)
    return json.loads(stdout)


def _columns(df, query, doc, score, label, columns, options):
    """The columns of df the evaluation reads, in frame order: the ones
    named by the arguments and by the options' *_col and by flags."""
    names = [query, doc, label] + (list(score) if isinstance(score, (list, tuple)) else str(score).split(","))
    for key, value in options.items():
        if (key.endswith("_col") or key == "by") and value is not None:
            names += list(value) if isinstance(value, (list, tuple)) else str(value).split(",")
    names += list(columns)
    wanted = {n for n in names if n is not None}
    return [i for i, c in enumerate(df.columns) if c in wanted]


def evaluate_frame(df, query="query_id", score="score", label="label", metrics=None, per_query=False,
                   doc="doc_id", columns=(), chunk_rows=65536, **options):
    """Evaluates a pandas DataFrame with one row per (query, document), as
    evaluate does a log: query, score (a name, or a list of names to compare
    several models, the first the baseline), label and doc name its
    columns; rows of a query must be contiguous unless unsorted=True. The
    columns read (those named, and those of the *_col and by options, and
    columns) are streamed to the command's standard input as CSV,
    chunk_rows rows at a time, so that no second copy of the frame is made.
    Missing values (NaN, None) are empty fields, which missing_score= and
    missing_label= decide about. Returns the summary (a dict); with
    per_query=True a DataFrame with a row per query (its id in a column
    named as query) and a column per metric, whose attrs["summary"] holds
    the summary."""
    cols = _columns(df, query, doc, score, label, columns, options)
    scores = score if isinstance(score, str) else ",".join(score)
    flags = dict(query_col=query, score_col=scores, label_col=label)
    if doc is not None and doc in df.columns:
        flags["doc_col"] = doc
    for k, v in flags.items():
        options.setdefault(k, v)
    cmd = _command(metrics, options, ("format", "output", "input_format", "per_query"))
    with tempfile.TemporaryDirectory(prefix="rankeval-") as tmp:
        pq = os.path.join(tmp, "per_query.jsonl")
        if per_query:
            cmd.append("--per-query=" + pq)
        cmd += ["--format=json", "--input-format=csv", "--", "-"]
        with open(os.path.join(tmp, "stdout"), "w+b") as out, open(os.path.join(tmp, "stderr"), "w+b") as err:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err)
            try:
                for start in range(0, max(len(df), 1), chunk_rows):
                    chunk = df.iloc[start:start + chunk_rows, cols]
                    text = chunk.to_csv(index=False, header=start == 0, lineterminator="\n")
                    del chunk
                    proc.stdin.write(text.encode("utf-8"))
                    del text
                proc.stdin.close()
            except BrokenPipeError:  # the command stopped reading: its error says why
                try:
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            code = proc.wait()
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
        if code != 0:
            _raise(code, stdout, stderr, cmd)
        summary = json.loads(stdout)
        if not per_query:
            return summary
        import pandas
        with open(pq, encoding="utf-8") as f:
            frame = pandas.json_normalize([json.loads(line) for line in f if line.strip()])
        if query != "query_id" and len(frame.columns) and frame.columns[0] == "query_id":
            frame = frame.rename(columns={"query_id": query})  # to join it to df on the frame's column
        frame.attrs["summary"] = summary
        return frame


def _write_table(path, table, run):
    """Writes a pytrec_eval-style dict as TREC qrels ({qid: {docno: label}})
    or a run ({qid: {docno: score}}, ranked by score)."""
    with open(path, "w", encoding="utf-8") as f:
        for qid, docs in table.items():
            if run:
                for i, (doc, s) in enumerate(sorted(docs.items(), key=lambda d: (-d[1], d[0]))):
                    f.write("%s Q0 %s %d %r python\n" % (qid, doc, i + 1, float(s)))
            else:
                for doc, rel in docs.items():
                    f.write("%s 0 %s %d\n" % (qid, doc, rel))


def _value(text):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def trec_eval(qrels, run, *args, release=None):
    """Runs `rankeval trec_eval ARGS QRELS RUN` (trec_eval 10.0's command
    line and output; release="9.0.8" for 9.0.8's) and returns its output as
    {query: {measure: value}}, as pytrec_eval does: the summary under
    "all", each query's with -q; values are floats, counts ints, runid a
    string. qrels and run are paths, or dicts as pytrec_eval takes them
    ({qid: {docno: label}}, {qid: {docno: score}}).
    Raises RankevalError or UsageError with trec_eval's message."""
    with tempfile.TemporaryDirectory(prefix="rankeval-") as tmp:
        files = []
        for name, table, is_run in (("qrels", qrels, False), ("run", run, True)):
            if isinstance(table, dict):
                path = os.path.join(tmp, name)
                _write_table(path, table, is_run)
                table = path
            files.append(os.fspath(table))
        cmd = [binary(), "trec_eval"]
        if release is not None:
            cmd += ["--release", str(release)]
        cmd += [str(a) for a in args] + files
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    stdout, stderr = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
    if r.returncode != 0:
        _raise(r.returncode, stdout, stderr, cmd)
    result = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            result.setdefault(parts[1], {})[parts[0]] = _value(parts[2])
    return result
