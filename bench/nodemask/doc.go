// Package nodemask is the scenario "nodemask", the read side of a per-node
// counter: tg_load_avg() of Aaron Lu's per-node tg->load_avg patch (seed 000),
// which sums one cache-line-aligned atomic per node,
//
//	for_each_node(i)
//		load_avg += atomic_long_read(&tg->node_info[i]->load_avg);
//
// and PeterZ's reply to it: "your for_each_node() would scan the full 1024
// bit bitmap looking for more bits that would never be there", because
// for_each_node_mask() is
//
//	for ((node) = first_node(mask);
//	     (node) < MAX_NUMNODES;
//	     (node) = next_node((node), (mask)))
//
// and distributions build NODES_SHIFT=10. His diff bounds the loop by
// nr_node_ids ("(node) < nr_node_ids"), "a factor of 256 scanning" on
// machines with <= 4 nodes; Yury answers that this "would break
// small_const_nbits() optimization for those configuring their kernels
// properly", where MAX_NUMNODES <= BITS_PER_LONG is a compile-time constant
// and find_next_bit() becomes one inlined AND and ffs.
//
// Read literally, the diff does not deliver the factor of 256 for
// for_each_node(): it changes for_each_node_mask()'s loop condition and the
// nodes_*() helpers, but not __first_node() or __next_node(), which still
// search with find_first_bit(..., MAX_NUMNODES) and find_next_bit(...,
// MAX_NUMNODES, n+1). After the last possible node, next_node() still reads
// every remaining word of the 1024 bits, returns MAX_NUMNODES, and only then
// does the new loop bound end the walk. The scan the thread talks about is
// removed only by also bounding the searches, which is a fuller change than
// the one posted.
//
// One operation is one tg_load_avg(): a walk of the possible-node mask, one
// atomic load per node. iter= picks the walk, each in its own //go:noinline
// hot loop built on nodemask.Mask's exported methods:
//
//   - iter=max: First/Next, bounded by MAX_NUMNODES (Mask.Next), the loop by
//     MAX_NUMNODES too. After the last node, one more search reads every
//     remaining word of the 1024 bits.
//   - iter=loopbound: the seed's patch, literally: the same First/Next
//     searches as max, the loop bounded by nr_node_ids. The same 16-word
//     final scan; it differs from max only in comparing against a variable.
//   - iter=nr_node_ids: the fuller change: loop and searches bounded by
//     nr_node_ids, NextBelow(n, nr_node_ids). The same out-of-line word loop
//     as max, with a smaller bound.
//   - iter=word: NextSmall, the small_const_nbits() path of a kernel built with
//     MAX_NUMNODES <= 64: inlined, no loop, no call. It cannot see node ids of
//     64 and above, so nodes=sparse (ids up to 73) rejects it.
//   - iter=nr_node_ids+word: bounded by nr_node_ids, taking the one-word
//     search when nr_node_ids fits a word (chosen once per walk).
//
// nodes= is the possible-node layout: N dense nodes 0..N-1 (nr_node_ids = N),
// or sparse, 8 nodes with ids 0-2,33-34,45,72-73 (nr_node_ids = 74), the
// shape of a machine whose firmware numbers nodes with gaps.
//
// The per-node slots are read-only here, so more workers read them
// concurrently without contention (their lines stay shared-clean); the scan
// cost is what is measured. Besides ns/op the scenario reports two counts
// computed from the mask, not measured: bits-scanned/op, the bit positions
// the walk's searches cover (their bound: 1024 for max and loopbound,
// nr_node_ids, or 64: the quantity PeterZ's "factor of 256" compares), and
// words-scanned/op, the 64-bit words the searches actually load
// (Mask.ScanWords). loopbound's counts are max's. A word-at-a-time
// find_next_bit turns the factor of 256 in bits into at most 17 in words
// (one node: 1 word against 1+16), 5 at four nodes; and since every bound
// pays the same search per node found, bounding the searches saves only the
// one long search after the last node. How much time that is, against a call
// per node, is what ns/op says.
package nodemask
