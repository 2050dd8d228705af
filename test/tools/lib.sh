# Sourced by the build scripts of test/tools (build.sh, deploy/build.sh,
# lint/build.sh): each pins its tools in Go modules of its own and sets
# LOG_LABEL, TOOLS_DIR and BINARIES, then calls build_binaries.
#
# BINARIES lists "name|module dir|package|ldflags", the module dir relative
# to TOOLS_DIR. build_binaries PREFIX builds them into
#
#   ${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}/<PREFIX><key>/
#
# where <key> hashes the entries, the build flags, the Go version and the
# go.mod/go.sum of every module named: a bumped pin or a new Go builds into
# a fresh directory, and a directory is never half updated. Binaries already
# there are not rebuilt. Progress goes to stderr; the only line on stdout is
# the bin directory, so that callers can use "$(test/tools/.../build.sh)".

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

log() { printf '[%s %s] %s\n' "$LOG_LABEL" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for tool in go sha256sum flock; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found in PATH"
done

# A go.work above the repository must not change the pinned versions, and
# the binaries run on any machine of the same OS and architecture.
export GOWORK=off
export CGO_ENABLED=0

# modversion MODULE_DIR MODULE prints the version a pinned module requires.
modversion() { go -C "$TOOLS_DIR/$1" list -mod=readonly -m -f '{{.Version}}' "$2"; }

build_binaries() {
	local prefix=$1 entry name mod pkg ldflags
	local -a mods=()
	for entry in "${BINARIES[@]}"; do
		IFS='|' read -r name mod pkg ldflags <<<"$entry"
		[[ " ${mods[*]} " == *" $mod "* ]] || mods+=("$mod")
	done
	local recipe key
	recipe="$(printf '%s\n' "${BINARIES[@]}"; echo "CGO_ENABLED=0 -trimpath")"
	key="$(
		{
			echo "$recipe"
			go env GOVERSION GOOS GOARCH
			for mod in "${mods[@]}"; do
				cat "$TOOLS_DIR/$mod/go.mod" "$TOOLS_DIR/$mod/go.sum"
			done
		} | sha256sum | cut -c1-16
	)"
	local cache_root="${REBALANCER_TESTBIN:-${XDG_CACHE_HOME:-$HOME/.cache}/rebalancer/testbin}"
	local bin_dir="$cache_root/$prefix$key"
	mkdir -p "$bin_dir"

	# Several test binaries of one `go test ./...`, or two terminals, may
	# build at once; the lock makes the later ones wait for the first.
	exec 9>"$bin_dir/.lock"
	if ! flock -n 9; then
		log "another build into $bin_dir is running; waiting for it"
		flock 9
	fi

	local total_start=$SECONDS built=0 out tmp start moddir
	for entry in "${BINARIES[@]}"; do
		IFS='|' read -r name mod pkg ldflags <<<"$entry"
		out="$bin_dir/$name"
		if [[ -x "$out" ]]; then
			log "$name: up to date"
			continue
		fi
		moddir="$(cd "$TOOLS_DIR/$mod" && pwd)"
		log "$name: building $pkg (module ${moddir#"$REPO_ROOT/"}); a cold build takes minutes"
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
	for entry in "${BINARIES[@]}"; do
		name="${entry%%|*}"
		[[ -x "$bin_dir/$name" ]] || die "$name missing from $bin_dir after build"
	done
	log "built $built binaries in $((SECONDS - total_start))s; bin directory:"
	echo "$bin_dir"
}
