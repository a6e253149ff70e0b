#!/usr/bin/env bash
# reproduce.sh: replay the seeds' findings on this machine.
#
# Runs `contend reproduce` (contend built once per tree state, or the prebuilt
# binary in $CONTEND), which prints one table (finding,
# the seed's figure, what this machine measured, whether it holds here) and
# writes the raw results (benchmark format) and a Markdown copy of the table
# into benchdata/ under a dated, machine-named file. With benchstat installed,
# the raw results are also summarized by it, as a cross-check.
#
# Usage: scripts/reproduce.sh [-quick | -full] [-fake-nodes K] [contend reproduce flags...]
set -euo pipefail

prog=reproduce
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=scripts/lib/perf.sh
. "$root/scripts/lib/perf.sh"
contend_bin "$root"

host=$(hostname -s 2>/dev/null || echo unknown)
topology=real
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case "${args[i]}" in
	-fake-nodes | --fake-nodes) topology="fake-${args[i + 1]:-?}" ;;
	-fake-nodes=* | --fake-nodes=*) topology="fake-${args[i]#*=}" ;;
	esac
done
out="benchdata/$(date -u +%Y-%m-%d)-${host}-${topology}-reproduce.txt"

"$CONTEND_BIN" reproduce -o "$out" "$@" | tee "${out%.txt}.stdout"

if command -v benchstat >/dev/null 2>&1; then
	echo
	benchstat -ignore date,contend,command "$out"
fi
