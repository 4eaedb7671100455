#!/usr/bin/env bash
# Compares rankeval with trec_eval 9.0.8 on a large random qrels/run pair:
# time and peak memory of each, and the largest difference over every
# per-query and "all" value; then the drop-in, `rankeval trec_eval QRELS
# RUN` against `trec_eval QRELS RUN` (the default measures): time, memory,
# and whether the outputs are byte-identical; with TREC_EVAL10 set, the
# drop-in's default release, 10.0, against trec_eval 10.0 the same way
# (with -c, since 10.0 stops at a judged query the run lacks), and then
# every measure of 10.0's all_trec, `-c -m all_trec`, REPEAT times (default
# 3) with the two programs interleaved, so that a machine loaded by others
# slows both alike: each pair's ratio and their median.
#
#   TREC_EVAL=/path/to/trec_eval TREC_EVAL10=/path/to/trec_eval10 \
#     scripts/trec-compare.sh [RUN_LINES]
#
# Build trec_eval yourself, outside this repository (usnistgov/trec_eval,
# tag v9.0.8 and commit f425365 for 10.0: make in each). BENCH_DIR (default /tmp/rankeval-trec) holds the
# generated files, which are reused when present.
set -euo pipefail
: "${TREC_EVAL:?set TREC_EVAL to the path of a trec_eval 9.0.8 binary}"
lines=${1:-10000000}
dir=${BENCH_DIR:-/tmp/rankeval-trec}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
go build -o "$dir/rankeval" ./cmd/rankeval
qrels=$dir/qrels.$lines.txt run=$dir/run.$lines.txt
if [ ! -s "$run" ]; then
	go run ./scripts/gentrec -lines "$lines" -qrels "$qrels" -run "$run"
fi
echo "run: $(wc -l <"$run") lines, qrels: $(wc -l <"$qrels") judgments"

timed() { # name, output, command...
	local name=$1 out=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$dir/$name.time" "$@" >"$out" 2>"$dir/$name.err" ||
		{ cat "$dir/$name.err" >&2; exit 1; }
	read -r secs kb <"$dir/$name.time"
	printf '%-10s %8.2f s  %8d MB peak RSS\n' "$name" "$secs" $((kb / 1024))
}
timed trec_eval "$dir/te.txt" "$TREC_EVAL" -q -m map -m P.5,10 -m recall.100 -m ndcg_cut.10 -m ndcg -m recip_rank -m Rprec -m success.1 "$qrels" "$run"
timed rankeval "$dir/re.txt" "$dir/rankeval" --qrels "$qrels" --profile trec_eval --format trec --per-query - \
	-m map,P_5,P_10,recall_100,ndcg_cut_10,ndcg,recip_rank,Rprec,success_1 "$run"

read -r te_s te_kb <"$dir/trec_eval.time"
read -r re_s re_kb <"$dir/rankeval.time"
awk -v te="$te_s" -v re="$re_s" -v tk="$te_kb" -v rk="$re_kb" \
	'BEGIN { printf "rankeval is %.1fx faster, with %.2fx trec_eval'"'"'s peak RSS\n", te / re, rk / tk }'
# every (measure, query) line of trec_eval must be in rankeval's output
awk -F'\t' '
	NR == FNR { gsub(/ +$/, "", $1); if ($1 != "runid") want[$1 "\t" $2] = $3; next }
	{ gsub(/ +$/, "", $1); got[$1 "\t" $2] = $3 }
	END {
		max = 0; missing = 0; n = 0
		for (k in want) {
			if (!(k in got)) { missing++; continue }
			d = want[k] - got[k]; if (d < 0) d = -d
			if (d > max) { max = d; at = k }
			n++
		}
		printf "compared %d values: largest difference %.4f%s, %d missing\n", n, max, (max > 0 ? " at " at : ""), missing
		exit (missing > 0 || max > 0.00005)
	}' "$dir/te.txt" "$dir/re.txt"

# dropin RELEASE BINARY ARGS...: the drop-in against that trec_eval
dropin() {
	local release=$1 bin=$2
	shift 2
	echo "drop-in, trec_eval $release $* QRELS RUN:"
	timed trec_eval "$dir/te-$release.txt" "$bin" "$@" "$qrels" "$run"
	timed rankeval "$dir/re-$release.txt" "$dir/rankeval" trec_eval --release "$release" "$@" "$qrels" "$run"
	read -r te_s te_kb <"$dir/trec_eval.time"
	read -r re_s re_kb <"$dir/rankeval.time"
	awk -v te="$te_s" -v re="$re_s" -v tk="$te_kb" -v rk="$re_kb" \
		'BEGIN { printf "rankeval trec_eval is %.1fx faster, with %.2fx trec_eval'"'"'s peak RSS\n", te / re, rk / tk }'
	if cmp -s "$dir/te-$release.txt" "$dir/re-$release.txt"; then
		echo "outputs byte-identical ($(wc -l <"$dir/te-$release.txt") lines)"
	else
		diff "$dir/te-$release.txt" "$dir/re-$release.txt" | head -20
		exit 1
	fi
}
dropin 9.0.8 "$TREC_EVAL"
if [ -n "${TREC_EVAL10:-}" ]; then
	dropin 10.0 "$TREC_EVAL10" -c
	# all_trec, interleaved: trec_eval, rankeval, trec_eval, rankeval, ...
	repeat=${REPEAT:-3}
	echo "drop-in, trec_eval 10.0 -c -m all_trec QRELS RUN, $repeat interleaved pairs:"
	ratios=()
	for i in $(seq "$repeat"); do
		timed trec_eval "$dir/te-all.txt" "$TREC_EVAL10" -c -m all_trec "$qrels" "$run"
		timed rankeval "$dir/re-all.txt" "$dir/rankeval" trec_eval -c -m all_trec "$qrels" "$run"
		read -r te_s te_kb <"$dir/trec_eval.time"
		read -r re_s re_kb <"$dir/rankeval.time"
		ratios+=("$(awk -v te="$te_s" -v re="$re_s" 'BEGIN { printf "%.2f", te / re }')")
		awk -v te="$te_s" -v re="$re_s" -v tk="$te_kb" -v rk="$re_kb" \
			'BEGIN { printf "pair: rankeval trec_eval is %.1fx faster, with %.2fx trec_eval'"'"'s peak RSS\n", te / re, rk / tk }'
		cmp -s "$dir/te-all.txt" "$dir/re-all.txt" || { diff "$dir/te-all.txt" "$dir/re-all.txt" | head -20; exit 1; }
	done
	printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { printf "all_trec: median %.1fx faster over %d pairs (from %.1fx to %.1fx); outputs byte-identical (%s lines)\n", r[int((NR + 1) / 2)], NR, r[1], r[NR], "'"$(wc -l <"$dir/te-all.txt")"'" }'
fi
