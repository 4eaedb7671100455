"""Tests of the rankeval Python package as a wheel installs it: the numbers
are the command line's, errors carry its message and exit code, gates
raise GateFailed, trec_eval's output is parsed, a DataFrame streams.

Run by scripts/test-python.sh in a fresh venv holding the wheel
(RANKEVAL_REPO names the checkout, for testdata). The DataFrame tests need
pandas and zstd; they fail rather than skip when CI is set."""

import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tracemalloc
import unittest

import rankeval

REPO = os.environ.get("RANKEVAL_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(REPO, "testdata", "sample.jsonl.zst")

try:
    import pandas
except ImportError:
    pandas = None


def cli(*args):
    """The command line's exit code, stdout and stderr."""
    r = subprocess.run([rankeval.binary(), *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def cli_error(stderr):
    """The CLI's error line, without "rankeval: "."""
    return [l for l in stderr.splitlines() if l.startswith("rankeval: ")][-1][len("rankeval: "):]


def need_frames(test):
    if pandas is None or shutil.which("zstd") is None:
        if os.environ.get("CI"):
            raise AssertionError("the DataFrame tests need pandas and zstd")
        return unittest.skip("pandas or zstd missing")(test)
    return test


def sample_frame():
    raw = subprocess.run(["zstd", "-qdc", SAMPLE], capture_output=True, check=True).stdout
    return pandas.read_json(io.BytesIO(raw), lines=True, dtype={"query_id": str, "doc_id": str})


class Installed(unittest.TestCase):
    def test_binary_from_the_wheel(self):
        # pip put the binary in the venv's scripts directory, found there
        # without RANKEVAL_BINARY or PATH.
        self.assertNotIn(rankeval.BINARY_ENV, os.environ)
        want = os.path.join(sysconfig.get_path("scripts"), "rankeval")
        self.assertEqual(rankeval.binary(), want)
        self.assertTrue(os.access(want, os.X_OK))
        self.assertTrue(rankeval.__file__.startswith(sys.prefix), rankeval.__file__)
        code, out, _ = cli("--version")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("rankeval v"), out)

    def test_env_names_the_binary(self):
        os.environ[rankeval.BINARY_ENV] = "/nonexistent/rankeval"
        try:
            self.assertEqual(rankeval.binary(), "/nonexistent/rankeval")
            with self.assertRaises(FileNotFoundError):
                rankeval.evaluate(SAMPLE)
        finally:
            del os.environ[rankeval.BINARY_ENV]

    def test_python_m(self):
        r = subprocess.run([sys.executable, "-m", "rankeval", "--version"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, cli("--version")[1]))


class Evaluate(unittest.TestCase):
    def test_sample_equals_cli(self):
        for name, kwargs, flags in [
            ("defaults", {}, []),
            ("metrics and options", dict(metrics=["ndcg@5", "map", "err@10", "kendall"], ties="average",
                                        bootstrap=200, gain="linear", empty="zero"),
             ["-m", "ndcg@5,map,err@10,kendall", "--ties", "average", "--bootstrap", "200",
              "--gain", "linear", "--empty", "zero"]),
            ("metrics as a string, a bool flag", dict(metrics="p@5,rr", unsorted=True),
             ["-m", "p@5,rr", "--unsorted"]),
            ("ir_measures' names beside rankeval's",
             dict(metrics=["nDCG@10", "ndcg@10", "P(rel=2)@5", "SetF(rel=2,beta=0.5)"]),
             ["-m", "nDCG@10,ndcg@10,P(rel=2)@5,SetF(rel=2,beta=0.5)"]),
        ]:
            with self.subTest(name):
                code, out, err = cli("--quiet", "--format", "json", *flags, SAMPLE)
                self.assertEqual(code, 0, err)
                got = rankeval.evaluate(SAMPLE, **kwargs)
                self.assertEqual(got, json.loads(out))
        s = rankeval.evaluate(SAMPLE)
        self.assertEqual(s["metrics"]["map"]["mean"], 0.7128216837774386)
        self.assertEqual(s["metrics"]["ndcg@10"]["mean"], 0.5724386949344558)
        self.assertEqual(s["rows"], 15000)
        # ir_measures' nDCG@10 is trec_eval's ndcg_cut.10, whatever the run's conventions
        s = rankeval.evaluate(SAMPLE, metrics=["nDCG@10", "ndcg@10"])
        t = rankeval.evaluate(SAMPLE, metrics=["ndcg@10"], profile="trec_eval")
        self.assertEqual(s["metrics"]["nDCG@10"]["mean"], t["metrics"]["ndcg@10"]["mean"])
        self.assertNotEqual(s["metrics"]["nDCG@10"]["mean"], s["metrics"]["ndcg@10"]["mean"])

    def test_per_query_file(self):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankeval-test-per-query-%d.jsonl" % os.getpid())
        try:
            rankeval.evaluate(SAMPLE, metrics=["map"], per_query=path)
            with open(path) as f:
                first = json.loads(f.readline())
            self.assertEqual(first, {"query_id": "q0000001", "map": 0.40361737059563174})
        finally:
            os.remove(path)

    def test_errors_carry_cli_message_and_code(self):
        missing = os.path.join(REPO, "testdata", "no-such-log.jsonl")
        for name, kwargs, flags, code, kind in [
            ("missing input", dict(inputs=missing), [missing], 1, rankeval.RankevalError),
            ("unknown metric", dict(inputs=SAMPLE, metrics=["foo"]), ["-m", "foo", SAMPLE], 2, rankeval.UsageError),
            ("bad flag value", dict(inputs=SAMPLE, ties="sideways"), ["--ties", "sideways", SAMPLE], 2,
             rankeval.UsageError),
            ("unknown flag", dict(inputs=SAMPLE, no_such_flag=1), ["--no-such-flag=1", SAMPLE], 2,
             rankeval.UsageError),
        ]:
            with self.subTest(name):
                want_code, _, stderr = cli("--quiet", *flags)
                self.assertEqual(want_code, code)
                with self.assertRaises(kind) as cm:
                    rankeval.evaluate(**kwargs)
                e = cm.exception
                self.assertEqual(e.exit_code, code)
                self.assertEqual(e.message, cli_error(stderr))
                self.assertEqual(str(e), e.message)
                self.assertNotIn("for usage", e.message)
                self.assertNotIsInstance(e, rankeval.GateFailed)

    def test_reserved_options(self):
        with self.assertRaises(TypeError):
            rankeval.evaluate(SAMPLE, format="text")

    def test_gate(self):
        with self.assertRaises(rankeval.GateFailed) as cm:
            rankeval.evaluate(SAMPLE, fail_under={"ndcg@10": 0.9, "map": 0.5})
        e = cm.exception
        self.assertEqual(e.exit_code, rankeval.EXIT_GATE)
        self.assertEqual(e.message, "quality gate failed: ndcg@10 mean 0.5724 < 0.9")
        self.assertIsInstance(e, rankeval.RankevalError)
        self.assertFalse(e.summary["gates"]["passed"])
        self.assertEqual(e.summary["metrics"]["ndcg@10"]["mean"], 0.5724386949344558)
        # a gate that passes returns the summary
        s = rankeval.evaluate(SAMPLE, fail_under="ndcg@10=0.5")
        self.assertTrue(s["gates"]["passed"])


QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 0, "d4": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1, "d9": 0.05}, "q2": {"d4": 0.3, "d1": 0.5}}


