#!/usr/bin/env bash
# Builds the control-plane binaries that test/harness runs (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kwok) from the
# modules pinned in test/tools/{etcd,kube,kwok}, into a cache outside the
# repository (see lib.sh for the directory, its key and the output):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/<key>/
#
# The tools live in three modules because kwok v0.7 is written against
# k8s.io/* v0.33 and etcd v3.5 clients, while kubernetes v1.36 needs v0.36 and
# etcd 3.6: in one module MVS would build every binary against dependency
# versions its authors never tested.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=build.sh
# shellcheck source=lib.sh
source "$TOOLS_DIR/lib.sh"

KUBE_VERSION=v1.36.3
# Without these the binaries report v0.0.0-master; clients such as kwok read
# the server version, and a real version keeps logs and /version meaningful.
KUBE_LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	KUBE_LDFLAGS+=" -X ${pkg}.gitVersion=${KUBE_VERSION}"
	KUBE_LDFLAGS+=" -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=36"
	KUBE_LDFLAGS+=" -X ${pkg}.gitTreeState=clean"
done

# name|module dir|package|ldflags
BINARIES=(
	"etcd|etcd|go.etcd.io/etcd/server/v3|-s -w"
	"kube-apiserver|kube|k8s.io/kubernetes/cmd/kube-apiserver|${KUBE_LDFLAGS}"
	"kube-controller-manager|kube|k8s.io/kubernetes/cmd/kube-controller-manager|${KUBE_LDFLAGS}"
	"kube-scheduler|kube|k8s.io/kubernetes/cmd/kube-scheduler|${KUBE_LDFLAGS}"
	"kwok|kwok|sigs.k8s.io/kwok/cmd/kwok|-s -w"
)

build_binaries ""
