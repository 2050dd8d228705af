package cluster

import (
	"bytes"
	"strings"
)

// blockList is a List document split into its items' YAML.
type blockList struct {
	apiVersion, kind string
	items            [][]byte
}

// splitBlockList splits a List document written the way kubectl writes one,
// with `items:` at the top level and each item a block starting with "- " in
// the first column and indented by two spaces after, into the items' own
// YAML. A document of any other shape (flow style, an items list indented
// differently, a top-level list) is not split: ok is false and the caller
// converts the document whole.
func splitBlockList(doc []byte) (list blockList, ok bool) {
	var s blockListScanner
	emit := func(item []byte) { list.items = append(list.items, item) }
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i+1], doc[i+1:]
		} else {
			doc = nil
		}
		if !s.line(line, emit) {
			return blockList{}, false
		}
	}
	if !s.end(emit) {
		return blockList{}, false
	}
	list.apiVersion, list.kind = s.apiVersion, s.kind
	return list, true
}

// blockListScanner splits a List document as splitBlockList does, fed one
// line at a time, so that a dump is read item by item and never whole.
type blockListScanner struct {
	state            int
	apiVersion, kind string
	cur              []byte
	// blockOpen is true after a top-level key with no value on its line, whose
	// value follows indented (metadata:).
	blockOpen bool
}

const (
	beforeItems = iota
	inItems
	afterItems
)

// line takes the next line of the document (with its "\n"), passing emit
// each item it completes; the item's bytes are emit's to keep. It returns
// false when the document is not a List of the shape kubectl writes.
func (s *blockListScanner) line(line []byte, emit func(item []byte)) bool {
	switch {
	case len(bytes.TrimSpace(line)) == 0:
		if s.state == inItems && s.cur != nil {
			s.cur = append(s.cur, '\n')
		}
		return true
	case line[0] == '#':
		return true // a comment in the first column belongs to no item
	}
	if s.state == inItems {
		switch {
		case bytes.HasPrefix(line, []byte("- ")):
			s.flush(emit)
			s.cur = append([]byte{}, line[2:]...)
			return true
		case bytes.HasPrefix(line, []byte("  ")) && s.cur != nil:
			s.cur = append(s.cur, line[2:]...)
			return true
		case line[0] == ' ' || line[0] == '-':
			return false // not the shape kubectl writes
		}
		s.flush(emit)
		s.state = afterItems
		s.blockOpen = false
	}
	if line[0] == ' ' {
		// Inside a top-level block such as metadata, or not a List.
		return s.blockOpen
	}
	if line[0] == '-' {
		return false
	}
	key, value, found := strings.Cut(strings.TrimRight(string(line), "\r\n"), ":")
	if !found {
		return false
	}
	value = strings.TrimSpace(value)
	s.blockOpen = value == ""
	switch key {
	case "items":
		if value != "" || s.state != beforeItems {
			return false // flow style, or a second items
		}
		s.state = inItems
	case "kind":
		s.kind = strings.Trim(value, `"'`)
	case "apiVersion":
		s.apiVersion = strings.Trim(value, `"'`)
	}
	return true
}

// end finishes the document, passing emit its last item; it returns false
// when the document is not a List of the shape kubectl writes.
func (s *blockListScanner) end(emit func(item []byte)) bool {
	s.flush(emit)
	return s.state != beforeItems && strings.HasSuffix(s.kind, "List")
}

func (s *blockListScanner) flush(emit func(item []byte)) {
	if s.cur != nil {
		emit(s.cur)
		s.cur = nil
	}
}
