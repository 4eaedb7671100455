#!/usr/bin/env bash
# Measures rankeval on Parquet against a bare pqarrow decode of the same
# columns, the scaling from 1 to 2 workers, and peak RSS at 10M and 100M rows.
#
#   scripts/bench-columnar.sh            # BENCH_DIR=/tmp/rankeval-bench REPEAT=3
#
# Generates (if absent) $BENCH_DIR/columnar.{10000000,100000000}.zstd.parquet
# (scripts/gen: 100 docs a query, zstd, row groups of 1Mi rows). Times are
# wall-clock seconds, best of $REPEAT runs (100M: best of $REPEAT_BIG), files
# in the page cache; the 10M-row runs go round the configurations in turn.
# RSS is /usr/bin/time -v's maximum resident set size. The machine may be
# shared: the numbers are noisy, the ratios less so.
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

# run_once CMD...: runs CMD once under /usr/bin/time -v; sets WALL (wall
# seconds), CPU (user+sys seconds; CPU/wall shows how many cores the run
# really had) and RSS (peak KB).
run_once() {
	/usr/bin/time -v "$@" >/dev/null 2>"$bin/time.txt"
	WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$bin/time.txt")
	RSS=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$bin/time.txt")
	CPU=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$bin/time.txt")
}

# The 10M-row configurations run in turn, $REPEAT rounds, so that the
# machine's drift from minute to minute hits them alike; each keeps its
# fastest run (BEST_k, with that run's CPU_k and RSS_k).
cat "$small" >/dev/null # page cache
rankeval=("$bin/rankeval" --quiet --format json)
configs=(
	"bare pqarrow decode, 4 columns (Parallel, 1 reader)|$bin/pqdecode $small"
	"bare pqarrow decode, 4 columns (2 row-group readers)|$bin/pqdecode -rg-workers 2 -parallel=false $small"
	"rankeval's reader alone (scripts/readonly, 4 columns)|$bin/readonly $small"
	"rankeval --format json (default workers)|${rankeval[*]} $small"
	"rankeval --workers 1|${rankeval[*]} --workers 1 $small"
	"rankeval --workers 2|${rankeval[*]} --workers 2 $small"
	"GOMAXPROCS=1 rankeval --workers 1 (one core)|env GOMAXPROCS=1 ${rankeval[*]} --workers 1 $small"
)
declare -A BEST CPUS RSSS
for _ in $(seq "$REPEAT"); do
	for k in "${!configs[@]}"; do
		# shellcheck disable=SC2086 # the command is split on purpose
		run_once ${configs[$k]#*|}
		if [ -z "${BEST[$k]:-}" ] || awk -v a="$WALL" -v b="${BEST[$k]}" 'BEGIN {exit !(a < b)}'; then
			BEST[$k]=$WALL CPUS[$k]=$CPU RSSS[$k]=$RSS
		fi
	done
done

row() {
	printf '%-56s %6.2f s %6.2f cpu-s %6.1f Mrows/s %5d MB\n' "$1" "$2" "$3" \
		"$(awk -v r="$4" -v s="$2" 'BEGIN {print r / s / 1e6}')" "$(($5 / 1024))"
}

echo "machine: $(nproc) CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in "${!configs[@]}"; do
	row "${configs[$k]%%|*}" "${BEST[$k]}" "${CPUS[$k]}" 1e7 "${RSSS[$k]}"
done
bare=${BEST[0]} bare2=${BEST[1]} e2e=${BEST[3]} rss10=${RSSS[3]} w1=${BEST[4]} w2=${BEST[5]} g1=${BEST[6]}

# 100M rows: best of $REPEAT_BIG each.
cat "$big" >/dev/null
for k in 0 1; do
	cmd=("$bin/readonly" "$big")
	what="rankeval's reader alone, 100M rows"
	if [ "$k" = 1 ]; then
		cmd=("${rankeval[@]}" "$big")
		what="rankeval --format json, 100M rows"
	fi
	best=
	for _ in $(seq "$REPEAT_BIG"); do
		run_once "${cmd[@]}"
		if [ -z "$best" ] || awk -v a="$WALL" -v b="$best" 'BEGIN {exit !(a < b)}'; then
			best=$WALL cpu=$CPU rss=$RSS
		fi
	done
	row "$what" "$best" "$cpu" 1e8 "$rss"
done
rss100=$rss

echo
awk -v e="$e2e" -v b="$bare" -v b2="$bare2" -v w1="$w1" -v w2="$w2" -v g1="$g1" -v r10="$rss10" -v r100="$rss100" 'BEGIN {
	printf "end-to-end / bare decode (1 reader):          %.2fx  (issue: <= 1.3x)\n", e / b
	printf "end-to-end / bare decode (2 row-group rdrs):  %.2fx\n", e / b2
	printf "--workers 2 speed-up over --workers 1:        %.2fx  (issue: >= 1.6x)\n", w1 / w2
	printf "--workers 2 speed-up over one core:           %.2fx\n", g1 / w2
	printf "peak RSS 100M / 10M:                          %.2f   (issue: within 20%%; %d MB and %d MB, issue: < 256 MB)\n", r100 / r10, r10 / 1024, r100 / 1024
}'
