#!/bin/sh
# build-budget.sh [TREE...]: what a first build costs a new user, for each
# source tree given (default: this one), measured with empty module and
# build caches: the time and peak memory of `go build ./cmd/rankeval`, the
# module and build caches it leaves, and the binary's size (MiB), plain and
# stripped (-s -w -trimpath). Compare trees in one run: the machine drifts.
set -eu
[ $# -gt 0 ] || set -- "$(cd "$(dirname "$0")/.." && pwd)"
printf '%-28s %9s %9s %9s %9s %9s %9s\n' tree build_s peak_MB mod_MB cache_MB bin_MB strip_MB
for tree in "$@"; do
	tmp=$(mktemp -d)
	(
		cd "$tree"
		export GOMODCACHE="$tmp/mod" GOCACHE="$tmp/build" GOFLAGS=-modcacherw
		/usr/bin/time -f '%e %M' -o "$tmp/time" go build -o "$tmp/rankeval" ./cmd/rankeval
		read -r secs kb < "$tmp/time"
		mb() { echo $(( $(du -sk "$1" | cut -f1) / 1024 )); }
		mod=$(mb "$tmp/mod") cache=$(mb "$tmp/build")
		go build -trimpath -ldflags='-s -w' -o "$tmp/stripped" ./cmd/rankeval
		printf '%-28s %9s %9s %9s %9s %9.1f %9.1f\n' "$(basename "$tree")@$(git rev-parse --short HEAD)" \
			"$secs" $((kb / 1024)) "$mod" "$cache" \
			"$(awk "BEGIN{print $(stat -c %s "$tmp/rankeval") / 1048576}")" \
			"$(awk "BEGIN{print $(stat -c %s "$tmp/stripped") / 1048576}")"
	)
	chmod -R u+w "$tmp" && rm -rf "$tmp"
done
