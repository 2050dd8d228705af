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
	const (
		before = iota
		inItems
		after
	)
	state := before
	var cur []byte
	// blockOpen is true after a top-level key with no value on its line, whose
	// value follows indented (metadata:).
	blockOpen := false
	flush := func() {
		if cur != nil {
			list.items = append(list.items, cur)
			cur = nil
		}
	}
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i+1], doc[i+1:]
		} else {
			doc = nil
		}
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			if state == inItems && cur != nil {
				cur = append(cur, '\n')
			}
			continue
		case line[0] == '#':
			continue // a comment in the first column belongs to no item
		}
		if state == inItems {
			switch {
			case bytes.HasPrefix(line, []byte("- ")):
				flush()
				cur = append([]byte{}, line[2:]...)
				continue
			case bytes.HasPrefix(line, []byte("  ")) && cur != nil:
				cur = append(cur, line[2:]...)
				continue
			case line[0] == ' ' || line[0] == '-':
				return blockList{}, false // not the shape kubectl writes
			}
			flush()
			state = after
			blockOpen = false
		}
		if line[0] == ' ' {
			if !blockOpen {
				return blockList{}, false
			}
			continue // inside a top-level block such as metadata
		}
		if line[0] == '-' {
			return blockList{}, false
		}
		key, value, found := strings.Cut(strings.TrimRight(string(line), "\r\n"), ":")
		if !found {
			return blockList{}, false
		}
		value = strings.TrimSpace(value)
		blockOpen = value == ""
		switch key {
		case "items":
			if value != "" || state != before {
				return blockList{}, false // flow style, or a second items
			}
			state = inItems
		case "kind":
			list.kind = strings.Trim(value, `"'`)
		case "apiVersion":
			list.apiVersion = strings.Trim(value, `"'`)
		}
	}
	flush()
	if state == before || !strings.HasSuffix(list.kind, "List") {
		return blockList{}, false
	}
	return list, true
}
