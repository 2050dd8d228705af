#!/usr/bin/env bash
# install.sh PACKAGE BINARY NAME installs the program /usr/bin/BINARY of
# Debian's PACKAGE for the tests, for the tools the Go module proxy does not
# serve (the Prometheus server, the Pushgateway): `apt-get download` fetches
# the .deb and `dpkg-deb -x` unpacks it, which needs no root and touches
# nothing outside the test-tool cache (see ../lib.sh):
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/NAME-<version>/BINARY
#
# The only line on stdout is that binary's path.
set -euo pipefail

[[ $# -eq 3 ]] || { echo "usage: $0 PACKAGE BINARY NAME" >&2; exit 2; }
PACKAGE=$1 BINARY=$2 NAME=$3

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOG_LABEL="$NAME/install.sh"
# shellcheck source=../lib.sh
source "$TOOLS_DIR/../lib.sh"

for tool in apt-cache apt-get dpkg-deb; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found in PATH: $BINARY comes from Debian's $PACKAGE package"
done

version="$(apt-cache policy "$PACKAGE" 2>/dev/null | awk '/Candidate:/ {print $2}')"
if [[ -z "$version" || "$version" == "(none)" ]]; then
	die "no candidate version of $PACKAGE in the apt lists; run apt-get update (as root) and try again"
fi

cache_root="${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}"
dir="$cache_root/$NAME-${version//[^A-Za-z0-9.+-]/_}"
bin="$dir/$BINARY"
mkdir -p "$dir"

# Two test processes may install at once; the later waits for the first.
exec 9>"$dir/.lock"
flock 9

if [[ ! -x "$bin" ]]; then
	log "downloading $PACKAGE $version"
	work="$(mktemp -d)"
	# apt-get fetches as the unprivileged _apt user where it can.
	chmod 0755 "$work"
	trap 'rm -rf "$work"' EXIT
	# apt-get download writes into the working directory.
	(cd "$work" && apt-get download -q "$PACKAGE=$version" >&2) || die "apt-get download $PACKAGE=$version failed"
	dpkg-deb -x "$work"/*.deb "$work/root"
	install -m 0755 "$work/root/usr/bin/$BINARY" "$bin.tmp"
	mv "$bin.tmp" "$bin"
	log "installed $bin"
fi
echo "$bin"