class TrecEval(unittest.TestCase):
    def test_dicts(self):
        got = rankeval.trec_eval(QRELS, RUN, "-q", "-m", "P.2", "-m", "recip_rank", "-m", "num_ret", "-m", "runid")
        self.assertEqual(got["q1"], {"P_2": 0.5, "recip_rank": 1.0, "num_ret": 4})
        self.assertEqual(got["q2"], {"P_2": 0.5, "recip_rank": 0.5, "num_ret": 2})
        self.assertEqual(got["all"], {"P_2": 0.5, "recip_rank": 0.75, "num_ret": 6, "runid": "python"})

    def test_files_equal_cli(self):
        qt = os.path.join(REPO, "testdata", "trec_eval", "quicktest")
        qrels, results = os.path.join(qt, "qrels.test.zst"), os.path.join(qt, "results.test.zst")
        code, out, err = cli("trec_eval", "-q", "-m", "all_trec", qrels, results)
        self.assertEqual(code, 0, err)
        got = rankeval.trec_eval(qrels, results, "-q", "-m", "all_trec")
        lines = [l.split() for l in out.splitlines()]
        self.assertEqual(sum(len(v) for v in got.values()), len(lines))
        for m, q, v in lines:
            self.assertEqual(got[q][m], rankeval._value(v), (m, q))
        self.assertIsInstance(got["all"]["num_q"], int)
        self.assertIsInstance(got["all"]["map"], float)
        self.assertGreater(len(got), 2)

    def test_release(self):
        got = rankeval.trec_eval(QRELS, RUN, "-m", "map", release="9.0.8")
        self.assertEqual(list(got), ["all"])
        self.assertAlmostEqual(got["all"]["map"], (0.5 * (1 + 2 / 3) + 1 * 0.5) / 2, places=4)

    def test_error(self):
        code, _, err = cli("trec_eval", "-m", "nosuchmeasure", "/nonexistent/q", "/nonexistent/r")
        with self.assertRaises(rankeval.RankevalError) as cm:
            rankeval.trec_eval("/nonexistent/q", "/nonexistent/r", "-m", "nosuchmeasure")
        self.assertEqual((cm.exception.exit_code, cm.exception.message), (code, cli_error(err)))


