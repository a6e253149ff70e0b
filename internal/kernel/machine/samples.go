package machine

import (
	"encoding/binary"
	"fmt"
)

// perf's record types and call-chain context markers
// (include/uapi/linux/perf_event.h); not build-tagged, so the parser is
// tested and fuzzed everywhere.
const (
	recordLost   = 2
	recordSample = 9
	// contextMax: call-chain entries at or above (u64)-4095 are context
	// markers (PERF_CONTEXT_KERNEL, ...), not addresses.
	contextMax = ^uint64(4095 - 1)
)

// ParseSamples reads the records of a perf ring between tail and head
// (byte positions that wrap at len(data), a power of two) as a
// breakpoint with PERF_SAMPLE_IP|PERF_SAMPLE_CALLCHAIN writes them: each
// sample's call chain, addresses only (the context markers dropped), and
// the samples PERF_RECORD_LOST says the kernel dropped. Other record
// types are skipped; a record that does not fit is an error.
func ParseSamples(data []byte, tail, head uint64) (chains [][]uint64, lost uint64, err error) {
	size := uint64(len(data))
	if head < tail || head-tail > size {
		return nil, 0, fmt.Errorf("ring: tail %d, head %d, %d bytes", tail, head, size)
	}
	// The records, unwrapped.
	buf := make([]byte, 0, head-tail)
	if n := head - tail; n > 0 {
		from := tail % size
		end := min(from+n, size)
		buf = append(buf, data[from:end]...)
		buf = append(buf, data[:n-(end-from)]...)
	}
	u64 := binary.NativeEndian.Uint64
	for at := 0; at < len(buf); {
		if len(buf)-at < 8 {
			return nil, 0, fmt.Errorf("ring: %d bytes left at %d, under a record header", len(buf)-at, at)
		}
		typ := binary.NativeEndian.Uint32(buf[at:])
		n := int(binary.NativeEndian.Uint16(buf[at+6:]))
		if n < 8 || n%8 != 0 || n > len(buf)-at {
			return nil, 0, fmt.Errorf("ring: record of type %d at %d has size %d (%d bytes left)", typ, at, n, len(buf)-at)
		}
		rec := buf[at+8 : at+n]
		switch typ {
		case recordLost: // u64 id, u64 lost
			if len(rec) < 16 {
				return nil, 0, fmt.Errorf("ring: lost record at %d of %d bytes", at, n)
			}
			lost += u64(rec[8:])
		case recordSample: // u64 ip, u64 nr, u64 ips[nr]
			if len(rec) < 16 {
				return nil, 0, fmt.Errorf("ring: sample at %d of %d bytes", at, n)
			}
			nr := u64(rec[8:])
			if nr > uint64(len(rec)-16)/8 {
				return nil, 0, fmt.Errorf("ring: sample at %d holds %d bytes for a chain of %d", at, len(rec)-16, nr)
			}
			chain := make([]uint64, 0, nr)
			for i := range int(nr) {
				if ip := u64(rec[16+8*i:]); ip < contextMax {
					chain = append(chain, ip)
				}
			}
			chains = append(chains, chain)
		}
		at += n
	}
	return chains, lost, nil
}
