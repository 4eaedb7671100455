#!/usr/bin/env bash
# Issue-5 figures: a log shuffled out of query order, evaluated with
# --unsorted under a memory budget, against the same log sorted: time, peak
# RSS, identical summaries, and nothing left in the temp dir.
#
#   scripts/bench-unsorted.sh [ROWS] [MEM_LIMIT]   (default 100000000 256MiB; BENCH_DIR=/tmp/rankeval-bench)
set -euo pipefail
rows=${1:-100000000}
limit=${2:-256MiB}
dir=${BENCH_DIR:-/tmp/rankeval-bench}
cd "$(dirname "$0")/.."
mkdir -p "$dir" "$dir/spill"
sorted=$dir/log.$rows.jsonl.zst shuffled=$dir/shuffled.$rows.jsonl.zst
[ -s "$sorted" ] || go run ./scripts/gen -rows "$rows" -docs 50 -seed 1 -o "$sorted"
[ -s "$shuffled" ] || go run ./scripts/interleave -window 64 -o "$shuffled" "$sorted"
go build -o "$dir/rankeval" ./cmd/rankeval
run() { # label, output, args...
	local label=$1 out=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$dir/t" "$dir/rankeval" --quiet --format json "$@" >"$out"
	read -r s k <"$dir/t"
	printf '%-34s %8.1f s  %6d MB peak RSS\n' "$label" "$s" $((k / 1024))
}
run "sorted" "$dir/sorted.json" "$sorted"
run "shuffled --unsorted --mem-limit $limit" "$dir/unsorted.json" --unsorted --mem-limit "$limit" --tmp-dir "$dir/spill" "$shuffled"
if cmp -s "$dir/sorted.json" "$dir/unsorted.json"; then echo "summaries: byte-identical"; else echo "summaries DIFFER"; exit 1; fi
left=$(ls -A "$dir/spill" | wc -l)
echo "files left in --tmp-dir: $left"
[ "$left" = 0 ]
