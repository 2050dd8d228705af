#!/usr/bin/env bash
# Builds golangci-lint, which `make lint` runs, from the module pinned in
# test/tools/lint, into the cache the other test tools use:
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/lint-<key>/
#
# <key> hashes the pinned go.mod/go.sum, this recipe and the Go version: the
# linter type-checks the code with the Go it was built with, so a newer Go
# needs a rebuild, and a bumped pin builds into a fresh directory. A binary
# already present is not rebuilt. Progress goes to stderr; the only line on
# stdout is the bin directory: "$(test/tools/lint/build.sh)".
#
# Its own module, not a tool line in the repository's go.mod: golangci-lint
# brings hundreds of dependencies that must neither raise the versions the
# product builds with nor be raised by them.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { printf '[lint/build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "go not found in PATH"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found in PATH"
command -v flock >/dev/null 2>&1 || die "flock not found in PATH (util-linux)"

# A go.work above the repository must not change the pinned versions.
export GOWORK=off
export CGO_ENABLED=0

PKG=github.com/golangci/golangci-lint/v2/cmd/golangci-lint
VERSION="$(go -C "$TOOLS_DIR" list -mod=readonly -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2)"
# Built as a dependency, the binary does not know its version: `golangci-lint
# version` would say "(devel)". A non-empty date makes it keep the stamp.
LDFLAGS="-s -w -X main.version=${VERSION#v} -X main.commit=${VERSION} -X main.date=pinned"

recipe="$PKG|$LDFLAGS|CGO_ENABLED=0 -trimpath"
key="$(
	{
		echo "$recipe"
		go env GOVERSION GOOS GOARCH
		cat "$TOOLS_DIR/go.mod" "$TOOLS_DIR/go.sum"
	} | sha256sum | cut -c1-16
)"

CACHE_ROOT="${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}"
BIN_DIR="$CACHE_ROOT/lint-$key"
mkdir -p "$BIN_DIR"

# Two runs at once must not both build into the same directory; the later
# one waits for the first.
exec 9>"$BIN_DIR/.lock"
if ! flock -n 9; then
	log "another build into $BIN_DIR is running; waiting for it"
	flock 9
fi

out="$BIN_DIR/golangci-lint"
if [[ -x "$out" ]]; then
	log "golangci-lint: up to date"
else
	log "golangci-lint: building $PKG $VERSION (module test/tools/lint); a cold build takes minutes"
	start=$SECONDS
	# A temporary name, so that an interrupted build never leaves a truncated
	# binary that a later run would take as done.
	tmp="$out.tmp.$$"
	if ! go -C "$TOOLS_DIR" build -mod=readonly -trimpath -ldflags "$LDFLAGS" -o "$tmp" "$PKG"; then
		rm -f "$tmp"
		die "golangci-lint: go build $PKG failed"
	fi
	mv -f "$tmp" "$out"
	log "golangci-lint: built in $((SECONDS - start))s"
fi
echo "$BIN_DIR"
