# syntax=docker/dockerfile:1
# The rebalancer image: a static binary on distroless, run as non-root.
#
#   docker build --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse --short HEAD) -t rebalancer:v0.1.0 .
#
# The go build line is the Makefile's `build` target, flag for flag; a test in
# test/deploy keeps the two in step and runs this line.

# The Go release of go.mod's go directive.
FROM golang:1.26 AS build
WORKDIR /src
# Modules first: the download layer stays cached while only sources change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/rebalancer ./cmd/rebalancer

# No shell, no package manager, no libc: CGO_ENABLED=0 makes that enough.
FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/rebalancer /rebalancer
# The distroless "nonroot" user, numeric so that the kubelet can verify
# runAsNonRoot without reading /etc/passwd.
USER 65532:65532
ENTRYPOINT ["/rebalancer"]
