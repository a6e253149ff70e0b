package bench

import (
	"sync/atomic"
	"unsafe"
)

// alignedWords returns n words, each at the start of its own stride-byte
// block. Go's allocator aligns only to the size class, so the buffer is over
// allocated and the first aligned address taken; the memory holds no
// pointers, so the unsafe arithmetic is invisible to the GC.
func alignedWords(n, stride int) []*atomic.Int64 {
	buf := make([]byte, (n+1)*stride)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	off := (uintptr(stride) - base%uintptr(stride)) % uintptr(stride)
	words := make([]*atomic.Int64, n)
	for i := range words {
		words[i] = (*atomic.Int64)(unsafe.Pointer(&buf[off+uintptr(i*stride)]))
	}
	return words
}
