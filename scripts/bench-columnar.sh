#!/usr/bin/env bash
# Measures rankeval on Parquet against a bare pqarrow decode of the same
# columns, the scaling from 1 to 2 workers, and peak RSS at 10M and 100M rows.
#
#   scripts/bench-columnar.sh            # BENCH_DIR=/tmp/rankeval-bench REPEAT=3
#
# Generates (if absent) $BENCH_DIR/columnar.{10000000,100000000}.zstd.parquet
# (scripts/gen: 100 docs a query, zstd, row groups of 1Mi rows). Times are
# wall-clock seconds, best of $REPEAT runs (100M: best of $REPEAT_BIG), files
# in the page cache after the first run; RSS is /usr/bin/time -v's maximum
# resident set size. The machine may be shared: the numbers are noisy, the
# ratios less so.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/rankeval-bench}
REPEAT=${REPEAT:-3}
REPEAT_BIG=${REPEAT_BIG:-1}
mkdir -p "$BENCH_DIR"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gen" ./scripts/gen
go build -o "$bin/rankeval" ./cmd/rankeval
go build -o "$bin/pqdecode" ./scripts/pqdecode
go build -o "$bin/readonly" ./scripts/readonly

small=$BENCH_DIR/columnar.10000000.zstd.parquet
big=$BENCH_DIR/columnar.100000000.zstd.parquet
for n in 10000000 100000000; do
	f=$BENCH_DIR/columnar.$n.zstd.parquet
	if [ ! -f "$f" ]; then
		echo "generating $f" >&2
		"$bin/gen" -rows "$n" -docs 100 -seed 1 -codec zstd -row-group 1048576 -o "$f"
	fi
done

# measure N CMD...: runs CMD N times under /usr/bin/time -v; sets BEST (the
# lowest wall seconds), CPU (user+sys seconds of that run) and RSS (its
# peak KB). CPU/wall shows how many cores the run really had.
measure() {
	local n=$1
	shift
	BEST= RSS= CPU=
	for _ in $(seq "$n"); do
		/usr/bin/time -v "$@" >/dev/null 2>"$bin/time.txt"
		local wall rss cpu
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$bin/time.txt")
		rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$bin/time.txt")
		cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$bin/time.txt")
		if [ -z "$BEST" ] || awk -v a="$wall" -v b="$BEST" 'BEGIN {exit !(a < b)}'; then
			BEST=$wall RSS=$rss CPU=$cpu
		fi
	done
}

row() {
	printf '%-56s %6.2f s %6.2f cpu-s %6.1f Mrows/s %5d MB\n' "$1" "$2" "$CPU" \
		"$(awk -v r="$3" -v s="$2" 'BEGIN {print r / s / 1e6}')" "$(($4 / 1024))"
}

echo "machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$small" >/dev/null # page cache
# rankeval with the default metrics reads query_id, doc_id (when present,
# to catch duplicate documents), score and label: the bare decode reads the
# same four columns.
measure "$REPEAT" "$bin/pqdecode" "$small"
bare=$BEST; row "bare pqarrow decode, 4 columns (Parallel, 1 reader)" "$BEST" 1e7 "$RSS"
measure "$REPEAT" "$bin/pqdecode" -rg-workers 2 -parallel=false "$small"
bare2=$BEST; row "bare pqarrow decode, 4 columns (2 row-group readers)" "$BEST" 1e7 "$RSS"
measure "$REPEAT" "$bin/readonly" "$small"
row "rankeval's reader alone (scripts/readonly, 3 columns)" "$BEST" 1e7 "$RSS"
measure "$REPEAT" "$bin/rankeval" --quiet --format json "$small"
e2e=$BEST rss10=$RSS; row "rankeval --format json (default workers)" "$BEST" 1e7 "$RSS"
measure "$REPEAT" "$bin/rankeval" --quiet --format json --workers 1 "$small"
w1=$BEST; row "rankeval --workers 1" "$BEST" 1e7 "$RSS"
measure "$REPEAT" "$bin/rankeval" --quiet --format json --workers 2 "$small"
w2=$BEST; row "rankeval --workers 2" "$BEST" 1e7 "$RSS"
measure "$REPEAT" env GOMAXPROCS=1 "$bin/rankeval" --quiet --format json --workers 1 "$small"
g1=$BEST; row "GOMAXPROCS=1 rankeval --workers 1 (one core)" "$BEST" 1e7 "$RSS"
cat "$big" >/dev/null
measure "$REPEAT_BIG" "$bin/readonly" "$big"
row "rankeval's reader alone, 100M rows" "$BEST" 1e8 "$RSS"
measure "$REPEAT_BIG" "$bin/rankeval" --quiet --format json "$big"
rss100=$RSS; row "rankeval --format json, 100M rows" "$BEST" 1e8 "$RSS"

echo
awk -v e="$e2e" -v b="$bare" -v b2="$bare2" -v w1="$w1" -v w2="$w2" -v g1="$g1" -v r10="$rss10" -v r100="$rss100" 'BEGIN {
	printf "end-to-end / bare decode (1 reader):          %.2fx  (issue: <= 1.3x)\n", e / b
	printf "end-to-end / bare decode (2 row-group rdrs):  %.2fx\n", e / b2
	printf "--workers 2 speed-up over --workers 1:        %.2fx  (issue: >= 1.6x)\n", w1 / w2
	printf "--workers 2 speed-up over one core:           %.2fx\n", g1 / w2
	printf "peak RSS 100M / 10M:                          %.2f   (issue: within 20%%; %d MB and %d MB, issue: < 256 MB)\n", r100 / r10, r10 / 1024, r100 / 1024
}'
