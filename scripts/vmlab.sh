#!/usr/bin/env bash
# The QEMU topology lab: boots real kernels with chosen NUMA/SMT/LLC
# topologies under TCG and checks contend in each (cmd/vmlab). Needs root
# for apt on a fresh machine.
#   scripts/vmlab.sh                      # the matrix; last line "vmlab: N topologies passed"
#   scripts/vmlab.sh -list
#   scripts/vmlab.sh run -topology skx-2s [-kernel bzImage] -- contend run loadavg -o r.txt
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out/vmlab
go build -o out/vmlab/vmlab ./cmd/vmlab
exec out/vmlab/vmlab "$@"
