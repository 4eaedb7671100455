package rankbeam_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/config"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rankeval/rankeval/dist/beam/rankbeam"
	"github.com/rankeval/rankeval/evalflags"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/internal/vectors"
	"github.com/rankeval/rankeval/pipeline"
)

// launchConfig is the configuration rankeval-beam's launcher makes of a
// command line (its flags parsed and finished as rankeval's are), for the
// inputs given.
func launchConfig(t *testing.T, inputs []string, args ...string) rankbeam.Config {
	t.Helper()
	fs := flag.NewFlagSet("rankeval-beam", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v := config.Default()
	f := evalflags.Register(fs, &v)
	evalflags.RegisterSources(fs, &v.Sources)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	c := rankbeam.Config{Config: v, Inputs: inputs}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	return c
}

// systemLogs makes two systems' logs of numbered queries (numeric ids,
// whose order is not the byte order): b ranks with other scores. With
// gaps, each log lacks some queries the other has.
func systemLogs(seed uint64, rows int, gaps bool) (a, b []synth.Row) {
	g := synth.NewGenerator(seed, rows, 15).WithSlices(4, 1)
	rng := rand.New(rand.NewPCG(seed, 7))
	var r synth.Row
	q, prev := 0, ""
	for g.Next(&r) {
		if r.Query != prev {
			q, prev = q+1, r.Query
		}
		r.Query = strconv.Itoa(q)
		inA, inB := true, true
		if gaps {
			inA, inB = q%7 != 3, q%5 != 1
		}
		if inA {
			a = append(a, r)
		}
		if inB {
			rb := r
			rb.Score = float64(int((r.Score+rng.NormFloat64()*0.3)*1e4)) / 1e4
			if q%4 == 0 {
				rb.Score = float64(int(rb.Score*2)) / 2 // ties
			}
			b = append(b, rb)
		}
	}
	return a, b
}

// byQuery reorders rows by query: sorted by id as rankeval's lockstep
// wants them (pipeline.IDLess), or shuffled, each query's rows kept in
// their order.
func byQuery(rows []synth.Row, shuffle uint64) []synth.Row {
	var qs [][]synth.Row
	for _, r := range rows {
		if len(qs) == 0 || qs[len(qs)-1][0].Query != r.Query {
			qs = append(qs, nil)
		}
		qs[len(qs)-1] = append(qs[len(qs)-1], r)
	}
	if shuffle == 0 {
		slices.SortStableFunc(qs, func(x, y []synth.Row) int {
			switch {
			case pipeline.IDLess([]byte(x[0].Query), []byte(y[0].Query)):
				return -1
			case pipeline.IDLess([]byte(y[0].Query), []byte(x[0].Query)):
				return 1
			}
			return 0
		})
	} else {
		rng := rand.New(rand.NewPCG(shuffle, 1))
		rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	}
	return slices.Concat(qs...)
}

func writeLog(t *testing.T, name string, rows []synth.Row) string {
	t.Helper()
	if err := synth.Write(name, &synth.Rows{R: rows}, -1, synth.Options{RowGroup: 400}); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestSystemsParity: two --system logs whose queries come in different
// orders, each split into files of several formats, give the summary and
// per-query records rankeval gives on the same logs sorted by query id,
// byte for byte, with slices and bootstrap intervals (and the
// rank-similarity measures, matching the logs' rows by doc id): every
// query in both logs, and with --missing zero logs that lack some of
// each other's queries.
func TestSystemsParity(t *testing.T) {
	dir := t.TempDir()
	ms := "ndcg@10,map,mrr,p@5,kendall@10,overlap@5,rbo:0.9,rbo_ext:0.8@10,tau@5"
	type check struct {
		name, out, pq, firstInput string
		cli                       []string
	}
	var jobs []job
	var checks []check
	for _, gaps := range []bool{false, true} {
		name := "same-queries"
		extra := []string{}
		if gaps {
			name, extra = "missing-zero", []string{"--missing", "zero"}
		}
		a, b := systemLogs(71, 6000, gaps)
		sub := filepath.Join(dir, name)
		cliA, cliB := writeLog(t, sub+"-sorted-a.jsonl", byQuery(a, 0)), writeLog(t, sub+"-sorted-b.jsonl", byQuery(b, 0))
		// Beam reads each log shuffled its own way, cut into files
		var logs [2]string
		for l, rows := range [][]synth.Row{a, b} {
			logs[l] = filepath.Join(dir, name+"-beam-"+"ab"[l:l+1])
			if err := os.Mkdir(logs[l], 0o755); err != nil {
				t.Fatal(err)
			}
			writeParts(t, logs[l], byQuery(rows, uint64(l+3)), []string{"p0.parquet", "p1.jsonl", "p2.jsonl.zst"}, synth.Options{RowGroup: 300})
		}
		for _, format := range []string{"json", "text"} {
			args := append([]string{"--format", format, "-m", ms, "--bootstrap", "50", "--by", "market"}, extra...)
			ck := check{name: name + "-" + format, out: filepath.Join(dir, name+"-"+format+".out"),
				cli: append(slices.Clone(args), "--system", "base="+cliA, "--system", "new="+cliB)}
			cfg := launchConfig(t, nil, append(args, "--system", "base="+logs[0], "--system", "new="+logs[1])...)
			ck.firstInput = filepath.Join(logs[0], "p0.parquet") // the first file of the log, in rankeval's order
			j := job{name: ck.name, cfg: cfg, out: ck.out}
			if format == "json" {
				ck.pq = filepath.Join(dir, name+".pq")
				j.perQuery, j.shards = ck.pq, 1
			}
			jobs, checks = append(jobs, j), append(checks, ck)
		}
	}
	runBeam(t, jobs)
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			args := append([]string{"--quiet"}, ck.cli...)
			localPQ := ck.out + ".local.pq"
			if ck.pq != "" {
				args = append(args, "--per-query", localPQ)
			}
			want := local(t, args...)
			got := read(t, ck.out)
			// the inputs differ (sorted files for rankeval), the rest not
			if vectors.SummaryBody(got) != vectors.SummaryBody(want) || !strings.Contains(want, "new") || !strings.Contains(want, "m0003") {
				t.Fatalf("Beam:\n%s\nrankeval on the sorted logs:\n%s", got, want)
			}
			if ck.pq != "" {
				// the provenance names each file of a log as NAME=PATH
				if !strings.Contains(got, `"inputs": ["base=`+ck.firstInput+`", `) {
					t.Fatalf("inputs not named as rankeval names them:\n%s", got)
				}
				if got, want := read(t, ck.pq+"-00000-of-00001.jsonl"), read(t, localPQ); got != want {
					t.Fatalf("per-query records differ:\n%.600s\nrankeval:\n%.600s", got, want)
				}
			}
		})
	}
}

