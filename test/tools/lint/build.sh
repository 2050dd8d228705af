#!/usr/bin/env bash
# Builds golangci-lint, which `make lint` runs, from the module pinned in
# test/tools/lint, into the cache the other test tools use (see ../lib.sh for
# the directory, its key and the output):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/lint-<key>/
#
# The key holds the Go version too: the linter type-checks the code with the
# Go it was built with, so a newer Go needs a rebuild.
#
# Its own module, not a tool line in the repository's go.mod: golangci-lint
# brings hundreds of dependencies that must neither raise the versions the
# product builds with nor be raised by them.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=lint/build.sh
# shellcheck source=../lib.sh
source "$TOOLS_DIR/../lib.sh"

VERSION="$(modversion . github.com/golangci/golangci-lint/v2)"
# Built as a dependency, the binary does not know its version: `golangci-lint
# version` would say "(devel)". A non-empty date makes it keep the stamp.
LDFLAGS="-s -w -X main.version=${VERSION#v} -X main.commit=${VERSION} -X main.date=pinned"

# name|module dir|package|ldflags
BINARIES=(
	"golangci-lint|.|github.com/golangci/golangci-lint/v2/cmd/golangci-lint|${LDFLAGS}"
)

build_binaries lint-