class Frames(unittest.TestCase):
    @need_frames
    def test_sample_frame_equals_log(self):
        df = sample_frame()
        want = rankeval.evaluate(SAMPLE, metrics=["map", "ndcg@10", "err@10"])
        got = rankeval.evaluate_frame(df, metrics=["map", "ndcg@10", "err@10"], chunk_rows=1000)
        for key in ("metrics", "rows", "queries", "options"):
            self.assertEqual(got[key], want[key], key)
        self.assertEqual(got["rankeval"]["inputs"], ["-"])

    @need_frames
    def test_renamed_columns_and_per_query(self):
        df = sample_frame().rename(columns={"query_id": "qid", "score": "pred", "label": "rel"})
        df["extra"] = "not sent"
        pq = rankeval.evaluate_frame(df, query="qid", score="pred", label="rel", metrics="map,ndcg@10",
                                     per_query=True)
        self.assertIsInstance(pq, pandas.DataFrame)
        self.assertEqual(list(pq.columns), ["qid", "map", "ndcg@10"])
        self.assertEqual(len(pq), 300)
        self.assertEqual(pq["qid"][0], "q0000001")
        self.assertEqual(pq["map"][0], 0.40361737059563174)
        self.assertEqual(pq.attrs["summary"]["metrics"]["map"]["mean"], 0.7128216837774386)

    @need_frames
    def test_missing_scores(self):
        df = pandas.DataFrame({"query_id": [1, 1, 2, 2], "score": [0.5, None, 0.2, 0.1], "label": [1, 0, 0, 1]})
        with self.assertRaises(rankeval.RankevalError) as cm:
            rankeval.evaluate_frame(df, metrics=["map"])
        self.assertEqual(cm.exception.exit_code, 1)
        self.assertIn("--missing-score", cm.exception.message)
        s = rankeval.evaluate_frame(df, metrics=["map"], missing_score="drop")
        self.assertEqual(s["metrics"]["map"]["mean"], 0.75)

    @need_frames
    def test_error_while_streaming(self):
        # the command stops at row 2 while the frame is still being written
        n = 2_000_000
        df = pandas.DataFrame({"query_id": [i // 10 for i in range(n)], "score": 1.0, "label": 1})
        df.loc[1, "label"] = -1
        with self.assertRaises(rankeval.RankevalError) as cm:
            rankeval.evaluate_frame(df, metrics=["map"])
        self.assertEqual(cm.exception.exit_code, 1)
        self.assertIn("label", cm.exception.message)

    @need_frames
    def test_gate_frame(self):
        with self.assertRaises(rankeval.GateFailed) as cm:
            rankeval.evaluate_frame(sample_frame(), fail_under={"map": 0.8})
        self.assertEqual(cm.exception.summary["metrics"]["map"]["mean"], 0.7128216837774386)

    @need_frames
    def test_memory_of_a_million_rows(self):
        # The frame is streamed in chunks: the Python side's peak above the
        # frame itself stays a small fraction of the frame's size.
        n = 1_000_000
        df = pandas.DataFrame({"query_id": pandas.RangeIndex(n) // 50,
                               "doc_id": pandas.RangeIndex(n) % 50,
                               "score": (pandas.RangeIndex(n) * 7919 % 1000) / 1000.0,
                               "label": pandas.RangeIndex(n) % 5 // 3})
        size = int(df.memory_usage(deep=True).sum())
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        start = time.time()
        s = rankeval.evaluate_frame(df, metrics=["ndcg@10", "map"])
        seconds = time.time() - start
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        self.assertEqual(s["rows"], n)
        self.assertEqual(s["queries"]["total"], n // 50)
        print("\nframe path, 1M rows: frame %.1f MB, Python's peak above it %.1f MB (tracemalloc), %.1f s"
              % (size / 1e6, peak / 1e6, seconds), file=sys.stderr)
        self.assertLess(peak, size / 2)


if __name__ == "__main__":
    unittest.main()
