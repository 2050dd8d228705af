#!/usr/bin/env bash
# Builds helm and kustomize, which test/deploy uses to render and lint the
# chart and the kustomize overlays, and kubectl, with which it runs the
# commands of docs/install.md, from the modules pinned in
# test/tools/deploy/{helm,kustomize,kubectl}, into a cache outside the
# repository (see ../lib.sh for the directory, its key and the output):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/deploy-<key>/
#
# Three modules, not one: helm v3.22 is built on k8s.io/* v0.37, kubectl
# v1.36 on v0.36, and kustomize v5.7 on older kube-openapi and kyaml; in one
# module minimal version selection would build each against versions its
# authors never tested. kubectl has no main package outside
# k8s.io/kubernetes, so test/tools/deploy/kubectl holds the few lines of one.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL=deploy/build.sh
# shellcheck source=../lib.sh
source "$TOOLS_DIR/../lib.sh"

HELM_VERSION="$(modversion helm helm.sh/helm/v3)"
# helm's own release build stamps the Kubernetes version its client-go
# speaks: `helm template` offers it as .Capabilities.KubeVersion and `helm
# lint` checks deprecated APIs against it. Unstamped, both say v1.20.
KUBE_MINOR="$(modversion helm k8s.io/client-go | cut -d. -f2)"
HELM_LDFLAGS="-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.metadata="
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
	HELM_LDFLAGS+=" -X ${pkg}.k8sVersionMajor=1 -X ${pkg}.k8sVersionMinor=${KUBE_MINOR}"
done

# Unstamped, `kubectl version` says v0.0.0-master.
KUBECTL_VERSION="v$(modversion kubectl k8s.io/kubectl | sed 's/^v0\./1./')"
KUBECTL_LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	KUBECTL_LDFLAGS+=" -X ${pkg}.gitVersion=${KUBECTL_VERSION} -X ${pkg}.gitTreeState=clean"
done

# name|module dir|package|ldflags
BINARIES=(
	"helm|helm|helm.sh/helm/v3/cmd/helm|${HELM_LDFLAGS}"
	"kustomize|kustomize|sigs.k8s.io/kustomize/kustomize/v5|-s -w"
	"kubectl|kubectl|github.com/kube-rebalancer/rebalancer/test/tools/deploy/kubectl|${KUBECTL_LDFLAGS}"
)

build_binaries deploy-
