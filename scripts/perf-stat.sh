#!/usr/bin/env bash
# perf-stat.sh: how many cache misses and cache-line transfers does one
# operation of a scenario cost?
#
# Runs one scenario for a fixed time under perf stat and prints each counter
# in total and per operation (contend run's own operation count): cycles,
# instructions, cache references and misses, and, where the CPU has them,
# the counters of loads that found their line modified in another core's
# cache (Intel's HITM/forward events, AMD's fills from another core complex
# or socket) — the per-operation price of a bouncing line, next to what
# contend measures as handoffs/op. Counters this machine lacks are named as
# such, never silently dropped.
#
# Usage:
#   scripts/perf-stat.sh [options] SCENARIO [contend run flags...]
#
# Options:
#   -d, --duration D    how long contend runs (default 5s)
#   -e, --event EV      count EV too; repeatable
#   -o, --out DIR       write run.txt and stat.csv to DIR (default: a new
#                       contend-stat.* directory under $TMPDIR, kept)
#   --contend PATH      run this contend binary (also: CONTEND=PATH); default:
#                       build this tree once into ~/.cache/contend/bin
#   -h, --help          print this help
#
# Example:
#   scripts/perf-stat.sh atomicadd -variant line=shared -threads 2 -place spread
set -euo pipefail

prog=perf-stat
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/perf.sh
. "$root/scripts/lib/perf.sh"

extra=()

while (($# > 0)); do
	case "$1" in
	-e | --event)
		(($# >= 2)) || die "$1 needs a perf event name"
		extra+=("$2")
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

# The counters, in the order they are printed. Software ones always count;
# hardware ones are tried one by one. The HITM ones differ by generation:
# perf knows a name only on the CPUs that have it, so trying them all is safe.
software=(task-clock context-switches cpu-migrations)
hardware=(cycles instructions cache-references cache-misses LLC-load-misses)
hitm=(
	mem_load_l3_hit_retired.xsnp_hitm    # Intel Skylake to Cascade Lake: L3 hit, another core had it modified
	mem_load_l3_hit_retired.xsnp_fwd     # Intel Ice Lake and later: the same, renamed
	mem_load_l3_miss_retired.remote_hitm # Intel servers: modified in the other socket's cache
	mem_load_l3_miss_retired.remote_fwd  # Intel servers, Ice Lake and later
	ls_any_fills_from_sys.ext_cache_local  # AMD Zen 3: from another core complex of this socket
	ls_any_fills_from_sys.ext_cache_remote # AMD Zen 3: from the other socket's caches
	ls_any_fills_from_sys.local_ccx        # AMD Zen 4: from another core complex of this socket
	ls_any_fills_from_sys.remote_cache     # AMD Zen 4: from the other socket's caches
)

events=("${software[@]}")
missing=()
for ev in "${hardware[@]}" "${hitm[@]}" "${extra[@]}"; do
	if event_counts "$ev"; then
		events+=("$ev")
	else
		missing+=("$ev")
	fi
done
have_hitm=0
for ev in "${hitm[@]}"; do
	[[ " ${events[*]} " == *" $ev "* ]] && have_hitm=1
done

out_dir "$out" contend-stat
out=$OUT
contend_bin "$root"

list=$(
	IFS=,
	echo "${events[*]}"
)
note "perf stat -e $list: contend run $scenario -duration $duration $*"
perf stat -x, -o "$out/stat.csv" -e "$list" -- "$CONTEND_BIN" run "$scenario" -duration "$duration" "$@" >"$out/run.txt" ||
	die "perf stat of contend run $scenario failed (contend's error is above)"

# contend run prints one benchmark line; its iteration count is the number
# of operations all workers completed.
ops=$(awk '/^Benchmark/ { print $2; exit }' "$out/run.txt")
[[ $ops =~ ^[0-9]+$ && $ops -gt 0 ]] || die "no operation count in $out/run.txt"

echo "== perf stat: contend run $scenario $*  ($ops operations)"
awk -F, -v ops="$ops" '
	/^#/ || NF < 3 { next }
	{
		count = $1; unit = $2; ev = $3
		if (count !~ /^[0-9.]+$/) { printf "  %-40s %s\n", ev, count; next }
		per = count / ops
		printf "  %-40s %16s %-5s %12.4g per op\n", ev, count, unit, per
	}' "$out/stat.csv"
if ((${#missing[@]} > 0)); then
	echo
	echo "not counted here (no such counter on this CPU, or no hardware PMU): ${missing[*]}"
fi
if ! event_counts cycles; then
	echo "no hardware counters at all on this machine (a VM without a virtual PMU?): only software events count."
elif ((have_hitm == 0)); then
	echo "no HITM-style counter known for this CPU: cache-misses is the nearest figure."
fi
echo
note "results in $out (run.txt, stat.csv)"
