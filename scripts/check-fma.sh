#!/usr/bin/env bash
# check-fma.sh: fails when the numbers could differ between machines.
#
# 1. Fused multiply-adds. Go may fuse x*y + z into one instruction (one
#    rounding, not two) on arm64 and under GOAMD64=v3, even across
#    statements, unless float64(x*y) rounds the product. This compiles every
#    package of the module and of dist/beam for linux/arm64 and for amd64 v3
#    with -S and counts the fused instructions; one is allowed only on a
#    source line that calls math.FMA, which rounds once on every machine.
# 2. Elementary functions. math.Log, Exp, Pow and their kin are assembly on
#    some architectures and pure (fusable) Go on others: the project calls
#    internal/pmath's instead, everywhere but in pmath itself and in tests.
#
# Usage: scripts/check-fma.sh [-v]   (-v lists every fused instruction)
# Prints a table of fused instructions per package and target; exit 1 when
# any is unintended or a banned call is found.
set -euo pipefail
cd "$(dirname "$0")/.."
verbose=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail=0
banned='(^|[^[:alnum:]_.])math\.(Log|Log2|Log10|Log1p|Exp|Exp2|Expm1|Pow|Pow10|Lgamma|Gamma|Erf|Erfc|Erfinv|Erfcinv|Sin|Cos|Tan|Sincos|Asin|Acos|Atan|Atan2|Sinh|Cosh|Tanh|Asinh|Acosh|Atanh|Cbrt|Hypot|J0|J1|Jn|Y0|Y1|Yn)\('
if calls=$(git ls-files '*.go' | grep -v '_test\.go$' | grep -v '^internal/pmath/' | xargs grep -nE "$banned"); then
	echo "calls to the standard library's machine-dependent functions (use internal/pmath):"
	echo "$calls"
	fail=1
fi

# fused TARGET DIR: the -S listing's fused instructions of DIR's module, as
# "file:line<TAB>instruction" lines.
fused() {
	local target=$1 dir=$2
	(cd "$dir" && env CGO_ENABLED=0 $target go build -gcflags=-S ./... 2>&1 >/dev/null) |
		awk '$0 ~ /\t(VFN?M(ADD|SUB)(132|213|231)?[SP][DS]|FN?M(ADD|SUB)[DS])\t/ {
			if (match($0, /\([^)]*:[0-9]+\)/)) { print substr($0, RSTART+1, RLENGTH-2) "\t" $0 } }'
}

printf '%-34s %10s %10s\n' package arm64 amd64.v3
for target in "GOARCH=arm64" "GOARCH=amd64 GOAMD64=v3"; do
	name=$(echo "$target" | sed 's/.*GOARCH=arm64.*/arm64/; s/.*GOAMD64=v3.*/v3/')
	{ fused "$target" . ; fused "$target" dist/beam; } | sort -u > "$tmp/$name.all"
	: > "$tmp/$name.bad"
	while IFS=$'\t' read -r pos line; do
		file=${pos%:*} n=${pos##*:}
		if sed -n "${n}p" "$file" | grep -q 'math\.FMA('; then
			echo "$pos" >> "$tmp/$name.ok"
		else
			printf '%s\t%s\n' "$pos" "$line" >> "$tmp/$name.bad"
		fi
	done < "$tmp/$name.all"
	touch "$tmp/$name.ok"
done
root=$(pwd)/
for pkg in $(cat "$tmp"/*.all | cut -f1 | sed "s|^$root||; s|/[^/]*:[0-9]*$||" | sort -u); do
	count() { grep -c "^$root$pkg/[^/]*:" "$1" || true; }
	printf '%-34s %4s (+%s) %4s (+%s)\n' "$pkg" "$(count "$tmp/arm64.bad")" "$(count "$tmp/arm64.ok")" \
		"$(count "$tmp/v3.bad")" "$(count "$tmp/v3.ok")"
done
echo "(+N: fused on purpose, by math.FMA)"
for name in arm64 v3; do
	if [ -s "$tmp/$name.bad" ]; then
		fail=1
		echo "$name: $(wc -l < "$tmp/$name.bad") fused instructions not asked for by math.FMA; round the product with float64(x*y):"
		if [ -n "$verbose" ]; then cat "$tmp/$name.bad"; else cut -f1 "$tmp/$name.bad" | sed "s|^$root||" | sort -t: -k1,1 -k2,2n | uniq | head -40; fi
	fi
done
[ "$fail" = 0 ] && echo "no unintended fused instruction, no machine-dependent call"
exit "$fail"
