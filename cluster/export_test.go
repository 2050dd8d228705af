package cluster

import "io"

// DecodeWith is Decode with this many workers decoding List items.
func DecodeWith(r io.Reader, decoders int) (Objects, map[string]int, error) {
	return decode(r, decoders)
}
