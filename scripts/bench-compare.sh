#!/usr/bin/env bash
# Issue-24 figures: four systems compared on a 10M-row Parquet log, the
# plain run (t-test) against --bootstrap B, --permutations B (the
# randomization test) and --test tukey --permutations B: wall time (median
# of REPS, runs interleaved so drift hits each alike) and peak RSS, at the
# default GOMAXPROCS and at 1.
#
#   scripts/bench-compare.sh [ROWS] [B] [REPS]   (default 10000000 1000 3; BENCH_DIR=/tmp/rankeval-bench,
#   PROCS="default 1" the GOMAXPROCS settings to run)
set -euo pipefail
rows=${1:-10000000}
B=${2:-1000}
reps=${3:-3}
dir=${BENCH_DIR:-/tmp/rankeval-bench}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
log=$dir/cmp4.$rows.parquet
[ -s "$log" ] || go run ./scripts/gen -rows "$rows" -docs 20 -systems 4 -seed 1 -o "$log"
go build -o "$dir/rankeval" ./cmd/rankeval
base=(--quiet --format json --score-col score,score_b,score_c,score_d)
declare -A args=(
	[plain]=""
	[bootstrap]="--bootstrap $B"
	[randomization]="--permutations $B"
	[tukey]="--test tukey --permutations $B"
	[randomization-all-pairs]="--pairs all --permutations $B"
)
order=(plain bootstrap randomization tukey randomization-all-pairs)
for p in ${PROCS:-default 1}; do
	procs=$p
	[ "$p" = default ] && procs=""
	declare -A times=() peak=()
	for ((r = 0; r < reps; r++)); do
		for name in "${order[@]}"; do
			# shellcheck disable=SC2086
			GOMAXPROCS=${procs:-} /usr/bin/time -f "%e %M" -o "$dir/t" "$dir/rankeval" "${base[@]}" ${args[$name]} "$log" >"$dir/$name.out.json"
			# every repetition and GOMAXPROCS must print the same summary
			if [ -s "$dir/$name.json" ] && [ $r -gt 0 -o -n "$procs" ]; then
				cmp -s "$dir/$name.json" "$dir/$name.out.json" || { echo "$name: the summary differs between runs" >&2; exit 1; }
			fi
			mv "$dir/$name.out.json" "$dir/$name.json"
			read -r s k <"$dir/t"
			times[$name]+="$s "
			peak[$name]=$(( (k / 1024) > ${peak[$name]:-0} ? k / 1024 : ${peak[$name]:-0} ))
		done
	done
	echo "GOMAXPROCS=${procs:-default ($(nproc))}, $rows rows, B=$B, median of $reps:"
	for name in "${order[@]}"; do
		med=$(tr ' ' '\n' <<<"${times[$name]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		printf '  %-26s %7.2f s  %6d MB peak RSS\n' "$name" "$med" "${peak[$name]}"
	done
	unset times peak
done
