# syntax=docker/dockerfile:1
# `webimage serve` in a container: built on the Swift image, run on slim Debian with only the runtime libraries,
# as a user without privileges. Settings come from the environment as imgproxy's do (IMGPROXY_KEY, IMGPROXY_SALT,
# IMGPROXY_QUALITY, … and WEBIMAGE_*); see README's `webimage serve`.
#
#   docker build -t webimage .
#   docker run -p 8080:8080 -e IMGPROXY_KEY=… -e IMGPROXY_SALT=… webimage
#
# scripts/rootfs-check runs this file's runtime stage without a container engine (debootstrap and chroot).

ARG SWIFT_IMAGE=swift:6.3.1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
WORKDIR /src
# The -dev packages of the image libraries (and the tools the tests use, which the build stage does not keep).
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps
COPY . .
# The Swift runtime and Foundation are linked in, so that the runtime stage needs no Swift toolchain libraries.
RUN --mount=type=cache,target=/src/.build \
    swift build -c release --static-swift-stdlib --product webimage \
 && install -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/webimage" /webimage

FROM ${RUNTIME_IMAGE}
ARG WEBIMAGE_UID=10001
COPY deploy/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update \
 && apt-get install -y --no-install-recommends $(sed 's/#.*//' /tmp/runtime-packages.txt) \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
 && groupadd --gid "$WEBIMAGE_UID" webimage \
 && useradd --uid "$WEBIMAGE_UID" --gid webimage --home-dir /nonexistent --no-create-home \
        --shell /usr/sbin/nologin webimage \
 && install -d -o webimage -g webimage -m 0750 /var/cache/webimage
# Decode helpers are this same executable started again (`webimage _decode-helper`): nothing else to copy.
COPY --from=build /webimage /usr/local/bin/webimage
# Numeric, so that an orchestrator can tell the user is not root without reading /etc/passwd.
USER ${WEBIMAGE_UID}:${WEBIMAGE_UID}
# imgproxy's image listens on every address at 8080; `webimage serve` alone defaults to 127.0.0.1:8080.
ENV IMGPROXY_BIND=:8080
ENV WEBIMAGE_CACHE_DIR=/var/cache/webimage
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["webimage", "health"]
ENTRYPOINT ["webimage"]
CMD ["serve"]
