#!/usr/bin/env bash
# Issue-19 figures: a click-shaped JSONL log (scripts/genclicks: 11 fields,
# about 230 bytes a row) read end to end by rankeval with the default
# metrics, against the single-threaded `zstd -dc` floor of the same file,
# on one core (GOMAXPROCS=1) and on all, zstd -3, plain and gzip copies,
# then the same rows as CSV (zstd and plain), with peak RSS.
#
#   scripts/clickbench.sh [ROWS]     (default 5000000)
#
# CLICKBENCH_DIR (default /tmp/rankeval-clickbench) receives the logs;
# RANKEVAL names the binary to time (default: built from this tree into
# that directory); REPEAT (default 3) runs of each, the best reported,
# going round the rows of the table in turn. CPU is user+system seconds of
# the reported run: on a shared machine it moves less than the wall time.
set -euo pipefail
rows=${1:-5000000}
dir=${CLICKBENCH_DIR:-/tmp/rankeval-clickbench}
repeat=${REPEAT:-3}
cd "$(dirname "$0")/.."
# shellcheck source=clicklog.sh
. scripts/clicklog.sh
[ -s "$log.gz" ] || gzip -6 -c "$log" >"$log.gz"
csv=$dir/clicks.$rows.csv # the same rows as CSV, a header row and the title quoted
if [ ! -s "$csv.zst" ]; then
	go run ./scripts/genclicks -rows "$rows" -seed 1 -format csv >"$csv.tmp"
	mv "$csv.tmp" "$csv"
	zstd -q -3 -f "$csv" -o "$csv.zst"
fi
bin=${RANKEVAL:-}
if [ -z "$bin" ]; then
	bin=$dir/rankeval
	go build -o "$bin" ./cmd/rankeval
fi
echo "log: $log ($rows rows; plain $(du -h "$log" | cut -f1), zstd $(du -h "$log.zst" | cut -f1), gzip $(du -h "$log.gz" | cut -f1)); binary $bin; best of $repeat; $(nproc) CPUs"

labels=(
	"zstd -dc (one thread, the floor)"
	"rankeval log.jsonl.zst"
	"GOMAXPROCS=1 rankeval log.jsonl.zst"
	"rankeval log.jsonl (plain)"
	"GOMAXPROCS=1 rankeval log.jsonl"
	"gzip -dc"
	"rankeval log.jsonl.gz"
	"GOMAXPROCS=1 rankeval log.jsonl.gz"
	"zstd -dc log.csv.zst (the CSV's floor)"
	"rankeval log.csv.zst"
	"GOMAXPROCS=1 rankeval log.csv.zst"
	"rankeval log.csv (plain)"
	"GOMAXPROCS=1 rankeval log.csv"
)
cmds=(
	"zstd -q -T1 -dc $log.zst"
	"$bin --quiet $log.zst"
	"env GOMAXPROCS=1 $bin --quiet $log.zst"
	"$bin --quiet $log"
	"env GOMAXPROCS=1 $bin --quiet $log"
	"gzip -dc $log.gz"
	"$bin --quiet $log.gz"
	"env GOMAXPROCS=1 $bin --quiet $log.gz"
	"zstd -q -T1 -dc $csv.zst"
	"$bin --quiet $csv.zst"
	"env GOMAXPROCS=1 $bin --quiet $csv.zst"
	"$bin --quiet $csv"
	"env GOMAXPROCS=1 $bin --quiet $csv"
)
declare -a best rss cpu
for i in "${!cmds[@]}"; do best[i]=999999 rss[i]=0 cpu[i]=0; done
for _ in $(seq "$repeat"); do
	for i in "${!cmds[@]}"; do
		# shellcheck disable=SC2086 # the commands are word lists
		/usr/bin/time -f "%e %M %U %S" -o "$dir/t" ${cmds[i]} >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
		read -r s k u y <"$dir/t"
		if awk -v a="$s" -v b="${best[i]}" 'BEGIN{exit !(a<b)}'; then
			best[i]=$s rss[i]=$k cpu[i]=$(awk -v u="$u" -v y="$y" 'BEGIN{print u + y}')
		fi
	done
done
printf '| %-38s | %8s | %10s | %13s | %8s | %8s |\n' run time "M rows/s" "× zstd floor" CPU "peak RSS"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" ---------- ------------ --------------- ---------- ----------
for i in "${!cmds[@]}"; do
	awk -v l="${labels[i]}" -v s="${best[i]}" -v k="${rss[i]}" -v c="${cpu[i]}" -v r="$rows" -v f="${best[0]}" \
		'BEGIN { printf "| %-38s | %6.2f s | %10.2f | %12.2f× | %6.2f s | %5d MB |\n", l, s, r / s / 1e6, s / f, c, k / 1024 }'
done
awk -v a="${best[1]}" -v b="${best[2]}" -v c="${best[3]}" -v d="${best[4]}" -v e="${best[6]}" -v f="${best[7]}" \
	-v g="${best[9]}" -v h="${best[10]}" -v i="${best[11]}" -v j="${best[12]}" -v z="${best[8]}" 'BEGIN {
	printf "all cores against one: zstd %.2f×, plain %.2f×, gzip %.2f×; CSV zstd %.2f×, CSV plain %.2f×\n", b / a, d / c, f / e, h / g, j / i
	printf "CSV zstd end to end: %.2f× its own zstd -dc floor\n", g / z }'
