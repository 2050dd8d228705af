package kube

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"google.golang.org/protobuf/encoding/protowire"
)

// kindList is how one kind is listed: typed is its clientset's LIST, rest
// the REST client that can stream its pages instead (see pageReader), and
// items the list's items. With trimItem, the items of a page read from a
// protobuf body are decoded from what trimItem appends of each item's
// bytes, which the page also gives.
type kindList[L any, T any] struct {
	rest     rest.Interface
	resource string
	typed    func(context.Context, metav1.ListOptions) (*L, error)
	items    func(*L) *[]T
	trimItem func(out, item []byte) ([]byte, bool)
}

func listOf[L any, T any](rc rest.Interface, resource string,
	typed func(context.Context, metav1.ListOptions) (*L, error), items func(*L) *[]T) kindList[L, T] {
	return kindList[L, T]{rest: rc, resource: resource, typed: typed, items: items}
}

// trimmedBy is the kind read with its items decoded from what trim keeps
// of their bytes (cluster.AppendTrimmedPod).
func (k kindList[L, T]) trimmedBy(trim func(out, item []byte) ([]byte, bool)) kindList[L, T] {
	k.trimItem = trim
	return k
}

// protoList is a list type of the API with its generated protobuf decoder.
type protoList[L any] interface {
	*L
	runtime.Object
	Unmarshal([]byte) error
}

// protobufMagic starts every protobuf body of the API server: the prefix
// of apimachinery's protobuf serializer, before its runtime.Unknown
// envelope.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// pageReader LISTs one kind a page at a time, as the typed LIST does, but
// keeps from page to page what that allocates anew for each: the body's
// buffer and the list's items, decoded into one of two lists in turn; and
// it decodes the list where the body holds it, not from a copy. At 40
// pages of a thousand pods, those are about half of the garbage of a read.
//
// A page it returns is written over by the call after next: listPages is
// done with a page before it asks for the one after the next. So are the
// trimmed bytes of a kind with trimItem, kept with each list in one of two
// buffers, and encodings, each item's bytes in them.
type pageReader[L any, P protoList[L], T any] struct {
	kind      kindList[L, T]
	body      bytes.Buffer
	lists     [2]L
	trimmed   [2][]byte
	encodings [2][][]byte
	turn      int
}

// newPageReader returns a reader of kind, or nil when its clientset has no
// REST client to stream from (a fake one).
func newPageReader[L any, P protoList[L], T any](kind kindList[L, T]) *pageReader[L, P, T] {
	if rc, ok := kind.rest.(*rest.RESTClient); !ok || rc == nil {
		return nil
	}
	return &pageReader[L, P, T]{kind: kind}
}

func (r *pageReader[L, P, T]) list(ctx context.Context, opts metav1.ListOptions) (*L, error) {
	// Stream turns an answer other than 2xx into the API server's error,
	// as the typed LIST does, after the same retries.
	body, err := r.kind.rest.Get().Resource(r.kind.resource).VersionedParams(&opts, scheme.ParameterCodec).Stream(ctx)
	if err != nil {
		return nil, err
	}
	turn := r.turn
	r.turn = 1 - r.turn
	r.encodings[turn] = r.encodings[turn][:0]
	r.body.Reset()
	_, err = r.body.ReadFrom(body)
	if cerr := body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	l := &r.lists[turn]
	items := (*r.kind.items(l))[:0]
	if cap(items) == 0 && opts.Limit > 0 {
		items = make([]T, 0, opts.Limit)
	}
	r.reset(l, items)
	data := r.body.Bytes()
	if !bytes.HasPrefix(data, protobufMagic) {
		// A server that answers in JSON: decoded as client-go decodes it.
		if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, P(l)); err != nil {
			return nil, err
		}
		return l, nil
	}
	kind, raw, err := envelope(data[len(protobufMagic):])
	if err != nil {
		// protowire is stricter than the generated decoders (a group must
		// close with its own number, a varint's tenth byte be 0 or 1):
		// what it refuses is read as client-go reads it.
		var unk runtime.Unknown
		if err := unk.Unmarshal(data[len(protobufMagic):]); err != nil {
			return nil, fmt.Errorf("decoding a page of %s: %w", r.kind.resource, err)
		}
		kind, raw = unk.Kind, unk.Raw
	}
	if want := reflect.TypeFor[L]().Name(); kind != want {
		return nil, fmt.Errorf("the API server answered a LIST of %s with a %s, not a %s", r.kind.resource, kind, want)
	}
	// Decoded into the list as it is, not reset, so that its items keep
	// their array. Every decoded string and slice is a copy, so that the
	// next page can be read into the body's buffer.
	if r.kind.trimItem != nil {
		if r.decodeTrimmed(l, raw, turn) {
			return l, nil
		}
		r.reset(l, items)
	}
	if err := P(l).Unmarshal(raw); err != nil {
		return nil, err
	}
	return l, nil
}

