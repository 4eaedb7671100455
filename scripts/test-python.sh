#!/usr/bin/env bash
# test-python.sh: the Python package as a user gets it. Installs the linux
# x86_64 wheel of OUTDIR (scripts/release OUTDIR linux/amd64 writes it) with
# pip into a fresh venv without the network (--no-index; Debian's python3
# with --system-site-packages for pandas), times the install, and runs
# python/tests with unittest from outside the checkout, so that the package
# imported is the installed one.
#
# Usage: scripts/test-python.sh OUTDIR   (PYTHON: the interpreter, default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
[ $# = 1 ] || { echo "usage: scripts/test-python.sh OUTDIR" >&2; exit 2; }
wheel=$(ls "$1"/rankeval-*-py3-none-manylinux_2_17_x86_64.*.whl)
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
start=$(date +%s.%N)
"$work/venv/bin/pip" install --no-index --disable-pip-version-check -q "$wheel"
printf 'wheel installed offline in %.1f s: %s (%s bytes)\n' "$(echo "$(date +%s.%N) - $start" | bc)" \
	"$(basename "$wheel")" "$(stat -c %s "$wheel")"
cd "$work"
env -u RANKEVAL_BINARY -u RANKEVAL_CONFIG RANKEVAL_REPO="$root" \
	"$work/venv/bin/python" -m unittest discover -s "$root/python/tests" -t "$root/python/tests" -v
