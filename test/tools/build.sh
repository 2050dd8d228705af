#!/usr/bin/env bash
# Builds the control-plane binaries that test/harness runs (etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kwok) from the
# modules pinned in test/tools/{etcd,kube,kwok}, into a cache outside the
# repository:
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/<key>/
#
# <key> is a hash of the pinned go.mod/go.sum files, the build recipe below and
# the Go version, so bumping any pin builds into a fresh directory and an old
# directory is never half-updated. Binaries already present are not rebuilt.
# Progress goes to stderr; the only line on stdout is the bin directory, so
# callers can use "$(test/tools/build.sh)".
#
# The tools live in three modules because kwok v0.7 is written against
# k8s.io/* v0.33 and etcd v3.5 clients, while kubernetes v1.36 needs v0.36 and
# etcd 3.6: in one module MVS would build every binary against dependency
# versions its authors never tested.
set -euo pipefail

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { printf '[build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "go not found in PATH"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found in PATH"
command -v flock >/dev/null 2>&1 || die "flock not found in PATH (util-linux)"

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

# Everything that changes the produced binaries goes into the key.
recipe="$(printf '%s\n' "${BINARIES[@]}"; echo "CGO_ENABLED=0 -trimpath")"
key="$(
	{
		echo "$recipe"
		go env GOVERSION GOOS GOARCH
		for mod in etcd kube kwok; do
			cat "$TOOLS_DIR/$mod/go.mod" "$TOOLS_DIR/$mod/go.sum"
		done
	} | sha256sum | cut -c1-16
)"

CACHE_ROOT="${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}"
BIN_DIR="$CACHE_ROOT/$key"
mkdir -p "$BIN_DIR"

# Several test binaries of one `go test ./...` may call this at once; the lock
# makes the later ones wait for the first build instead of racing it.
exec 9>"$BIN_DIR/.lock"
if ! flock -n 9; then
	log "another build into $BIN_DIR is running; waiting for it"
	flock 9
fi

export CGO_ENABLED=0
# A go.work above the repository must not change the pinned versions.
export GOWORK=off

total_start=$SECONDS
built=0
for entry in "${BINARIES[@]}"; do
	IFS='|' read -r name mod pkg ldflags <<<"$entry"
	out="$BIN_DIR/$name"
	if [[ -x "$out" ]]; then
		log "$name: up to date"
		continue
	fi
	log "$name: building $pkg (module test/tools/$mod); a cold build takes minutes"
	start=$SECONDS
	tmp="$out.tmp.$$"
	# Build to a temporary name so an interrupted build never leaves a
	# truncated binary that a later run would take as done.
	if ! go -C "$TOOLS_DIR/$mod" build -mod=readonly -trimpath -ldflags "$ldflags" -o "$tmp" "$pkg"; then
		rm -f "$tmp"
		die "$name: go build $pkg failed"
	fi
	mv -f "$tmp" "$out"
	built=$((built + 1))
	log "$name: built in $((SECONDS - start))s"
done

for entry in "${BINARIES[@]}"; do
	name="${entry%%|*}"
	[[ -x "$BIN_DIR/$name" ]] || die "$name missing from $BIN_DIR after build"
done
log "built $built binaries in $((SECONDS - total_start))s; bin directory:"
echo "$BIN_DIR"
