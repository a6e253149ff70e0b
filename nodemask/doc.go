// Package nodemask implements the Linux kernel's bitmaps in Go: Mask, a
// fixed MAX_NUMNODES node mask (nodemask_t), and Bitmap, a dynamically sized
// bitmap for CPU masks (nr_cpu_ids bits), together with Linux's two textual
// forms, the list form ("0-2,33-34,45,72-73", as in
// /sys/devices/system/node/possible) and the hex mask form
// ("00000000,0000000f", as in /sys/devices/system/cpu/cpu0/topology/core_cpus).
//
// # Why Mask is fixed-size
//
// contend measures the cost the kernel pays in for_each_node(): a nodemask_t
// is MAX_NUMNODES = 1<<CONFIG_NODES_SHIFT bits, 1024 on distribution
// kernels, while real machines have a handful of nodes. The kernel mail thread
// behind issue 4 argues over three ways to find the next node:
//
//   - Mask.Next scans the whole MaxNumNodes bitmap, as for_each_node_mask did
//     before the fix: after the last node it still reads every remaining word.
//   - Mask.NextBelow bounds the scan by nr_node_ids (the highest possible node
//     id + 1), PeterZ's fix: "a factor of 256 scanning" saved on <= 4 nodes.
//   - Mask.NextSmall is the small_const_nbits() fast path Yury points out the
//     fix would break: when the bound is a compile-time constant of at most
//     one machine word, find_next_bit is a single inlined AND and ffs, no loop.
//
// Next and NextBelow share one out-of-line word loop (findNextBit, the
// counterpart of the kernel's _find_next_bit, kept //go:noinline so perf
// annotate finds it) and differ only in the bound they pass, so a benchmark
// comparing them measures the bound and nothing else. NextSmall is deliberately
// a different shape: inlinable and loop-free, as the kernel's fast path is.
// All of them work a word at a time with math/bits.TrailingZeros64, never bit
// by bit. Mask.ScanWords counts the words a walk reads, for benchmarks that
// report words-scanned/op.
//
// # Why Bitmap grows
//
// CPU masks are nr_cpu_ids bits, known only at run time, and CPU lists read
// from sysfs arrive in any order, so Bitmap.Set grows the bitmap instead of
// failing. A Bitmap holds a slice: plain assignment shares the bits the way a
// slice does; use Clone for an independent copy. There is one bitmap
// implementation in contend, this one; affinity uses it for CPU sets.
//
// # Parsing
//
// ParseList, ParseMask, ParseHex and ParseMaskHex accept what the kernel
// prints (surrounding whitespace such as sysfs's trailing newline is
// trimmed) and are stricter than the kernel's bitmap_parselist on typos: empty
// groups ("1,,2"), trailing commas and interior spaces are errors rather than
// skipped. They never panic, and hostile input cannot make them allocate
// much: a parsed Bitmap holds at most MaxBitmapBits bits (128 KiB) and a Mask
// at most MaxNumNodes, and "0-99999999999" is an error, not an allocation.
// Every error is a *SyntaxError naming the input and the byte offset of the
// problem.
package nodemask
