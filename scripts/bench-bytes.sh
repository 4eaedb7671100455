#!/usr/bin/env bash
# Issue-23 case 5 figures: the memory limits count bytes. Three logs that
# hold few rows and many bytes: one query of 100,000 rows with 10 KB doc
# ids (1 GB, about 1 MB as zstd), the same rows shuffled with a second
# query's, and 3,000 queries opening slices of 100 KB values. Each is run
# sorted and under --unsorted --mem-limit 16MiB; the table gives the exit
# code, the first line of stderr and the peak RSS.
#
#   scripts/bench-bytes.sh        (BENCH_DIR=/tmp/rankeval-bytes; RANKEVAL=binary, default built from this tree)
set -euo pipefail
dir=${BENCH_DIR:-/tmp/rankeval-bytes}
cd "$(dirname "$0")/.."
mkdir -p "$dir/spill"
one=$dir/one-query.jsonl.zst shuf=$dir/two-queries.jsonl.zst sliced=$dir/slices.jsonl.zst
pad() { awk -v n="$1" 'BEGIN { s = "x"; while (length(s) < n) s = s s; print substr(s, 1, n) }'; }
if [ ! -s "$one" ]; then
	awk -v pad="$(pad 10000)" 'BEGIN { for (d = 0; d < 100000; d++)
		printf "{\"query_id\":\"q0\",\"doc_id\":\"%s%d\",\"score\":%d,\"label\":%d}\n", pad, d, d, d % 2 }' | zstd -q -3 -o "$one"
fi
if [ ! -s "$shuf" ]; then
	awk -v pad="$(pad 10000)" 'BEGIN { for (i = 0; i < 100000; i++)
		printf "{\"query_id\":\"q%d\",\"doc_id\":\"%s%d\",\"score\":%d,\"label\":%d}\n", i % 2, pad, i, i, i % 2 }' | zstd -q -3 -o "$shuf"
fi
if [ ! -s "$sliced" ]; then
	awk -v pad="$(pad 100000)" 'BEGIN { for (q = 0; q < 3000; q++)
		printf "{\"query_id\":\"q%04d\",\"doc_id\":\"d\",\"score\":1,\"label\":1,\"m\":\"%s%04d\"}\n", q, pad, q }' | zstd -q -3 -o "$sliced"
fi
bin=${RANKEVAL:-}
if [ -z "$bin" ]; then
	bin=$dir/rankeval
	go build -o "$bin" ./cmd/rankeval
fi
echo "binary $bin; logs: $(du -h "$one" | cut -f1) one query, $(du -h "$shuf" | cut -f1) two shuffled, $(du -h "$sliced" | cut -f1) slices"
run() { # label, args...
	local label=$1 code=0
	shift
	/usr/bin/time -f "%e %M" -o "$dir/t" "$bin" --quiet --format json "$@" >/dev/null 2>"$dir/err" || code=$?
	read -r s k < <(tail -n 1 "$dir/t")
	printf '| %-44s | %4d | %7.1f s | %6d MB | %s\n' "$label" "$code" "$s" $((k / 1024)) "$(head -c 160 "$dir/err" | head -n 1)"
}
printf '| %-44s | exit | %9s | %9s | stderr\n' run time "peak RSS"
run "one query, sorted" "$one"
run "one query, --unsorted --mem-limit 16MiB" --unsorted --mem-limit 16MiB --tmp-dir "$dir/spill" "$one"
run "two queries shuffled, --unsorted --mem-limit 16MiB" --unsorted --mem-limit 16MiB --tmp-dir "$dir/spill" "$shuf"
run "3,000 slices of 100 KB, sorted" --by m "$sliced"
run "3,000 slices of 100 KB, --unsorted 16MiB" --by m --unsorted --mem-limit 16MiB --tmp-dir "$dir/spill" "$sliced"
left=$(ls -A "$dir/spill" | wc -l)
echo "files left in --tmp-dir: $left"
