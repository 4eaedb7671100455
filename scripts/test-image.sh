#!/usr/bin/env bash
# test-image.sh: the Dockerfile's image, built with podman from a release
# directory OUTDIR (scripts/release OUTDIR linux/amd64) and run.
#
# The base is built here from scratch with what distroless static holds
# that rankeval uses (the host's CA certificates, a passwd naming the user
# 65532, a /tmp anyone may write), so that no registry is needed. The image
# runs as 65532, holds the CA bundle, and prints what the binary prints on
# the sample log from standard input, --unsorted (spilling to /tmp) too,
# and exits 3 on a failed gate.
#
# Usage: scripts/test-image.sh OUTDIR
# PODMAN (default "podman --runtime runc") and PODMAN_RUN (default "--ulimit
# nofile=1024:1024 --ulimit nproc=1024:1024") suit a machine whose
# containers may not raise limits nor use crun's cgroups (this project's).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 1 ] || { echo "usage: scripts/test-image.sh OUTDIR" >&2; exit 2; }
out=$(cd "$1" && pwd)
read -r -a podman <<< "${PODMAN:-podman --runtime runc}"
read -r -a run <<< "${PODMAN_RUN:---ulimit nofile=1024:1024 --ulimit nproc=1024:1024}"
work=$(mktemp -d)
tag=localhost/rankeval-test:$$ base=localhost/rankeval-test-base:$$
cleanup() {
	"${podman[@]}" rmi -f "$tag" "$base" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/base/etc/ssl/certs" "$work/base/tmp"
chmod 1777 "$work/base/tmp"
cp /etc/ssl/certs/ca-certificates.crt "$work/base/etc/ssl/certs/"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$work/base/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$work/base/etc/group"
printf 'FROM scratch\nCOPY . /\n' > "$work/base/Dockerfile"
"${podman[@]}" build -q -t "$base" "$work/base" >/dev/null
start=$(date +%s)
"${podman[@]}" build -q --build-arg BASE="$base" --platform linux/amd64 -t "$tag" -f Dockerfile "$out" >/dev/null
echo "image built in $(($(date +%s) - start)) s: $("${podman[@]}" image inspect --format '{{.Size}}' "$tag") bytes"

user=$("${podman[@]}" image inspect --format '{{.Config.User}}' "$tag")
[ "$user" = 65532:65532 ] || { echo "image user: $user, want 65532:65532" >&2; exit 1; }
id=$("${podman[@]}" create "$tag")
"${podman[@]}" cp "$id:/etc/ssl/certs/ca-certificates.crt" "$work/ca.crt"
"${podman[@]}" rm "$id" >/dev/null
cmp "$work/ca.crt" /etc/ssl/certs/ca-certificates.crt

bin=$out/bin/linux_amd64/rankeval
sample=testdata/sample.jsonl.zst
for args in "--format json" "--format json --unsorted -m ndcg@10,map --bootstrap 200" "--fail-under ndcg@10=0.9"; do
	set +e
	# shellcheck disable=SC2086
	"$bin" --quiet $args - < "$sample" > "$work/want" 2>&1
	want=$?
	# shellcheck disable=SC2086
	"${podman[@]}" run --rm -i "${run[@]}" "$tag" --quiet $args - < "$sample" > "$work/got" 2>&1
	got=$?
	set -e
	if [ $got != $want ] || ! cmp -s "$work/want" "$work/got"; then
		echo "image: rankeval $args: exit $got (want $want)" >&2
		diff "$work/want" "$work/got" | head >&2 || true
		exit 1
	fi
	echo "image = binary (exit $got): rankeval $args"
done
