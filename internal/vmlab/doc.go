// Package vmlab is the topology lab: it boots real Linux kernels under QEMU
// with the NUMA, SMT and cache topologies contend exists for, runs contend
// in them, and checks what contend finds against what QEMU was given.
// scripts/vmlab.sh runs it through cmd/vmlab, and .ci/run runs that.
//
// # Why a lab
//
// contend's multi-node, SMT and many-cpu paths otherwise run only against
// sysfs fixtures and fake nodes. A kernel booted with -numa has real nodes:
// mbind places pages on them, get_mempolicy says where they landed, the
// scheduler's cpu and node masks are the kernel's own. What a fixture cannot
// show — that the reader, the placements and the runner agree with a live
// kernel — the lab does.
//
// # One declaration, two uses
//
// A Topology is declared once, in internal/vmlab/topology (Matrix).
// QEMUArgs turns it into -cpu, -smp, memory-backend-ram objects, -numa node
// and -numa dist; Want turns the same declaration into the oracle — nodes
// and their online cpus, nr_node_ids, distances, packages, SMT sibling sets,
// one LLC per socket, offline cpus — which CheckTopo holds contend topo
// -json to. QEMU numbers vcpus socket-major and Linux enumerates them in
// that order, so a vcpu index is the guest's cpu id; a CPU model without a
// topology leaf (-cpu max) shows no SMT whatever -smp says, so the
// declaration says whether SMT is seen. That package only declares and
// checks; this one boots, and its steps judge what came back.
//
// # A guest
//
// The kernel is Debian's (linux-image-amd64's dependency, fetched with apt-get
// download into a cache outside the repository and unpacked, not
// installed); its serial, devtmpfs and NUMA support are built in, so the
// initramfs needs no modules. The initramfs is two newc cpio archives the
// kernel unpacks in order: one shared by every guest (busybox-static with a
// link per applet, contend and the bench/... test binaries, all static), and
// one small archive with the guest's /init, a shell script made of its
// topology's Steps. /init sends each command's output over the second
// serial port (ttyS1, a file on the host), base64 between marker lines, and
// powers off; the console (ttyS0) is only a log, since the kernel may
// print into the middle of a line there. The host parses the transcript
// (ParseTranscript) and each Step's Check judges its outputs, one line per
// problem naming the step.
//
// # Time
//
// TCG emulates every instruction: a guest boots in 3–5 s of its own uptime,
// runs a loadavg configuration in about a second even at
// -test.benchtime=1x, and its timings measure the emulator, not a machine.
// So the lab checks topology, placement and behaviour only; every output it
// keeps starts with a line saying it came from a QEMU guest, and nothing
// from a guest belongs in benchdata/. A figure a step measures (the
// runner's cost over a bare loop) is a reported line under TCG
// (Transcript.Notes) and decides only under -accel kvm. On a loaded host
// TCG can also hang a boot (every vcpu in a soft lockup in stop_machine)
// or crash one: QEMU watches each boot until /init's first line and Lab.Boot
// retries one that makes no progress, once, and says so. Spinning steps run only on guests of
// 8 vcpus or fewer (two host cpus cannot keep more spinning vcpus from
// soft lockups); Big guests run topology and plans only.
package vmlab
