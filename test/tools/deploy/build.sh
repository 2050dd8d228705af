#!/usr/bin/env bash
# Builds helm and kustomize, which test/deploy uses to render and lint the
# chart and the kustomize overlays, and kubectl, with which it runs the
# commands of docs/install.md, from the modules pinned in
# test/tools/deploy/{helm,kustomize,kubectl}, into a cache outside the
# repository:
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/deploy-<key>/
#
# <key> hashes the pinned go.mod/go.sum files, this recipe and the Go version,
# so a bumped pin builds into a fresh directory and a directory is never half
# updated. Binaries already present are not rebuilt. Progress goes to stderr;
# the only line on stdout is the bin directory: "$(test/tools/deploy/build.sh)".
#
# Three modules, not one: helm v3.22 is built on k8s.io/* v0.37, kubectl
# v1.36 on v0.36, and kustomize v5.7 on older kube-openapi and kyaml; in one
# module minimal version selection would build each against versions its
# authors never tested. kubectl has no main package outside
# k8s.io/kubernetes, so test/tools/deploy/kubectl holds the few lines of one.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { printf '[deploy/build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "go not found in PATH"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found in PATH"
command -v flock >/dev/null 2>&1 || die "flock not found in PATH"

# A go.work above the repository must not change the pinned versions.
export GOWORK=off
export CGO_ENABLED=0

modversion() { go -C "$TOOLS_DIR/$1" list -mod=readonly -m -f '{{.Version}}' "$2"; }

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

recipe="$(printf '%s\n' "${BINARIES[@]}"; echo "CGO_ENABLED=0 -trimpath")"
key="$(
	{
		echo "$recipe"
		go env GOVERSION GOOS GOARCH
		for mod in helm kustomize kubectl; do
			cat "$TOOLS_DIR/$mod/go.mod" "$TOOLS_DIR/$mod/go.sum"
		done
	} | sha256sum | cut -c1-16
)"

CACHE_ROOT="${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}"
BIN_DIR="$CACHE_ROOT/deploy-$key"
mkdir -p "$BIN_DIR"

# Two test runs at once (two developers' terminals, or a retry) must not
# both build into the same directory; the later one waits for the first.
exec 9>"$BIN_DIR/.lock"
if ! flock -n 9; then
	log "another build into $BIN_DIR is running; waiting for it"
	flock 9
fi

total_start=$SECONDS
built=0
for entry in "${BINARIES[@]}"; do
	IFS='|' read -r name mod pkg ldflags <<<"$entry"
	out="$BIN_DIR/$name"
	if [[ -x "$out" ]]; then
		log "$name: up to date"
		continue
	fi
	log "$name: building $pkg (module test/tools/deploy/$mod); a cold build takes minutes"
	start=$SECONDS
	# A temporary name, so that an interrupted build never leaves a
	# truncated binary that a later run would take as done.
	tmp="$out.tmp.$$"
	if ! go -C "$TOOLS_DIR/$mod" build -mod=readonly -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg"; then
		rm -f "$tmp"
		die "$name: go build $pkg failed"
	fi
	mv -f "$tmp" "$out"
	built=$((built + 1))
	log "$name: built in $((SECONDS - start))s"
done

log "built $built binaries in $((SECONDS - total_start))s; bin directory:"
echo "$BIN_DIR"
