#!/usr/bin/env bash
# compare.sh: compare two results files (contend sweep/run output or go test
# -bench output) with contend compare, and with plain benchstat as well when it
# is installed, so the two can be read side by side.
#
# Usage: scripts/compare.sh OLD NEW [contend compare flags...]
#   scripts/compare.sh benchdata/old.txt benchdata/new.txt
#   scripts/compare.sh old.txt new.txt -unit ns/op -filter '/place:spread'
#
# OLD and NEW may be label=path, as benchstat allows. The extra flags go to
# contend compare only. benchstat runs with -ignore date,contend,command:
# every contend file records its date, commit and command line, which differ
# between old and new by design, and benchstat would otherwise put old and
# new in separate tables. (Before/after a kernel change, add kernel:
# BENCHSTAT_IGNORE=date,contend,command,kernel.) contend is built once per
# tree state (or CONTEND names a prebuilt binary).
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 OLD NEW [contend compare flags...]" >&2
	exit 2
fi
old=$1
new=$2
shift 2

prog=compare
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/perf.sh
. "$root/scripts/lib/perf.sh"
contend_bin "$root"
ignore=${BENCHSTAT_IGNORE:-date,contend,command}

echo "== contend compare${*:+ $*} $old $new"
"$CONTEND_BIN" compare "$@" "$old" "$new"

if command -v benchstat >/dev/null 2>&1; then
	echo
	echo "== benchstat -ignore $ignore $old $new"
	benchstat -ignore "$ignore" "$old" "$new"
else
	echo >&2
	echo "benchstat is not installed; to compare with it too: go install golang.org/x/perf/cmd/benchstat@latest" >&2
fi
