#!/usr/bin/env bash
# Issue-25 figures: what the click metrics and the IPS estimates add to a
# run of the default metrics on a click-shaped log (scripts/genclicks,
# the log of scripts/clickbench.sh): the default metrics alone; with the
# click metrics (clicks@10, ctr@10, abandon, first_click, last_click);
# and with the IPS estimates too (ips_dcg@10, snips_dcg@10, whose
# propensities come from --position-bias pow:1 at the logged position,
# a column more to read). Runs are interleaved (A B C A B C ...) so that
# drift on a shared machine hits each alike; the table gives each one's
# median wall and CPU time (user + system) and the medians over
# repetitions of its ratios to the default run of the same repetition.
#
#   scripts/bench-clicks.sh [ROWS] [REPS]   (default 5000000 7; CLICKBENCH_DIR=/tmp/rankeval-clickbench,
#   FILE=plain|zst the copy of the log read, default zst; GOMAXPROCS as set)
set -euo pipefail
rows=${1:-5000000}
reps=${2:-7}
dir=${CLICKBENCH_DIR:-/tmp/rankeval-clickbench}
cd "$(dirname "$0")/.."
# shellcheck source=clicklog.sh
. scripts/clicklog.sh
in=$log.zst
[ "${FILE:-zst}" = plain ] && in=$log
go build -o "$dir/rankeval" ./cmd/rankeval
defaults=map,mrr,ndcg@10,err@10,p@10,r@10
names=(default clicks ips)
declare -A args=(
	[default]="-m $defaults"
	[clicks]="-m $defaults,clicks@10,ctr@10,abandon,first_click,last_click"
	[ips]="-m $defaults,clicks@10,ctr@10,abandon,first_click,last_click,ips_dcg@10,snips_dcg@10 --position-col position --position-bias pow:1"
)
declare -A wall=() cpu=() ratio=() cratio=()
for ((r = 0; r < reps; r++)); do
	for n in "${names[@]}"; do
		# shellcheck disable=SC2086 # the arguments are word lists
		/usr/bin/time -f "%e %U %S" -o "$dir/t" "$dir/rankeval" --quiet --format json ${args[$n]} "$in" >"$dir/$n.json"
		read -r s u y <"$dir/t"
		c=$(awk -v u="$u" -v y="$y" 'BEGIN{print u + y}')
		wall[$n]+="$s "
		cpu[$n]+="$c "
		base=$(echo ${wall[default]} | awk '{print $NF}')
		cbase=$(echo ${cpu[default]} | awk '{print $NF}')
		ratio[$n]+="$(awk -v a="$s" -v b="$base" 'BEGIN{print a / b}') "
		cratio[$n]+="$(awk -v a="$c" -v b="$cbase" 'BEGIN{print a / b}') "
	done
done
# the default metrics print the same whatever else is asked
for n in clicks ips; do
	for m in map mrr ndcg@10 err@10 p@10 r@10; do
		a=$(grep "\"$m\"" "$dir/default.json" | sed "s/,$//")
		b=$(grep "\"$m\"" "$dir/$n.json" | sed "s/,$//")
		[ "$a" = "$b" ] || { echo "$n: $m differs from the default run's" >&2; exit 1; }
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "log: $in ($rows rows), $reps interleaved repetitions, GOMAXPROCS=${GOMAXPROCS:-$(nproc)}"
printf '| %-8s | %9s | %9s | %15s | %14s |\n' run "wall" "CPU" "wall / default" "CPU / default"
printf '|%s|%s|%s|%s|%s|\n' ---------- ----------- ----------- ----------------- ----------------
for n in "${names[@]}"; do
	printf '| %-8s | %7.2f s | %7.2f s | %14.3f× | %13.3f× |\n' "$n" "$(echo ${wall[$n]} | median)" "$(echo ${cpu[$n]} | median)" \
		"$(echo ${ratio[$n]} | median)" "$(echo ${cratio[$n]} | median)"
done
for n in "${names[@]}"; do echo "$n: ${args[$n]}"; done
echo "wall ratios per repetition: clicks ${ratio[clicks]}; ips ${ratio[ips]}"
echo "CPU ratios per repetition: clicks ${cratio[clicks]}; ips ${cratio[ips]}"
