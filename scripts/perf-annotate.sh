#!/usr/bin/env bash
# perf-annotate.sh: which instruction does a contended scenario stall on?
#
# Runs one scenario for a fixed time under perf record (contend built once
# per tree state, or the prebuilt binary in $CONTEND), and prints perf annotate of the scenario's named hot functions, with a summary:
# the hottest instructions, and for every locked instruction the share
# of the function's samples on it and on the instruction right after it. The
# second one matters: a sample is charged to the instruction the CPU was about
# to retire when the interrupt came, so a long stall on a locked instruction
# shows up on its successor (skid). The seed's own annotate (002, Tim Chen)
# has 99.39% on the `test %eax,%eax` after `lock cmpxchg`.
#
# Usage:
#   scripts/perf-annotate.sh [options] SCENARIO [contend run flags...]
#
# Options:
#   -s, --symbol SYM    function to annotate; repeatable. A name without a
#                       path is taken from below contend's bench directory
#                       (balanceflag.balanceTicks). Default: the hot
#                       functions the scenario declares (its Spec.HotSymbols,
#                       the hot_symbols of contend list -json SCENARIO).
#   -d, --duration D    how long contend runs under perf (default 5s)
#   -F, --freq HZ       sampling frequency (default 10000; perf caps it at
#                       kernel.perf_event_max_sample_rate)
#   -e, --event EV      sample EV instead of choosing one
#   -o, --out DIR       write perf.data and the annotations to DIR (default: a
#                       new contend-annotate.* directory under $TMPDIR, kept)
#   --contend PATH      run this contend binary (also: CONTEND=PATH); default:
#                       build this tree once into ~/.cache/contend/bin,
#                       keyed by the tree's state, and reuse it
#   -h, --help          print this help
#
# The sampling event is the most precise that works here: AMD IBS
# (ibs_op//), then cycles:pp and cycles:p (PEBS and other precise PMUs),
# then plain cycles (on a hybrid Intel CPU, every core type's cycles), and
# only where no PMU counts at all (most VMs) the cpu-clock software event.
# The script says which, and what skid to expect.
#
# Example (the seed's before-the-fix order, flag cost alone on the profile):
#   scripts/perf-annotate.sh balanceflag -variant order=cmpxchg-first/work=0 -threads 2
#
# See also scripts/perf-c2c.sh (which cache lines bounce, and who touches
# them) and scripts/perf-stat.sh (cache-miss and HITM counts per operation).
set -euo pipefail

prog=perf-annotate
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/perf.sh
. "$root/scripts/lib/perf.sh"

pkg=github.com/contend/contend/bench
freq=10000
event=
symbols=()

while (($# > 0)); do
	case "$1" in
	-s | --symbol)
		(($# >= 2)) || die "$1 needs a function name"
		symbols+=("$2")
		shift 2
		;;
	-F | --freq)
		(($# >= 2)) || die "$1 needs a frequency in Hz"
		[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 $2: want a positive number of Hz"
		freq=$2
		shift 2
		;;
	-e | --event)
		(($# >= 2)) || die "$1 needs a perf event name"
		event=$2
		shift 2
		;;
	*)
		common_opt "$@" && ended=false || ended=true
		shift "$shifted"
		$ended && break
		;;
	esac
done
need_scenario "$@"
scenario=$1
shift

for i in "${!symbols[@]}"; do
	[[ ${symbols[i]} == */* ]] || symbols[i]=$pkg/${symbols[i]}
done

need_perf
command -v objdump >/dev/null 2>&1 || die "objdump not found: perf annotate needs it (apt-get install -y binutils)"
contend_bin "$root"

# Without -s, the scenario's hot loops: the //go:noinline functions it
# declares, as contend itself lists them (a test checks each is in the
# binary and not inlined).
if ((${#symbols[@]} == 0)); then
	hot_symbols "$scenario"
	((${#HOT_SYMBOLS[@]} > 0)) || die "scenario $scenario declares no hot functions (Spec.HotSymbols): name them with -s"
	symbols=("${HOT_SYMBOLS[@]}")
fi

scope=
if [[ -z $event ]]; then
	pick_sample_event
	event=$SAMPLE_EVENT scope=$SAMPLE_SCOPE
	note "sampling $SAMPLE_WHY"
fi

out_dir "$out" contend-annotate
out=$OUT

note "perf record -e $event${scope:+ $scope} -F $freq: contend run $scenario -duration $duration $*"
# shellcheck disable=SC2086 # scope is one option or none
perf record -q --no-buildid-cache $scope -e "$event" -F "$freq" -o "$out/perf.data" -- \
	"$CONTEND_BIN" run "$scenario" -duration "$duration" "$@" >"$out/run.txt" ||
	die "perf record of contend run $scenario failed (contend's error is above)"

echo "== perf report (top functions)"
# awk, not head: head would leave perf report a broken pipe, and pipefail
# would make that fatal.
perf report -i "$out/perf.data" --stdio --sort symbol 2>/dev/null |
	awk '!/^#/ && NF && n++ < 8 { sub(/[ -]+$/, ""); print }'

for sym in "${symbols[@]}"; do
	short=${sym##*/}
	file=$out/annotate.$short.txt
	perf annotate -i "$out/perf.data" --stdio --symbol="$sym" >"$file" 2>"$out/annotate.$short.err" || true
	echo
	echo "== $sym"
	if ! grep -q ' : *[0-9a-f]*:' "$file"; then
		echo "no samples in $sym (see $out/annotate.$short.err)"
		continue
	fi
	awk -f "$root/scripts/lib/annotate-summary.awk" "$file"
	echo "(full annotation: $file)"
done

echo
echo "$prog: results in $out (perf.data, run.txt, annotate.*.txt)"
