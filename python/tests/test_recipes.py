"""docs/scheduling.md's recipes as written: the Airflow DAG (with stand-ins
for Airflow's classes, which record the tasks) and the crontab line, run on
a day whose log passes the gates and a day whose log fails them."""

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import types
import unittest

import rankeval

REPO = os.environ.get("RANKEVAL_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(REPO, "docs", "scheduling.md")
SAMPLE = os.path.join(REPO, "testdata", "sample.jsonl.zst")


def block(lang, after):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    text = text[text.index(after):]
    return re.search(r"```%s\n(.*?)```" % lang, text, re.S).group(1)


class AirflowFailException(Exception):
    pass


def stub_airflow(tasks):
    """Installs modules standing in for Airflow's: each operator records
    its arguments in tasks."""
    def operator(kind):
        def make(**kwargs):
            tasks[kwargs["task_id"]] = (kind, kwargs)
        return make

    class DAG:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    mods = {
        "airflow": dict(DAG=DAG),
        "airflow.exceptions": dict(AirflowFailException=AirflowFailException),
        "airflow.operators": {},
        "airflow.operators.bash": dict(BashOperator=operator("bash")),
        "airflow.operators.python": dict(PythonOperator=operator("python")),
        "airflow.providers": {}, "airflow.providers.cncf": {}, "airflow.providers.cncf.kubernetes": {},
        "airflow.providers.cncf.kubernetes.operators": {},
        "airflow.providers.cncf.kubernetes.operators.pod": dict(KubernetesPodOperator=operator("pod")),
        "pendulum": dict(datetime=lambda *a, **k: datetime.datetime(*a)),
    }
    for name, attrs in mods.items():
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m


def bad_log(path):
    """The sample log with its scores negated: its ndcg@10 fails the gate."""
    raw = subprocess.run(["zstd", "-qdc", SAMPLE], capture_output=True, check=True).stdout.decode()
    with open(path, "w") as f:
        for line in raw.splitlines():
            row = json.loads(line)
            row["score"] = -row["score"]
            f.write(json.dumps(row) + "\n")


@unittest.skipIf(shutil.which("zstd") is None and not os.environ.get("CI"), "zstd missing")
class Recipes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rankeval-recipes-")
        self.logs = os.path.join(self.tmp, "logs")
        self.good, self.bad = "2026-11-27", "2026-11-26"
        os.makedirs(os.path.join(self.logs, self.good))
        os.makedirs(os.path.join(self.logs, self.bad))
        shutil.copy(SAMPLE, os.path.join(self.logs, self.good, "part-0.jsonl.zst"))
        bad_log(os.path.join(self.logs, self.bad, "part-0.jsonl"))
        self.env = dict(os.environ, PATH=sysconfig.get_path("scripts") + os.pathsep + os.environ["PATH"])
        self.want = rankeval.evaluate(os.path.join(self.logs, self.good), metrics=["ndcg@10", "map", "mrr"])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_airflow_dag(self):
        tasks = {}
        stub_airflow(tasks)
        os.environ["RANKEVAL_LOGS"] = self.logs
        try:
            exec(compile(block("python", "## Airflow"), DOC, "exec"), {"__name__": "dag"})
        finally:
            del os.environ["RANKEVAL_LOGS"]
        self.assertEqual(sorted(tasks), ["evaluate_bash", "evaluate_pod", "evaluate_python"])
        means = {m: v["mean"] for m, v in self.want["metrics"].items()}

        _, bash = tasks["evaluate_bash"]
        for day, code in ((self.good, 0), (self.bad, 3)):
            cmd = bash["bash_command"].replace("{{ ds }}", day)
            r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=self.env)
            self.assertEqual(r.returncode, code, r.stderr)
            self.assertIn("ndcg@10", r.stdout)  # the summary is in the task's log
            if code:
                self.assertRegex(r.stderr, r"rankeval: quality gate failed: ndcg@10 mean 0\.\d{4} < 0\.42")

        _, python = tasks["evaluate_python"]
        self.assertEqual(python["python_callable"](ds=self.good), means)
        with self.assertRaises(AirflowFailException) as cm:
            python["python_callable"](ds=self.bad)
        self.assertRegex(str(cm.exception), r"^quality gate failed: ndcg@10 mean 0\.\d{4} < 0\.42$")

        # the image's entrypoint is the binary (scripts/test-image.sh)
        _, pod = tasks["evaluate_pod"]
        for day, code in ((self.good, 0), (self.bad, 3)):
            args = [a.replace("{{ ds }}", day) for a in pod["arguments"]]
            r = subprocess.run([rankeval.binary(), *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, code, r.stderr)

    def test_crontab(self):
        lines = [l for l in block("crontab", "## cron").splitlines() if l and not l.startswith("#")]
        env = dict(self.env)
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        for l in lines[:-1]:
            name, value = l.split("=", 1)
            env[name] = value
        logs = os.path.join(self.tmp, "cron-logs")
        env.update(LOGS=logs, OUT=out)  # the recipe's directories, here
        command = lines[-1].split(None, 5)[5].replace("\\%", "%")
        yesterday = subprocess.run(["date", "-u", "-d", "yesterday", "+%F"], capture_output=True,
                                   text=True, check=True).stdout.strip()
        for src, mail in ((self.good, ""), (self.bad, "rankeval %s: exit 3: rankeval: quality gate failed: "
                                                       "ndcg@10 mean" % yesterday)):
            shutil.rmtree(logs, ignore_errors=True)
            shutil.copytree(os.path.join(self.logs, src), os.path.join(logs, yesterday))
            r = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr, "")
            self.assertTrue(r.stdout.startswith(mail), r.stdout)  # cron mails it
            with open(os.path.join(out, yesterday + ".json")) as f:
                summary = json.load(f)
            if not mail:
                self.assertEqual(r.stdout, "")
                self.assertEqual(summary["metrics"], self.want["metrics"])
            else:
                self.assertFalse(summary["gates"]["passed"])

if __name__ == "__main__":
    unittest.main()
