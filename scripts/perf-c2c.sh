#!/usr/bin/env bash
# perf-c2c.sh: which cache lines bounce between cpus in a scenario, and which
# code touches them?
#
# Runs one scenario for a fixed time under perf c2c record and prints, from
# perf c2c report, the contended cache lines (those whose loads hit a line
# another cpu had modified: HITMs), each with the functions and source lines
# that touch it and their share of its HITMs. This is the kernel mail
# threads' own evidence: seed 000 found tg->load_avg's line this way, and the
# offsets within a line tell true sharing (one word, every site) from false
# sharing (different words, different sites).
#
# Usage:
#   scripts/perf-c2c.sh [options] SCENARIO [contend run flags...]
#
# Options:
#   -d, --duration D    how long contend runs under perf (default 5s)
#   -l, --ldlat N       load latency threshold in cycles (Intel; perf's
#                       default 30): lower finds more loads, and more noise
#   -u, --user          sample user space only (the default when not root
#                       and kernel.perf_event_paranoid > 1)
#   -n, --lines N       contended cache lines to show (default 5)
#   -o, --out DIR       write perf.data, run.txt and report.txt to DIR
#                       (default: a new contend-c2c.* directory under
#                       $TMPDIR, kept)
#   --contend PATH      run this contend binary (also: CONTEND=PATH); default:
#                       build this tree once into ~/.cache/contend/bin
#   -h, --help          print this help
#
# perf c2c needs memory-access sampling: Intel's load-latency PEBS
# (mem-loads, mem-stores), AMD's IBS (ibs_op//, with a kernel and perf recent enough to
# read its data source),
# or Arm's SPE. Virtual machines rarely pass these through. Where perf c2c
# cannot record, the script says so, names the reason it can see, and exits
# with status 3 without running contend; other failures exit 1.
#
# Example (false sharing of tg->load_avg with the fields every event reads):
#   scripts/perf-c2c.sh loadavg -variant store=falseshare -threads 4 -place spread
set -euo pipefail

prog=perf-c2c
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/perf.sh
. "$root/scripts/lib/perf.sh"

ldlat=
user=
lines=5

while (($# > 0)); do
	case "$1" in
	-l | --ldlat)
		(($# >= 2)) || die "$1 needs a latency in cycles"
		[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 $2: want a positive number of cycles"
		ldlat=$2
		shift 2
		;;
	-u | --user)
		user=-u
		shift
		;;
	-n | --lines)
		(($# >= 2)) || die "$1 needs a number of cache lines"
		[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 $2: want a positive number"
		lines=$2
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

need_perf
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [[ -z $user && $(id -u) != 0 && $paranoid -gt 1 ]]; then
	user=-u
	note "kernel.perf_event_paranoid is $paranoid: sampling user space only (-u)"
fi

out_dir "$out" contend-c2c
out=$OUT

# Can this machine record at all? perf c2c record of `true` answers in a
# moment, before contend is built or run.
record=(perf c2c record)
[[ -n $ldlat ]] && record+=(--ldlat "$ldlat")
[[ -n $user ]] && record+=("$user")
if ! "${record[@]}" -o "$out/probe.data" -- true >/dev/null 2>"$out/probe.err"; then
	why=$(grep -v '^\s*$' "$out/probe.err" | tail -n 1)
	{
		echo "$prog: this machine cannot record perf c2c: perf says \"${why:-nothing}\"."
		echo "$prog: perf c2c samples memory accesses with their data addresses, which needs"
		echo "$prog: Intel load-latency PEBS, AMD IBS (ibs_op//) or Arm SPE, and none is available here:"
		if grep -qw hypervisor /proc/cpuinfo 2>/dev/null; then
			echo "$prog:   this is a virtual machine (cpuid hypervisor flag); its hypervisor does not pass"
			echo "$prog:   the sampling hardware through (KVM needs a PMU with PEBS or IBS exposed to the guest)."
		fi
		if ! event_counts cycles; then
			echo "$prog:   perf stat counts no hardware cycles here: there is no hardware PMU at all."
		fi
		if [[ $paranoid -gt 1 && $(id -u) != 0 ]]; then
			echo "$prog:   kernel.perf_event_paranoid is $paranoid (1 or lower, or root, may be needed)."
		fi
		echo "$prog: run it on bare metal; here, scripts/perf-annotate.sh shows where the time goes"
		echo "$prog: (cpu-clock samples) and contend c2c measures what a line transfer costs."
	} >&2
	if [[ -n $OUT_MADE ]]; then
		rm -rf "$out"
	else
		rm -f "$out/probe.data" "$out/probe.err"
	fi
	exit 3
fi
rm -f "$out/probe.data" "$out/probe.err"

contend_bin "$root"
note "${record[*]}: contend run $scenario -duration $duration $*"
"${record[@]}" -o "$out/perf.data" -- "$CONTEND_BIN" run "$scenario" -duration "$duration" "$@" >"$out/run.txt" ||
	die "perf c2c record of contend run $scenario failed (contend's error is above)"

# --full-symbols: Go's symbol names are long, and perf cuts them to the
# column's width otherwise.
perf c2c report -i "$out/perf.data" --stdio --full-symbols >"$out/report.txt" 2>"$out/report.err" ||
	die "perf c2c report failed (see $out/report.err)"

echo "== contended cache lines: contend run $scenario $*"
awk -v lines="$lines" -v sites=8 -f "$root/scripts/lib/c2c-summary.awk" "$out/report.txt"
echo
note "results in $out (perf.data, run.txt, report.txt: perf c2c report -i $out/perf.data for the rest)"
