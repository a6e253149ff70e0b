#!/usr/bin/env bash
# bench.sh: run contend's go test benchmarks with -count 10 into benchdata/,
# in a file named after the date, the machine and the topology.
#
# Usage: scripts/bench.sh [BENCH-REGEXP] [extra go test flags...]
#   CONTEND_FAKE_NODES=K scripts/bench.sh ...   runs on a fake K-node split (labelled fake-K)
#   COUNT=5 BENCHTIME=200ms scripts/bench.sh LoadAvg
#   PKGS=./bench/loadavg scripts/bench.sh       one scenario's package (default ./bench/...)
#
# The file's first line is a "command:" configuration line naming how it was
# made, as contend's own results files carry one; benchstat reads it as
# configuration (compare with -ignore date,contend,command).
set -euo pipefail

cd "$(dirname "$0")/.."
regexp=${1:-.}
shift || true
count=${COUNT:-10}
benchtime=${BENCHTIME:-1s}
pkgs=${PKGS:-./bench/...}

host=$(hostname -s 2>/dev/null || echo unknown)
topology=real
if [[ -n "${CONTEND_FAKE_NODES:-}" ]]; then
	topology="fake-${CONTEND_FAKE_NODES}"
fi
name=$(printf '%s' "$regexp" | tr -c 'A-Za-z0-9_.' '-' | sed 's/-*$//')
[[ "$regexp" == "." ]] && name=all
out="benchdata/$(date -u +%Y%m%d)-${host}-${topology}-${name}.txt"
tmp=$(mktemp "${out}.XXXXXX")
trap 'rm -f "$tmp"' EXIT

goflags=(-run '^$' -bench "$regexp" -count "$count" -benchtime "$benchtime" "$@")
{
	# One line of text: printf %q quotes each argument for a shell.
	printf 'command: %sgo test' "${CONTEND_FAKE_NODES:+CONTEND_FAKE_NODES=$CONTEND_FAKE_NODES }"
	printf ' %q' "${goflags[@]}" "$pkgs"
	printf '\n'
	echo "# made by: scripts/bench.sh $regexp $* (count=$count benchtime=$benchtime)"
	echo "# commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty)"
	echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$tmp"
if ! go test "${goflags[@]}" "$pkgs" | tee -a "$tmp"; then
	echo "bench.sh: go test failed; nothing written to $out" >&2
	exit 1
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "bench.sh: results in $out" >&2
