#!/usr/bin/env bash
# The QEMU topology lab: boots real kernels with chosen NUMA/SMT/LLC
# topologies under TCG and checks contend in each (cmd/vmlab). Needs root
# for apt on a fresh machine.
#   scripts/vmlab.sh                      # the matrix; last line "vmlab: N topologies passed"
#   scripts/vmlab.sh -list
#   scripts/vmlab.sh run -topology skx-2s [-kernel bzImage] -- contend run loadavg -o r.txt
#   scripts/vmlab.sh history [-versions 6.1,6.12,6.16,6.18,6.19,7.0,7.2,7.3] [-dir benchdata/kernel-history]
#       # the kernel oracle on each Debian kernel in turn (kernel sites and count
#       # in oracle-2n), then contend kernel history: DIR/history.txt
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out/vmlab
go build -o out/vmlab/vmlab ./cmd/vmlab
exec out/vmlab/vmlab "$@"
