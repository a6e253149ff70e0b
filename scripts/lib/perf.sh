# shellcheck shell=bash disable=SC2034 # SAMPLE_* and the like are this library's results
# lib/perf.sh: what the perf scripts share. Source it after setting prog.
#
#   need_perf             perf is installed, runs, and may count (paranoid)
#   event_counts EV       exit 0 if perf stat counts EV here (any PMU of a
#                         hybrid CPU counting it is enough)
#   pick_sample_event     sets SAMPLE_EVENT, SAMPLE_SCOPE and SAMPLE_WHY:
#                         the most precise sampling event that works
#   contend_bin           sets CONTEND_BIN: $CONTEND, or a cached build of
#                         this tree (built once per tree state)
#   common_opt "$@"       the options every perf script takes (below)
#   usage                 prints the script's header comment, its help
#
# Tests replace perf and go with fakes on PATH (scripts/testdata/bin), and
# point CONTEND_PMU_DIR at a fake /sys/bus/event_source/devices.

: "${prog:=contend-perf}"

die() {
	echo "$prog: $*" >&2
	exit 1
}

note() { echo "$prog: $*" >&2; }

# usage prints the calling script's header comment, from the line after
# #! to the one before "set -euo pipefail", without the "# ".
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# The directory perf's PMUs appear in; tests point it elsewhere.
pmu_dir=${CONTEND_PMU_DIR:-/sys/bus/event_source/devices}

need_perf() {
	if ! command -v perf >/dev/null 2>&1; then
		local hint="install it"
		if command -v apt-get >/dev/null 2>&1; then
			hint="install it: apt-get install -y linux-perf (Debian) or linux-tools-\$(uname -r) (Ubuntu)"
		fi
		die "perf not found in PATH; $hint"
	fi
	perf version >/dev/null 2>&1 || die "perf is installed but does not run here (perf version failed); it may not match kernel $(uname -r)"
	if ! perf stat -e cpu-clock -- true >/dev/null 2>&1; then
		local paranoid
		paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
		die "perf cannot count events here (kernel.perf_event_paranoid is $paranoid; run as root or lower it to 1)"
	fi
}

# event_counts EV: perf stat exits 0 even when a counter is "<not
# supported>", so read the counts it printed (-x, puts the count first): a
# number on any line means some PMU counts it. A hybrid Intel CPU prints one
# line per core type, named cpu_core/cycles/ and cpu_atom/cycles/ rather
# than cycles; either counting is enough.
event_counts() {
	perf stat -x, -e "$1" -- true 2>&1 >/dev/null | awk -F, '$1 ~ /^[0-9]+(\.[0-9]+)?$/ { ok = 1 } END { exit !ok }'
}

# record_works EV [SCOPE]: perf record can sample EV, and samples EV itself:
# perf quietly replaces an unsupported cycles event (cycles:pp included)
# with cpu-clock, so the recorded event's name is checked too.
record_works() {
	local ev=$1 scope=${2:-} tmp rc=0
	tmp=$(mktemp "${TMPDIR:-/tmp}/contend-probe.XXXXXX")
	# shellcheck disable=SC2086 # SCOPE is one option or none
	if perf record -q $scope -e "$ev" -o "$tmp" -- true >/dev/null 2>&1; then
		perf evlist -i "$tmp" 2>/dev/null | grep -q cpu-clock && rc=1
	else
		rc=1
	fi
	rm -f "$tmp" "$tmp.old"
	return $rc
}

# pick_sample_event chooses what perf record samples, most precise first:
#
#   ibs_op//    AMD Instruction-Based Sampling: the sampled op's own address,
#               no skid. Some kernels allow it only system-wide (-a).
#   cycles:pp   Intel PEBS (and other precise PMUs): the stalled instruction
#               itself, or the next one at most.
#   cycles:p    constant skid.
#   cycles      the instruction the interrupt found, often the one after a
#               stall.
#   cpu-clock   no PMU (most VMs): a software timer, with the same skid.
#
# cycles is asked for by its generic name, which perf maps to every core
# type of a hybrid CPU (cpu_core/cycles/, cpu_atom/cycles/).
pick_sample_event() {
	SAMPLE_SCOPE=
	if [[ -d $pmu_dir/ibs_op ]]; then
		for scope in "" -a; do
			if record_works ibs_op// "$scope"; then
				SAMPLE_EVENT=ibs_op// SAMPLE_SCOPE=$scope
				SAMPLE_WHY="AMD IBS ops (precise: samples land on the instruction itself${scope:+; system-wide, as this kernel allows IBS only with -a})"
				return
			fi
		done
	fi
	for ev in cycles:pp cycles:p; do
		if record_works "$ev"; then
			SAMPLE_EVENT=$ev
			SAMPLE_WHY="precise hardware cycles ($ev: samples land on the stalled instruction or right after it)"
			return
		fi
	done
	if event_counts cycles && record_works cycles; then
		SAMPLE_EVENT=cycles
		SAMPLE_WHY="hardware cycles (not precise here: expect a stall's samples on the instruction after it)"
		return
	fi
	SAMPLE_EVENT=cpu-clock
	SAMPLE_WHY="the cpu-clock software event: no hardware cycles counter here (perf stat -e cycles counts nothing); expect the samples of a stall on the instruction after it"
}

