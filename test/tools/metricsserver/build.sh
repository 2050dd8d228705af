#!/usr/bin/env bash
# Builds metrics-server, which the e2e tests of usage-based balancing run
# against the harness's control plane, from the module pinned in
# test/tools/metricsserver, into the cache the other test tools use (see
# ../lib.sh for the directory, its key and the output):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/metrics-server-<key>/
#
# Its own module: metrics-server pins its own k8s.io/* versions, which must
# neither raise those the product or the control plane build with nor be
# raised by them. Only the tests that need it build it (harness.EnsureMetricsServer).
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=metricsserver/build.sh
# shellcheck source=../lib.sh
source "$TOOLS_DIR/../lib.sh"

VERSION="$(modversion . sigs.k8s.io/metrics-server)"

# name|module dir|package|ldflags
BINARIES=(
	"metrics-server|.|sigs.k8s.io/metrics-server/cmd/metrics-server|-s -w -X k8s.io/client-go/pkg/version.gitVersion=${VERSION}"
)

build_binaries metrics-server-
