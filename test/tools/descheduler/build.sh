#!/usr/bin/env bash
# Builds the descheduler, which `make bench-vs-descheduler` runs beside
# rebalancer against the harness's control plane, from the module pinned in
# test/tools/descheduler, into the cache the other test tools use (see
# ../lib.sh for the directory, its key and the output):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/descheduler-<key>/
#
# Its own module: the descheduler pins its own k8s.io/* versions, which must
# neither raise those the product or the control plane build with nor be
# raised by them. Only the benchmark builds it; a cold build takes minutes.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=descheduler/build.sh
# shellcheck source=../lib.sh
source "$TOOLS_DIR/../lib.sh"

VERSION="$(modversion . sigs.k8s.io/descheduler)"

# name|module dir|package|ldflags
BINARIES=(
	"descheduler|.|sigs.k8s.io/descheduler/cmd/descheduler|-s -w -X sigs.k8s.io/descheduler/pkg/version.version=${VERSION}"
)

build_binaries descheduler-
