# The rankeval container image: the static linux binary of a release
# (scripts/release) on distroless static, which holds CA certificates (for
# s3://, gs://, az:// and https:// inputs), tzdata, a /tmp (for --unsorted)
# and no shell; it runs as the non-root user 65532. The build context is a
# release directory:
#
#   scripts/release out linux/amd64 linux/arm64
#   docker buildx build --platform linux/amd64,linux/arm64 -t rankeval:VERSION -f Dockerfile out
#   docker run --rm -v "$PWD:/data:ro" rankeval:VERSION /data/log.parquet
#
# BASE may name another image with the same files (scripts/test-image.sh
# builds one from scratch, offline). docs/scheduling.md runs it in Airflow.
ARG BASE=gcr.io/distroless/static-debian12:nonroot
FROM ${BASE}
ARG TARGETARCH
COPY bin/linux_${TARGETARCH}/rankeval /usr/local/bin/rankeval
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/rankeval"]
CMD ["--help"]