// reset empties list l but for its items' array.
func (r *pageReader[L, P, T]) reset(l *L, items []T) {
	var zero L
	*l = zero
	*r.kind.items(l) = items[:0]
}

// listItems is the number of a list's items in k8s.io/api's generated.proto,
// the same in every kind's list; the others are its ListMeta's.
const listItems protowire.Number = 2

// decodeTrimmed decodes list raw into l as the list's generated decoder
// does, but each item from what trimItem keeps of its bytes, which it
// keeps for encodingsOf. It says false when it could not, having decoded
// part of the list: the bytes do not parse, or an item's do not decode.
func (r *pageReader[L, P, T]) decodeTrimmed(l *L, raw []byte, turn int) bool {
	buf := r.trimmed[turn][:0]
	var ends []int
	for off := 0; off < len(raw); {
		num, typ, n := protowire.ConsumeTag(raw[off:])
		if n < 0 {
			return false
		}
		vn := protowire.ConsumeFieldValue(num, typ, raw[off+n:])
		if vn < 0 {
			return false
		}
		field := raw[off : off+n+vn]
		off += n + vn
		if num != listItems || typ != protowire.BytesType {
			// The list's metadata, or a field it does not know, read by
			// the list's decoder.
			if err := P(l).Unmarshal(field); err != nil {
				return false
			}
			continue
		}
		item, _ := protowire.ConsumeBytes(field[n:])
		start := len(buf)
		var ok bool
		if buf, ok = r.kind.trimItem(buf, item); !ok {
			return false
		}
		items := r.kind.items(l)
		var zero T
		*items = append(*items, zero)
		obj, decodes := any(&(*items)[len(*items)-1]).(interface{ Unmarshal([]byte) error })
		if !decodes || obj.Unmarshal(buf[start:]) != nil {
			return false
		}
		ends = append(ends, len(buf))
	}
	r.trimmed[turn] = buf
	start := 0
	for _, end := range ends {
		r.encodings[turn] = append(r.encodings[turn], buf[start:end:end])
		start = end
	}
	return true
}

// encodingsOf returns the bytes each item of page, a list this reader
// returned, was decoded from, or nil when it was decoded whole.
func (r *pageReader[L, P, T]) encodingsOf(page *L) [][]byte {
	for turn := range r.lists {
		if page == &r.lists[turn] && len(r.encodings[turn]) == len(*r.kind.items(page)) {
			return r.encodings[turn]
		}
	}
	return nil
}

// envelope reads the runtime.Unknown that wraps an object in a protobuf
// body: the object's kind, and its bytes, which it returns where data holds
// them (runtime.Unknown's Unmarshal copies them).
func envelope(data []byte) (kind string, raw []byte, err error) {
	// A message field set twice is merged, as protobuf has it.
	var tm runtime.TypeMeta
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return "", nil, protowire.ParseError(n)
		}
		data = data[n:]
		if typ != protowire.BytesType || num > 2 {
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return "", nil, protowire.ParseError(n)
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return "", nil, protowire.ParseError(n)
		}
		data = data[n:]
		switch num {
		case 1:
			if err := tm.Unmarshal(v); err != nil {
				return "", nil, err
			}
		case 2:
			raw = v
		}
	}
	return tm.Kind, raw, nil
}