# tree_key hashes what a build of contend depends on: the Go toolchain and
# target, and the path and content of every non-test Go, assembly and module
# file of the tree (committed or not), so an edit anywhere makes a new key.
tree_key() {
	local root=$1
	(
		cd "$root" || exit 1
		go version
		go env GOOS GOARCH CGO_ENABLED
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			git ls-files -co --exclude-standard -- '*.go' '*.s' go.mod go.sum
		else
			find . -name '*.go' -o -name '*.s' -o -name go.mod -o -name go.sum
		fi | grep -v '_test\.go$' | LC_ALL=C sort | while IFS= read -r f; do
			[[ -f $f ]] && printf '%s %s\n' "$f" "$(sha256sum <"$f")"
		done
	) | sha256sum | cut -c1-16
}

# contend_bin sets CONTEND_BIN. $CONTEND names a prebuilt binary (a machine
# without Go, or a binary built elsewhere); otherwise contend is built from
# this tree into a cache keyed by the tree's state, so calling a script
# again costs no build.
contend_bin() {
	local root=$1
	if [[ -n ${CONTEND:-} ]]; then
		[[ -f $CONTEND && -x $CONTEND ]] || die "CONTEND=$CONTEND is not an executable file"
		CONTEND_BIN=$CONTEND
		return
	fi
	command -v go >/dev/null 2>&1 || die "go not found in PATH: needed to build contend (or set CONTEND to a prebuilt binary)"
	local cache key
	cache=${CONTEND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/contend}/bin
	key=$(tree_key "$root") || die "cannot hash the tree at $root"
	CONTEND_BIN=$cache/contend-$key
	if [[ -x $CONTEND_BIN ]]; then
		note "using $CONTEND_BIN (built from this tree before)"
		return
	fi
	mkdir -p "$cache" || die "cannot create $cache"
	note "building contend into $CONTEND_BIN"
	# Built under a temporary name and renamed: a concurrent or
	# interrupted build never leaves a half-written binary under the key.
	local tmp=$CONTEND_BIN.tmp.$$
	(cd "$root" && go build -o "$tmp" ./cmd/contend) || {
		rm -f "$tmp"
		die "go build ./cmd/contend failed"
	}
	mv -f "$tmp" "$CONTEND_BIN"
}

# hot_symbols SCENARIO sets HOT_SYMBOLS to the functions the scenario
# declares hot (Spec.HotSymbols), as "$CONTEND_BIN list -json SCENARIO"
# prints them: one quoted name a line in its "hot_symbols" array (Go
# symbols hold no character JSON escapes). An unknown scenario dies with
# contend's own one-line error.
hot_symbols() {
	local json
	json=$("$CONTEND_BIN" list -json "$1" 2>&1) || die "$(head -n 1 <<<"$json")"
	mapfile -t HOT_SYMBOLS < <(awk '
		/"hot_symbols": \[\]/ { exit }
		/"hot_symbols": \[/ { in_list = 1; next }
		in_list && /^ *\]/ { exit }
		in_list { sub(/^ *"/, ""); sub(/",?$/, ""); print }' <<<"$json")
}

# out_dir DIR PREFIX sets OUT: DIR, or a new PREFIX.XXXXXX directory under
# $TMPDIR (and then OUT_MADE=1, so a script that ends with nothing to show
# can remove it). Not "perf-…" under /tmp: perf takes any file there named
# /tmp/perf-PID.map for a JIT symbol map and would not read contend's own.
out_dir() {
	OUT=$1 OUT_MADE=''
	if [[ -z $OUT ]]; then
		OUT=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
		OUT_MADE=1
	fi
	case "$OUT" in
	/tmp/perf-*) die "-o $OUT: perf reads files under /tmp/perf-* as JIT symbol maps, not binaries; choose another directory" ;;
	esac
	mkdir -p "$OUT" || die "cannot create $OUT"
}

# common_opt "$@": the options every perf script takes, -d/--duration D
# (duration, default 5s), -o/--out DIR (out), --contend BIN and -h/--help,
# and the end of options. Call it from the script's own case for anything
# it does not know; it sets shifted to how many arguments it used, and
# returns 1 when the options end here (at "--", or at the scenario, the
# first non-option), 0 when the loop goes on. An unknown option is an
# error.
duration=5s
out=
common_opt() {
	shifted=0
	case "$1" in
	-d | --duration)
		(($# >= 2)) || die "$1 needs a duration such as 5s"
		duration=$2
		shifted=2
		;;
	-o | --out)
		(($# >= 2)) || die "$1 needs a directory"
		out=$2
		shifted=2
		;;
	--contend)
		(($# >= 2)) || die "$1 needs a contend binary"
		CONTEND=$2
		shifted=2
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shifted=1
		return 1
		;;
	-*) die "unknown option $1 (options come before SCENARIO; see --help)" ;;
	*) return 1 ;;
	esac
}

# need_scenario "$@": the first argument after the options, or die.
need_scenario() {
	(($# >= 1)) || die "no scenario given (usage: $0 [options] SCENARIO [contend run flags...])"
}
