#!/usr/bin/env bash
# The click-shaped log of the click benchmarks (scripts/genclicks, seed 1),
# made once: DIR/clicks.ROWS.jsonl and its zstd copy. clickbench.sh and
# bench-clicks.sh source it, after setting rows and dir; it sets log.
mkdir -p "$dir"
log=$dir/clicks.$rows.jsonl
if [ ! -s "$log" ]; then
	go run ./scripts/genclicks -rows "$rows" -seed 1 >"$log.tmp"
	mv "$log.tmp" "$log"
fi
[ -s "$log.zst" ] || zstd -q -3 -f "$log" -o "$log.zst"