// TestSystemsMissing: without --missing zero, a query absent from one log
// fails the job (rankeval fails too), naming the query and the remedy.
func TestSystemsMissing(t *testing.T) {
	dir := t.TempDir()
	a, b := systemLogs(73, 600, true)
	pa, pb := writeLog(t, filepath.Join(dir, "a.jsonl"), byQuery(a, 5)), writeLog(t, filepath.Join(dir, "b.jsonl"), byQuery(b, 6))
	p, s := beam.NewPipelineWithRoot()
	sum, err := rankbeam.Build(s, launchConfig(t, nil, "-m", "map", "--system", "base="+pa, "--system", "new="+pb), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rankbeam.WriteTo(s, sum, filepath.Join(dir, "never.json"))
	_, err = prism.Execute(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "give --missing zero to count absent queries as 0") ||
		!strings.Contains(err.Error(), "'s log but not in ") {
		t.Fatalf("err = %v, want the absent query named", err)
	}
	if out, err := exec.Command(rankevalBin, "-m", "map", "--system", "base="+pa, "--system", "new="+pb).CombinedOutput(); err == nil {
		t.Fatalf("rankeval accepted logs of different queries: %s", out)
	}
}

// trecMeasures are the measures of testdata/reference/README.md, as
// trec_eval names them.
const trecMeasures = "map,Rprec,recip_rank,P_1,P_5,P_10,P_20,recall_5,recall_10,recall_100,ndcg,ndcg_cut_5,ndcg_cut_10,ndcg_cut_20,success_1,success_5,success_10"

// TestTrecParity: every folder of the reference data, a TREC run and its
// qrels under --profile trec_eval and gdeval (and none), with and without
// --complete, give rankeval's summary and per-query records byte for
// byte (the trec_eval layout too).
func TestTrecParity(t *testing.T) {
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(td, "reference", "trec_*"))
	if len(dirs) < 2 {
		t.Fatalf("reference folders: %v", dirs)
	}
	tmp := t.TempDir()
	type check struct {
		name, out, pq, ext string
		args               []string
	}
	var jobs []job
	var checks []check
	for _, dir := range dirs {
		run, qrels := filepath.Join(dir, "run.txt"), filepath.Join(dir, "qrels.txt")
		// without a profile, the run's unjudged queries are evaluated (no
		// row relevant) rather than ignored
		for _, profile := range []string{"trec_eval", "gdeval", ""} {
			ms, formats := trecMeasures, []string{"json", "trec"}
			switch profile {
			case "gdeval":
				ms, formats = "ndcg@5,err@5,ndcg@10,err@10,ndcg@20,err@20", []string{"json", "text"}
			case "":
				ms, formats = "map,ndcg@10,p@5,rprec", []string{"json"}
			}
			for _, complete := range []bool{false, true} {
				for _, format := range formats {
					args := []string{"--qrels", qrels, "-m", ms, "--format", format}
					if profile != "" {
						args = append(args, "--profile", profile)
					}
					if complete {
						args = append(args, "--complete")
					}
					name := fmt.Sprintf("%s-%s-complete=%v-%s", filepath.Base(dir), profile, complete, format)
					ck := check{name: name, out: filepath.Join(tmp, name+".out"), pq: filepath.Join(tmp, name+".pq"), ext: ".jsonl", args: args}
					if format == "trec" {
						ck.ext = ".trec"
					}
					jobs = append(jobs, job{name: name, cfg: launchConfig(t, []string{run}, args...), out: ck.out, perQuery: ck.pq, shards: 1})
					checks = append(checks, ck)
				}
			}
		}
	}
	runBeam(t, jobs)
	for i, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			localPQ := ck.out + ".local"
			want := local(t, append(append([]string{"--quiet", "--per-query", localPQ}, ck.args...), jobs[i].cfg.Inputs...)...)
			if got := read(t, ck.out); got != want {
				t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
			}
			got, wantPQ := read(t, ck.pq+"-00000-of-00001"+ck.ext), read(t, localPQ)
			if got != wantPQ || len(wantPQ) < 100 {
				t.Fatalf("per-query records differ:\n%.600s\nrankeval:\n%.600s", got, wantPQ)
			}
		})
	}
}

