package nodemask_test

import (
	"fmt"

	"github.com/contend/contend/nodemask"
)

func ExampleParseList() {
	cpus, err := nodemask.ParseList("0-2,33-34,45,72-73\n") // as read from sysfs
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cpus, cpus.Weight(), cpus.Len())
	fmt.Println(cpus.HexString())
	fmt.Println(cpus.DotString())

	_, err = nodemask.ParseList("3-1")
	fmt.Println(err)
	// Output:
	// 0-2,33-34,45,72-73 8 74
	// 300,00002006,00000007
	// 0..2,33..34,45,72..73
	// nodemask: parsing "3-1" at offset 0: descending range 3-1
}

func ExampleParseHex() {
	cpus, err := nodemask.ParseHex("00000000,0000000f")
	fmt.Println(cpus, cpus.Len(), err)
	// Output: 0-3 64 <nil>
}

// A for_each_node_mask loop in its three shapes. All visit the same nodes;
// they differ in how far each search reads.
func ExampleMask_NextBelow() {
	possible, _ := nodemask.ParseMask("0-1")
	nr := 2 // nr_node_ids

	var full, bounded, small []int
	for n := possible.First(); n < nodemask.MaxNumNodes; n = possible.Next(n) {
		full = append(full, n)
	}
	for n := possible.NextBelow(-1, nr); n < nr; n = possible.NextBelow(n, nr) {
		bounded = append(bounded, n)
	}
	for n := possible.NextSmall(-1); n < 64; n = possible.NextSmall(n) {
		small = append(small, n)
	}
	fmt.Println(full, bounded, small)
	for _, bound := range []int{nodemask.MaxNumNodes, nr, 64} {
		nodes, words := possible.ScanWords(bound)
		fmt.Printf("bound %d: %d nodes, %d words\n", bound, nodes, words)
	}
	// Output:
	// [0 1] [0 1] [0 1]
	// bound 1024: 2 nodes, 18 words
	// bound 2: 2 nodes, 2 words
	// bound 64: 2 nodes, 3 words
}
