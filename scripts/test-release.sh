#!/usr/bin/env bash
# test-release.sh: the release artifacts of OUTDIR (scripts/release OUTDIR,
# which builds linux/amd64 and linux/arm64 at least) as users run them.
#
# The linux arm64 binaries run under qemu-user's qemu-aarch64 and their
# outputs (stdout, stderr, exit code) on the sample log and a TREC run equal
# the amd64 binaries' byte for byte; each archive holds the binary built;
# then the linux x86_64 wheel goes through scripts/test-python.sh.
#
# Usage: scripts/test-release.sh OUTDIR   (needs qemu-aarch64, python3-venv, python3-pandas, zstd)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 1 ] || { echo "usage: scripts/test-release.sh OUTDIR" >&2; exit 2; }
out=$1
amd=$out/bin/linux_amd64 arm=$out/bin/linux_arm64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

qt=testdata/trec_eval/quicktest
cases=(
	"--version"
	"--quiet testdata/sample.jsonl.zst"
	"--quiet --format json -m ndcg@10,map,err@10,kendall,p@5 --ties average --bootstrap 300 --per-query - testdata/sample.jsonl.zst"
	"--quiet --format json -m ndcg@10,map --score-col score,score_b --by market --bootstrap 200 --test randomization testdata/compare.jsonl.zst"
	"trec_eval -q -m all_trec $qt/qrels.test.zst $qt/results.test.zst"
	"--quiet --fail-under ndcg@10=0.9 testdata/sample.jsonl.zst"
)
failed=0
for args in "${cases[@]}"; do
	for b in amd64 arm64; do
		run=("$amd/rankeval")
		[ $b = arm64 ] && run=(qemu-aarch64 "$arm/rankeval")
		set +e
		# shellcheck disable=SC2086
		"${run[@]}" $args > "$work/$b.out" 2> "$work/$b.err"
		echo "exit $?" >> "$work/$b.err"
		set -e
	done
	if cmp -s "$work/amd64.out" "$work/arm64.out" && cmp -s "$work/amd64.err" "$work/arm64.err"; then
		printf 'arm64 = amd64 (%6d bytes, %s): rankeval %s\n' "$(wc -c < "$work/amd64.out")" "$(tail -1 "$work/amd64.err")" "$args"
	else
		echo "arm64 differs from amd64: rankeval $args" >&2
		diff "$work/amd64.out" "$work/arm64.out" | head -10 >&2 || true
		failed=1
	fi
done
# rankeval-beam starts on both (its help: running a pipeline under qemu
# is left to dist/beam's tests).
if [ -x "$arm/rankeval-beam" ]; then
	"$amd/rankeval-beam" -h > "$work/beam-amd64" 2>&1 || true
	qemu-aarch64 "$arm/rankeval-beam" -h > "$work/beam-arm64" 2>&1 || true
	if grep -q '^Usage: rankeval-beam' "$work/beam-amd64" && cmp -s "$work/beam-amd64" "$work/beam-arm64"; then
		echo "arm64 = amd64: rankeval-beam -h"
	else
		echo "rankeval-beam -h differs on arm64 or fails" >&2
		failed=1
	fi
fi

# The release reads az:// (it is built with -tags azure): an Azure URL
# without credentials fails for want of an account, not of support.
set +e
AZURE_STORAGE_CONNECTION_STRING= AZURE_STORAGE_ACCOUNT= "$amd/rankeval" az://lake/log.jsonl > /dev/null 2> "$work/az.err"
set -e
if grep -q 'built without Azure' "$work/az.err" || ! grep -q 'AZURE_STORAGE_ACCOUNT' "$work/az.err"; then
	echo "the release binary does not read az://: $(cat "$work/az.err")" >&2
	failed=1
else
	echo "the release binary reads az:// (no account here: $(head -c 100 "$work/az.err"))"
fi

# Each archive holds the binary of bin/ and the README.
shopt -s nullglob
for a in "$out"/rankeval_*.tar.gz "$out"/rankeval_*.zip; do
	plat=$(basename "$a" | sed -E 's/^rankeval_[^_]+_([a-z]+)_([a-z0-9]+)\.(tar\.gz|zip)$/\1_\2/')
	exe=rankeval
	case $plat in windows_*) exe=rankeval.exe ;; esac
	mkdir -p "$work/x/$plat"
	case $a in
	*.zip) python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$a" "$work/x/$plat" ;;
	*) tar -xzf "$a" -C "$work/x/$plat" ;;
	esac
	cmp "$work/x/$plat"/*/"$exe" "$out/bin/$plat/$exe" && cmp "$work/x/$plat"/*/README.md README.md ||
		{ echo "$a does not hold bin/$plat/$exe" >&2; failed=1; }
done
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || failed=1
[ $failed = 0 ] || exit 1

scripts/test-python.sh "$out"
