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
// items the list's items. With encodings, a page read from a protobuf body
// also gives each object's bytes.
type kindList[L any, T any] struct {
	rest      rest.Interface
	resource  string
	typed     func(context.Context, metav1.ListOptions) (*L, error)
	items     func(*L) *[]T
	encodings bool
}

func listOf[L any, T any](rc rest.Interface, resource string,
	typed func(context.Context, metav1.ListOptions) (*L, error), items func(*L) *[]T) kindList[L, T] {
	return kindList[L, T]{rest: rc, resource: resource, typed: typed, items: items}
}

// withEncodings is the kind listed with each object's protobuf bytes.
func (k kindList[L, T]) withEncodings() kindList[L, T] {
	k.encodings = true
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
// done with a page before it asks for the one after the next. For a kind
// listed with encodings, the page's body is kept as long, in one of two
// buffers taken in turn, and encodings holds each item's bytes in it.
type pageReader[L any, P protoList[L], T any] struct {
	kind      kindList[L, T]
	bodies    [2]bytes.Buffer
	lists     [2]L
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
	buf := &r.bodies[0]
	if r.kind.encodings {
		buf = &r.bodies[turn]
	}
	r.encodings[turn] = r.encodings[turn][:0]
	buf.Reset()
	_, err = buf.ReadFrom(body)
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
	var zero L
	*l = zero
	*r.kind.items(l) = items
	data := buf.Bytes()
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
	if err := P(l).Unmarshal(raw); err != nil {
		return nil, err
	}
	if r.kind.encodings {
		r.encodings[turn] = itemEncodings(raw, r.encodings[turn], len(*r.kind.items(l)))
	}
	return l, nil
}

// encodingsOf returns the bytes of each item of page, a list this reader
// returned, or nil when it does not know them (a JSON answer).
func (r *pageReader[L, P, T]) encodingsOf(page *L) [][]byte {
	for turn := range r.lists {
		if page == &r.lists[turn] && len(r.encodings[turn]) == len(*r.kind.items(page)) {
			return r.encodings[turn]
		}
	}
	return nil
}

// listItems is the number of a list's items in k8s.io/api's generated.proto,
// the same in every kind's list.
const listItems protowire.Number = 2

// itemEncodings appends to into the bytes of each of the n items of an
// encoded list, or returns nil when they are not n.
func itemEncodings(list []byte, into [][]byte, n int) [][]byte {
	for len(list) > 0 {
		num, typ, tn := protowire.ConsumeTag(list)
		if tn < 0 {
			return nil
		}
		list = list[tn:]
		if num != listItems || typ != protowire.BytesType {
			vn := protowire.ConsumeFieldValue(num, typ, list)
			if vn < 0 {
				return nil
			}
			list = list[vn:]
			continue
		}
		item, vn := protowire.ConsumeBytes(list)
		if vn < 0 {
			return nil
		}
		into = append(into, item)
		list = list[vn:]
	}
	if len(into) != n {
		return nil
	}
	return into
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
