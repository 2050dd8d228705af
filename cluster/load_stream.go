package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"strings"
)

// A dump is decoded as it is read, object by object, so that decoding a
// cluster of 150,000 pods holds the objects and one item's text, not the
// file, a tree of it, or its items' text. Reading that way commits to a
// document's shape before its end (kubectl writes a List's kind after its
// items); the rare document that turns out to be of another shape is read
// again whole, from where it starts, and decoded as a whole document is.

// readSeeker is r, or, for a reader that cannot seek, what it holds: a
// document read again must be read from where it starts.
func readSeeker(r io.Reader) (io.ReadSeeker, error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		return rs, nil
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", document(1), err)
	}
	return bytes.NewReader(data), nil
}

// checkpoint is what decoding had found before a document, so that a
// document read item by item and then found to be of another shape can be
// forgotten and decoded again whole.
type checkpoint struct {
	lens    []int
	ignored map[string]int
	bad     objectErrors
}

func (o *Objects) checkpoint(ignored map[string]int, bad *objectErrors) checkpoint {
	cp := checkpoint{ignored: maps.Clone(ignored), bad: *bad}
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			cp.lens = append(cp.lens, f.Len())
		}
	}
	return cp
}

// rollback forgets what was decoded since cp: every kind of object, the
// counts of ignored kinds and the problems.
func (o *Objects) rollback(cp checkpoint, ignored map[string]int, bad *objectErrors) {
	v := reflect.ValueOf(o).Elem()
	n := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			f.SetLen(cp.lens[n])
			n++
		}
	}
	clear(ignored)
	maps.Copy(ignored, cp.ignored)
	lines := bad.lines
	*bad = cp.bad
	bad.lines = lines[:len(cp.bad.lines)]
}

// lineReader reads lines as the API machinery's YAML reader does (a line
// without its "\r\n" or "\n", then "\n"), counting the bytes it consumed so
// that a document can be read again from its start.
type lineReader struct {
	src    io.ReadSeeker
	origin int64 // where src was when decoding began
	br     *bufio.Reader
	offset int64 // bytes consumed since origin
	line   []byte
}

// next returns the next line, valid until the following call, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		l.offset += int64(len(chunk))
		l.line = append(l.line, chunk...)
		switch {
		case err == nil:
			l.line = bytes.TrimSuffix(l.line[:len(l.line)-1], []byte("\r"))
			return append(l.line, '\n'), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(l.line) > 0:
			return append(l.line, '\n'), nil
		default:
			return nil, err
		}
	}
}

// seek makes the next line the one at offset.
func (l *lineReader) seek(offset int64) error {
	if _, err := l.src.Seek(l.origin+offset, io.SeekStart); err != nil {
		return err
	}
	l.br.Reset(l.src)
	l.offset = offset
	return nil
}

const separator = "---"

// isSeparator reports whether line ends a document, as the API
// machinery's YAML reader tells: "---" in the first column, followed by
// nothing but spaces and a comment.
func isSeparator(line []byte) (bool, error) {
	if !bytes.HasPrefix(line, []byte(separator)) {
		return false, nil
	}
	if rest := strings.TrimSpace(string(line[len(separator):])); rest != "" && rest[0] != '#' {
		return false, badSeparatorError(rest)
	}
	return true, nil
}

// badSeparatorError is a line that starts with "---" but is not a
// separator. It is wrong content, not a stream that cannot be read.
type badSeparatorError string

func (e badSeparatorError) Error() string {
	return "invalid Yaml document separator: " + string(e)
}

// readDocument reads the rest of a document whole, after its first lines
// (held in doc), up to its separator or the end of the stream.
func (l *lineReader) readDocument(doc []byte) ([]byte, error) {
	for {
		line, err := l.next()
		if errors.Is(err, io.EOF) {
			return doc, nil
		}
		if err != nil {
			return nil, err
		}
		if sep, err := isSeparator(line); err != nil {
			return nil, err
		} else if sep {
			if len(doc) > 0 {
				return doc, nil
			}
			continue
		}
		doc = append(doc, line...)
	}
}

// recorder keeps what a JSON decoder reads from the start of a document
// until recording stops, so that an object that is not a List is decoded
// from its own bytes without reading it again.
type recorder struct {
	r   io.Reader
	on  bool
	buf []byte
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if r.on {
		r.buf = append(r.buf, p[:n]...)
	}
	return n, err
}

// start records from here, buffered being what the decoder read ahead.
func (r *recorder) start(buffered io.Reader) {
	r.buf = r.buf[:0]
	r.on = true
	_, _ = io.Copy(bytesAppender{&r.buf}, buffered)
}

// stop stops recording: the document is a List, read item by item.
func (r *recorder) stop() {
	r.on = false
	r.buf = nil
}

type bytesAppender struct{ b *[]byte }

func (a bytesAppender) Write(p []byte) (int, error) {
	*a.b = append(*a.b, p...)
	return len(p), nil
}

// podNeedles are how a pod's kind is written in YAML and in JSON, indented
// or not.
var podNeedles = [][]byte{[]byte("kind: Pod\n"), []byte(`"kind": "Pod"`), []byte(`"kind":"Pod"`)}

// countPods counts, from offset 0, what looks like the kind of a pod,
// and goes back there. It is how many pods the stream most likely holds:
// a 150,000-pod snapshot grown by appending would copy its pods, 1.2 KiB
// each before any of their fields, to a slice a quarter larger, and hold
// both at once. A pod referred to by another object (an Event's
// involvedObject) counts too; Decode frees what that leaves unused.
func countPods(src io.ReadSeeker, origin int64) (int, error) {
	return countPodsBy(src, origin, 1<<20)
}

// countPodsBy is countPods reading chunk bytes at a time.
func countPodsBy(src io.ReadSeeker, origin int64, chunk int64) (int, error) {
	end, err := src.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if _, err := src.Seek(origin, io.SeekStart); err != nil {
		return 0, err
	}
	const overlap = 16 // longer than any needle
	buf := make([]byte, overlap+max(0, min(chunk, end-origin)))
	n, kept := 0, 0
	for {
		read, err := io.ReadFull(src, buf[kept:])
		data := buf[:kept+read]
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			for _, needle := range podNeedles {
				n += bytes.Count(data, needle)
			}
			break
		}
		if err != nil {
			return 0, err
		}
		// What starts in the last bytes is counted with the next chunk.
		cut := len(data) - overlap
		for _, needle := range podNeedles {
			n += bytes.Count(data[:cut+len(needle)-1], needle)
		}
		kept = copy(buf, data[cut:])
	}
	_, err = src.Seek(origin, io.SeekStart)
	return n, err
}