// TestTrecSystems: two TREC runs compared as --system logs against one
// qrels, the second run's queries shuffled and some missing (--missing
// zero), give rankeval's summary and per-query records on the runs in
// query order, and its summary on the shuffled run with --unsorted; the
// same runs given as INPUT are the same systems, named by run tag (rank
// similarity included: the absent queries compare an empty ranking).
func TestTrecSystems(t *testing.T) {
	td, err := vectors.Testdata()
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(td, "reference", "trec_a")
	run, qrels := filepath.Join(ref, "run.txt"), filepath.Join(ref, "qrels.txt")
	// the second system: every third query ranked backwards, every
	// eleventh missing
	var order []string
	byQ := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(read(t, run)), "\n") {
		f := strings.Fields(line)
		q, _ := strconv.Atoi(f[0])
		if q%11 == 0 {
			continue
		}
		if q%3 == 0 {
			f[4] = "-" + strings.TrimPrefix(f[4], "-")
		}
		if len(byQ[f[0]]) == 0 {
			order = append(order, f[0])
		}
		byQ[f[0]] = append(byQ[f[0]], strings.Join(f, " ")+"\n")
	}
	dir := t.TempDir()
	write := func(name string, qs []string) string {
		var b strings.Builder
		for _, q := range qs {
			b.WriteString(strings.Join(byQ[q], ""))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sorted := write("new-sorted.txt", order)
	rand.New(rand.NewPCG(8, 9)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	shuffled := write("new-shuffled.txt", order)
	args := []string{"--qrels", qrels, "--profile", "trec_eval", "-m", "map,ndcg_cut_10,P_5,overlap@10,rbo:0.9,rbo_res:0.9@20", "--format", "json", "--missing", "zero"}
	out, pq := filepath.Join(dir, "beam.json"), filepath.Join(dir, "pq")
	// the shuffled run again, tagged "new", given as INPUT beside the first
	var tagged strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(read(t, shuffled)), "\n") {
		f := strings.Fields(line)
		f[5] = "new"
		tagged.WriteString(strings.Join(f, " ") + "\n")
	}
	newRun := filepath.Join(dir, "new.run")
	if err := os.WriteFile(newRun, []byte(tagged.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	asInputs := filepath.Join(dir, "inputs.json")
	runBeam(t, []job{{name: "trec-systems", cfg: launchConfig(t, nil, append(args, "--system", "base="+run, "--system", "new="+shuffled)...),
		out: out, perQuery: pq, shards: 1},
		{name: "trec-runs", cfg: launchConfig(t, []string{run, newRun}, args...), out: asInputs}})
	localPQ := filepath.Join(dir, "local.pq")
	want := local(t, append(args, "--quiet", "--per-query", localPQ, "--system", "base="+run, "--system", "new="+sorted)...)
	if got := read(t, out); vectors.SummaryBody(got) != vectors.SummaryBody(want) || !strings.Contains(want, `"missing": 5`) {
		t.Fatalf("Beam:\n%s\nrankeval:\n%s", got, want)
	}
	if got, want := read(t, pq+"-00000-of-00001.jsonl"), read(t, localPQ); got != want {
		t.Fatalf("per-query records differ:\n%.600s\nrankeval:\n%.600s", got, want)
	}
	// runs given as INPUT are systems named by run tag, in Beam as in
	// rankeval, whose --unsorted joins the shuffled run as Beam does
	wantInputs := local(t, append(args, "--quiet", "--unsorted", run, newRun)...)
	if got := read(t, asInputs); vectors.SummaryBody(got) != vectors.SummaryBody(wantInputs) || !strings.Contains(got, `"name": "new"`) {
		t.Fatalf("runs as INPUT: Beam:\n%s\nrankeval:\n%s", got, wantInputs)
	}
	unsorted := local(t, append(args, "--quiet", "--unsorted", "--system", "base="+run, "--system", "new="+shuffled)...)
	if got := read(t, out); vectors.SummaryBody(got) != vectors.SummaryBody(unsorted) {
		t.Fatalf("Beam:\n%s\nrankeval --unsorted:\n%s", got, unsorted)
	}
}

// TestTrecAtolLabels: under --profile trec_eval the qrels' labels read as
// trec_eval reads them, with atol ("0.5" is 0, "1e2" 1, "2.5" 2, "1.9"
// 1), as rankeval reads them: the summary is what trec_eval 9.0.8 and
// 10.0 print for the same files with -l 2 (ndcg 0.7296, map 0.4583),
// where the labels read as numbers gave 0.7713 and 0.5694.
func TestTrecAtolLabels(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	if err := os.WriteFile(qrels, []byte("q1 0 d1 0.5\nq1 0 d2 1e2\nq1 0 d3 2.5\nq1 0 d4 2\nq2 0 d1 1.9\nq2 0 d2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("q1 Q0 d1 1 4 r\nq1 Q0 d2 2 3 r\nq1 Q0 d3 3 2 r\nq1 Q0 d4 4 1 r\nq2 Q0 d1 1 2 r\nq2 Q0 d2 2 1 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--qrels", qrels, "--profile", "trec_eval", "--rel-threshold", "2", "-m", "ndcg,map", "--format", "trec"}
	out := filepath.Join(dir, "summary")
	runBeam(t, []job{{name: "atol", cfg: launchConfig(t, []string{run}, args...), out: out, shards: 1}})
	want := "num_q                 \tall\t2\nndcg                  \tall\t0.7296\nmap                   \tall\t0.4583\n"
	if got := read(t, out); got != want {
		t.Fatalf("Beam:\n%s\ntrec_eval:\n%s", got, want)
	}
	if got := local(t, append([]string{"--quiet"}, append(args, run)...)...); got != want {
		t.Fatalf("rankeval:\n%s\ntrec_eval:\n%s", got, want)
	}
}

// TestTrecCompleteNumRel: under --complete a judged query the run lacks
// (q2) adds its R to num_rel's total, as trec_eval 9.0.8 and 10.0 -c
// count it (3, where its 2 relevant documents were left out: 1), and
// nothing to num_rel_ret and num_ret; rankeval gives the same.
func TestTrecCompleteNumRel(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	if err := os.WriteFile(qrels, []byte("q1 0 d1 1\nq2 0 d1 1\nq2 0 d2 1\nq2 0 d3 0\nq2 0 d4 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("q1 Q0 d1 1 2 r\nq1 Q0 d9 2 1 r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--qrels", qrels, "--profile", "trec_eval", "--complete", "-m", "num_rel,num_rel_ret,num_ret,map", "--format", "trec"}
	out := filepath.Join(dir, "summary")
	runBeam(t, []job{{name: "complete", cfg: launchConfig(t, []string{run}, args...), out: out, shards: 1}})
	want := "num_q                 \tall\t2\nnum_rel               \tall\t3\nnum_rel_ret           \tall\t1\nnum_ret               \tall\t2\nmap                   \tall\t0.5000\n"
	if got := read(t, out); got != want {
		t.Fatalf("Beam:\n%s\ntrec_eval:\n%s", got, want)
	}
	if got := local(t, append([]string{"--quiet"}, append(args, run)...)...); got != want {
		t.Fatalf("rankeval:\n%s\ntrec_eval:\n%s", got, want)
	}
}
