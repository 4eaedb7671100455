#!/usr/bin/env bash
# Issue-2 figures: rows/s and peak RSS of rankeval on a generated zstd JSONL
# log with the default metrics, at 1 and 2 workers, beside a bare
# decompress+parse of the same file (scripts/readonly).
#
#   scripts/bench-jsonl.sh [ROWS]        (default 10000000; BENCH_DIR=/tmp/rankeval-bench)
set -euo pipefail
rows=${1:-10000000}
dir=${BENCH_DIR:-/tmp/rankeval-bench}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
log=$dir/log.$rows.jsonl.zst
[ -s "$log" ] || go run ./scripts/gen -rows "$rows" -docs 50 -seed 1 -o "$log"
go build -o "$dir/rankeval" ./cmd/rankeval
go build -o "$dir/readonly" ./scripts/readonly
echo "log: $log ($rows rows, $(du -h "$log" | cut -f1))"
best() { # label, command...: best of 3 wall times, and the peak RSS of that run
	local label=$1
	shift
	local bs=999999 bk=0
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$dir/t" "$@" >/dev/null 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
		read -r s k <"$dir/t"
		if awk -v a="$s" -v b="$bs" 'BEGIN{exit !(a<b)}'; then bs=$s bk=$k; fi
	done
	awk -v l="$label" -v s="$bs" -v k="$bk" -v r="$rows" \
		'BEGIN { printf "%-28s %7.2f s  %6.2f M rows/s  %5d MB peak RSS\n", l, s, r / s / 1e6, k / 1024 }'
}
best "decompress+parse only" "$dir/readonly" "$log"
best "rankeval --workers 1" "$dir/rankeval" --quiet --workers 1 "$log"
best "rankeval --workers 2" "$dir/rankeval" --quiet --workers 2 "$log"
