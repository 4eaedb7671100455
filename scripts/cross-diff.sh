#!/usr/bin/env bash
# cross-diff.sh: the same outputs, byte for byte, from builds for every
# kind of machine.
#
# Builds rankeval for linux/amd64 at GOAMD64=v1 (the reference) and v3, and
# for linux/arm64 (run under qemu-user's qemu-aarch64), runs each over the
# same command lines (the golden outputs, both trec_eval releases' suites,
# a three-system comparison with randomization, bootstrap and effect
# sizes, click metrics and IPS estimates, states and their merge) and
# compares stdout, stderr, the exit code and every file written with the
# reference's. Prints a line per case and a total; exit 1 on any
# difference.
#
# Usage: scripts/cross-diff.sh [-k]   (-k keeps the work directory)
# Needs qemu-aarch64 and zstd on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
[ "${1:-}" = -k ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT

for tool in qemu-aarch64 zstd; do
	command -v "$tool" >/dev/null || { echo "cross-diff: $tool is not on PATH" >&2; exit 1; }
done

echo "building rankeval for amd64 v1, amd64 v3, arm64" >&2
CGO_ENABLED=0 GOARCH=amd64 GOAMD64=v1 go build -o "$work/bin/v1" ./cmd/rankeval
CGO_ENABLED=0 GOARCH=amd64 GOAMD64=v3 go build -o "$work/bin/v3" ./cmd/rankeval
CGO_ENABLED=0 GOARCH=arm64 go build -o "$work/bin/arm64" ./cmd/rankeval
go run ./scripts/genclicks -rows 60000 -docs 10 -seed 7 > "$work/clicks.jsonl"

# The inputs, decompressed where the drop-in reads them as trec_eval does.
in=$work/in
mkdir -p "$in"
qt=testdata/trec_eval/quicktest
for f in "$qt"/*.zst testdata/trec_eval/gen/*.zst; do
	zstd -qdc "$f" > "$in/$(basename "${f%.zst}")"
done
cp "$qt"/prefs.test "$qt"/results.trunc "$in"/
sample=testdata/sample.jsonl.zst
compare=testdata/compare.jsonl.zst

# One case a line: NAME<TAB>ARGS (split on spaces; $in, $sample, $compare,
# $clicks and $out, the case's own output directory, are expanded).
cases=$(cat <<'CASES'
sample.text	--quiet $sample
sample.json	--quiet --format json $sample
sample.all-metrics	--quiet --format json --ties average -m p@5,r@10,f1@10,f0.5@10,hit@1,ap,ap@10,rr,rr@5,rprec,cg@5,dcg@5,ndcg,ndcg@5,err,nerr@10,kendall,spearman@10 $sample
sample.per-query.trec	--quiet --format trec -m map,ndcg@10 --per-query - $sample
sample.per-query.jsonl	--quiet --format json -m map,ndcg@10,kendall,iprec@0.7,11pt_avg --empty zero --per-query - $sample
sample.linear-gains	--quiet --format json --gain linear -m ndcg@10,err@10,ndcg --per-query - $sample
sample.state	--quiet --format json --bootstrap 200 --state $out/s.state --report $out/r.html $sample
compare.text	--quiet -m ndcg@10,map,mrr,p@5,r@10,err@10,kendall --by market --score-col score,score_b --bootstrap 500 $compare
compare.per-query	--quiet -m ndcg@10,map,mrr,p@5,r@10,err@10,kendall --by market --score-col score,score_b --bootstrap 500 --format json --per-query - $compare
compare.three-systems	--quiet --format json -m ndcg@10,map,err@10 --system a=$compare --system b=$compare --system c=$compare --score-col score --pairs all --test randomization --permutations 2000 --bootstrap 300 --seed 11
compare.tukey	--quiet -m ndcg@10,map --score-col score,score_b --test tukey --permutations 1000 --format latex $compare
compare.markdown	--quiet -m ndcg@10,map --score-col score,score_b --bootstrap 1000 --format markdown $compare
compare.state	--quiet --score-col score,score_b -m ndcg@10,map --bootstrap 100 --permutations 500 --state $out/c.state --format json $compare
clicks.ips	--quiet --format json --label-col clicked --position-col position --position-bias pow:1 --by market -m clicks@3,ctr@10,abandon,first_click,last_click,ips_clicks@5,ips_p@3,ips_dcg@10,snips_dcg@10,ndcg@10 --bootstrap 200 --per-query - $clicks
clicks.ips-clip	--quiet --format json --label-col clicked --position-col position --position-bias pow:0.7 --propensity-clip 0.3 -m ips_dcg@10,snips_dcg@10,snips_p@5 $clicks
trec.profile	--quiet --format json --profile trec_eval --qrels $in/graded.qrels -m map,ndcg,ndcg@10,iprec@0.7,11pt_avg,bpref,rprec --per-query - $in/graded.run
trec.gdeval	--quiet --profile gdeval --max-grade 9 --qrels $in/graded.qrels -m ndcg@20,err@20 $in/graded.run
te10.aq	trec_eval -m all_trec -q $in/qrels.test $in/results.test
te10.aqc	trec_eval -m all_trec -q -c $in/qrels.test $in/results.trunc
te10.aqcM	trec_eval -m all_trec -q -c -M100 $in/qrels.test $in/results.trunc
te10.aql	trec_eval -m all_trec -mrelstring.20 -q -l2 $in/qrels.rel_level $in/results.test
te10.prefs	trec_eval -m all_prefs -q -R prefs $in/prefs.test $in/prefs.results.test
te10.qrels_prefs	trec_eval -m all_prefs -q -R qrels_prefs $in/qrels.test $in/results.test
te10.qrels_jg	trec_eval -m qrels_jg -q -R qrels_jg $in/qrels.123 $in/results.test
te10.params	trec_eval -q -miprec_at_recall..10,.20,.25,.70,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 $in/qrels.test $in/results.test
te10.Z	trec_eval -q -m all_trec -Z testdata/trec_eval/quicktest/10.0/zscores_file $in/qrels.test $in/results.test
te908.aq	trec_eval --release 9.0.8 -m all_trec -q $in/qrels.test $in/results.test
te908.aqcJ	trec_eval --release 9.0.8 -m all_trec -q -c -J $in/qrels.test $in/results.trunc
te908.params	trec_eval --release 9.0.8 -q -miprec_at_recall..10,.20,.25,.70,.75,.50 -m 11pt_avg..25,.5,.75,.7 -mndcg.1=3,2=9,4=4.5 $in/qrels.test $in/results.test
te908.Z	trec_eval --release 9.0.8 -q -m all_trec -Z testdata/trec_eval/quicktest/9.0.8/zscores_file $in/qrels.test $in/results.test
te.gen-binary	trec_eval -m all_trec -q -c $in/binary.qrels $in/binary.run
te.gen-graded	trec_eval -m all_trec -q -c -J -l2 $in/graded.qrels $in/graded.run
te.gen-gains	trec_eval --release 9.0.8 -q -m ndcg.-1=5,0=0,1=1,2=3 -m ndcg_rel -m G -m Rndcg $in/graded.qrels $in/graded.run
te908.gen-graded	trec_eval --release 9.0.8 -m all_trec -q -c -M50 $in/graded.qrels $in/graded.run
CASES
)

total=0 failed=0
while IFS=$'\t' read -r name args; do
	for b in v1 v3 arm64; do
		out=$work/out/$b/$name
		mkdir -p "$out"
		expanded=${args//\$in/$in}
		expanded=${expanded//\$sample/$sample}
		expanded=${expanded//\$compare/$compare}
		expanded=${expanded//\$clicks/$work/clicks.jsonl}
		expanded=${expanded//\$out/$out}
		run=("$work/bin/$b")
		[ "$b" = arm64 ] && run=(qemu-aarch64 "$work/bin/$b")
		# shellcheck disable=SC2086
		set +e
		"${run[@]}" $expanded > "$out/stdout" 2> "$out/stderr"
		echo "exit $?" > "$out/exit"
		set -e
		# the paths of a case's files are its own: name them alike
		sed -i "s|$work/out/$b/|OUT/|g" "$out"/* 2>/dev/null || true
	done
	lines=$(cat "$work/out/v1/$name"/* | wc -l)
	status=""
	for b in v3 arm64; do
		if ! diff -r "$work/out/v1/$name" "$work/out/$b/$name" > "$work/diff.txt"; then
			n=$(grep -c '^[<>]' "$work/diff.txt" || true)
			status="$status $b: $n lines differ;"
			failed=$((failed + 1))
			head -20 "$work/diff.txt" | sed "s/^/    /" >&2
		fi
	done
	code=$(cat "$work/out/v1/$name/exit")
	total=$((total + lines))
	printf '%-24s %7d lines, %s  %s\n' "$name" "$lines" "$code" "${status:-identical on v3 and arm64}"
done <<< "$cases"
n=$(echo "$cases" | wc -l)
echo "$n cases, $total output lines each: $failed differences against amd64 v1"
[ "$failed" = 0 ]
