package cluster

import (
	"bytes"
	"slices"
	"strconv"
)

// Converting an item of a YAML dump to JSON with sigs.k8s.io/yaml runs a
// full YAML parser and builds a tree of the item first, and that is most of
// the time a YAML dump takes to read. kubectl prints a small part of YAML:
// block mappings and sequences, one key or item a line, scalars on one line,
// "{}" and "[]" for what is empty, and a string that holds line breaks as
// a literal block ("|", or "|-" without the last line break: a container's
// script, an annotation holding the last-applied-configuration).
// blockToJSON converts that part directly and gives up (ok false) on
// anything else, or anything it is not sure of, for the caller to convert
// the item with sigs.k8s.io/yaml: anchors, aliases, tags, flow collections,
// multi-line scalars, block scalars of other kinds, escapes,
// comments, tabs, bytes outside printable ASCII, keys set twice, and every
// plain scalar YAML 1.1 may read as something other than a string but an
// integer, true, false or null. What it accepts it converts to the bytes
// sigs.k8s.io/yaml gives (keys sorted, strings escaped as encoding/json
// escapes them); FuzzBlockToJSON holds it to that.

// blockToJSON converts data, a YAML mapping in kubectl's block style, to
// JSON; ok is false when data is outside that style.
func blockToJSON(data []byte) (out []byte, ok bool) {
	for _, c := range data {
		if (c < 0x20 && c != '\n') || c > 0x7e {
			return nil, false
		}
	}
	b := blockConverter{src: data, out: make([]byte, 0, len(data))}
	b.next()
	if b.indent != 0 || b.end {
		return nil, false
	}
	if !b.mapping(0) || !b.end {
		return nil, false
	}
	return b.out, true
}

// blockConverter reads data a line at a time; the current line is
// line[indent:], with indent its column.
type blockConverter struct {
	src    []byte
	pos    int // where the line after the current one starts
	line   []byte
	indent int
	end    bool
	out    []byte
	// keys holds the keys of the mappings being converted, innermost last.
	keys []blockKey
}

// blockKey is a key of a mapping and where its entry is in out.
type blockKey struct {
	name       []byte
	start, end int
}

// next moves to the next line that is not blank.
func (b *blockConverter) next() {
	for b.pos < len(b.src) {
		line := b.src[b.pos:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			b.pos += i + 1
		} else {
			b.pos = len(b.src)
		}
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		if indent < len(line) {
			b.line, b.indent = line, indent
			return
		}
	}
	b.end = true
	b.line, b.indent = nil, -1
}

// content is the current line from its indentation.
func (b *blockConverter) content() []byte { return b.line[b.indent:] }

func isSeqItem(c []byte) bool { return len(c) >= 2 && c[0] == '-' && c[1] == ' ' }

// mapping converts the mapping whose keys are at column indent, starting at
// the current line.
func (b *blockConverter) mapping(indent int) bool {
	first := len(b.keys)
	b.out = append(b.out, '{')
	sorted := true
	for !b.end && b.indent == indent {
		c := b.content()
		if c[0] == '-' {
			return false
		}
		key, rest, ok := splitKey(c)
		if !ok || len(key) > 512 || classify(key) != plainString {
			return false
		}
		if len(b.keys) > first {
			switch prev := b.keys[len(b.keys)-1].name; bytes.Compare(prev, key) {
			case 0:
				return false // set twice: the reference refuses it, saying where
			case 1:
				sorted = false
			}
		}
		if len(b.keys) > first {
			b.out = append(b.out, ',')
		}
		start := len(b.out)
		b.out = appendJSONString(b.out, key)
		b.out = append(b.out, ':')
		if len(rest) == 0 {
			b.next()
			if !b.block(indent) {
				return false
			}
		} else {
			if !b.inline(indent, rest) {
				return false
			}
			b.next()
		}
		b.keys = append(b.keys, blockKey{name: key, start: start, end: len(b.out)})
	}
	if !b.end && b.indent > indent {
		return false // a line continuing a scalar, or out of place
	}
	if !sorted && !b.sort(first) {
		return false
	}
	b.keys = b.keys[:first]
	b.out = append(b.out, '}')
	return true
}

// inline converts the value written after a key or sequence item at column
// indent: a scalar on that line, or a literal block on the lines below.
func (b *blockConverter) inline(indent int, v []byte) bool {
	if strip := string(v) == "|-"; strip || string(v) == "|" {
		return b.literal(indent, strip)
	}
	return b.scalar(v)
}

// literal converts the literal block scalar of a key or sequence item at
// column indent, from the line after its own: its lines, further in, less
// the indentation of the first, with the line breaks between them (blank
// lines too), then a line break unless strip. It leaves b before the line
// that ends the block. Blank lines before the first or with spaces past the
// indentation, and a last line without a line break, are left to
// sigs.k8s.io/yaml.
func (b *blockConverter) literal(indent int, strip bool) bool {
	b.out = append(b.out, '"')
	text := -1 // the block's indentation, once its first line is read
	breaks := 0
	for b.pos < len(b.src) {
		line := b.src[b.pos:]
		n := bytes.IndexByte(line, '\n')
		if n < 0 {
			return false
		}
		line = line[:n]
		sp := 0
		for sp < len(line) && line[sp] == ' ' {
			sp++
		}
		switch {
		case sp == len(line):
			if text < 0 || sp > text {
				return false
			}
			breaks++
			b.pos += n + 1
			continue
		case text < 0:
			if sp <= indent {
				return false // an empty block
			}
			text = sp
		case sp < text:
			if sp > indent {
				return false
			}
			return b.endLiteral(strip)
		default:
			for range breaks {
				b.out = append(b.out, `\n`...)
			}
		}
		b.out = appendJSONStringContent(b.out, line[text:])
		breaks = 1
		b.pos += n + 1
	}
	if text < 0 {
		return false
	}
	return b.endLiteral(strip)
}

// endLiteral ends a literal block's string: with one line break, whatever
// blank lines followed its last line, or, when strip, none.
func (b *blockConverter) endLiteral(strip bool) bool {
	if !strip {
		b.out = append(b.out, `\n`...)
	}
	b.out = append(b.out, '"')
	return true
}

// sort puts the entries of the mapping whose keys start at keys[first] in
// the order of their keys, as encoding/json writes a map.
func (b *blockConverter) sort(first int) bool {
	keys := b.keys[first:]
	slices.SortFunc(keys, func(x, y blockKey) int { return bytes.Compare(x.name, y.name) })
	for i := 1; i < len(keys); i++ {
		if bytes.Equal(keys[i-1].name, keys[i].name) {
			return false
		}
	}
	from := keys[0].start
	for _, k := range keys {
		from = min(from, k.start)
	}
	was := slices.Clone(b.out[from:])
	b.out = b.out[:from]
	for i, k := range keys {
		if i > 0 {
			b.out = append(b.out, ',')
		}
		b.out = append(b.out, was[k.start-from:k.end-from]...)
	}
	return true
}

// block converts the value of a key with nothing after its colon, at
// column indent: what the lines below, further in, hold, or a sequence at
// the key's own column; nothing is null.
func (b *blockConverter) block(indent int) bool {
	switch {
	case b.end || b.indent < indent:
		b.out = append(b.out, "null"...)
		return true
	case b.indent == indent:
		if isSeqItem(b.content()) {
			return b.sequence(indent)
		}
		b.out = append(b.out, "null"...)
		return true
	case isSeqItem(b.content()):
		return b.sequence(b.indent)
	default:
		return b.mapping(b.indent)
	}
}

// sequence converts the sequence whose items are at column indent.
func (b *blockConverter) sequence(indent int) bool {
	b.out = append(b.out, '[')
	for n := 0; !b.end && b.indent == indent; n++ {
		c := b.content()
		if !isSeqItem(c) {
			break
		}
		if n > 0 {
			b.out = append(b.out, ',')
		}
		item := c[2:]
		if len(item) == 0 || item[0] == ' ' || isSeqItem(item) {
			return false
		}
		if _, _, isMap := splitKey(item); isMap && item[0] != '"' && item[0] != '\'' {
			// A mapping whose first key is on the item's line: read the
			// line as if the mapping started it.
			b.indent += 2
			if !b.mapping(indent + 2) {
				return false
			}
			continue
		}
		if !b.inline(indent, item) {
			return false
		}
		b.next()
		if !b.end && b.indent > indent {
			return false
		}
	}
	b.out = append(b.out, ']')
	return true
}

// splitKey splits "key: value" or "key:" at the colon that ends the key.
func splitKey(c []byte) (key, rest []byte, ok bool) {
	for i := 0; i < len(c); i++ {
		if c[i] != ':' {
			continue
		}
		if i+1 == len(c) {
			return c[:i], nil, true
		}
		if c[i+1] == ' ' {
			rest = c[i+1:]
			for len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			return c[:i], rest, true
		}
	}
	return nil, nil, false
}

// scalar converts a value written on the line of its key or item.
func (b *blockConverter) scalar(v []byte) bool {
	if v[len(v)-1] == ' ' {
		return false
	}
	switch v[0] {
	case '{', '[':
		if len(v) == 2 && v[1] == v[0]+2 { // {} or []
			b.out = append(b.out, v...)
			return true
		}
		return false
	case '\'':
		s, ok := singleQuoted(v)
		if ok {
			b.out = appendJSONString(b.out, s)
		}
		return ok
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' || bytes.ContainsAny(v[1:len(v)-1], "\"\\") {
			return false
		}
		b.out = appendJSONString(b.out, v[1:len(v)-1])
		return true
	}
	switch classify(v) {
	case plainString:
		b.out = appendJSONString(b.out, v)
	case plainLiteral:
		b.out = append(b.out, v...)
	default:
		return false
	}
	return true
}

// singleQuoted is the string a single-quoted scalar on one line holds.
func singleQuoted(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[len(v)-1] != '\'' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\'') < 0 {
		return in, true
	}
	s := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		if in[i] == '\'' {
			if i+1 == len(in) || in[i+1] != '\'' {
				return nil, false
			}
			i++
		}
		s = append(s, in[i])
	}
	return s, true
}

const (
	plainDoubtful = iota
	plainString
	plainLiteral // an integer, true, false or null: the same in JSON
)

// classify tells what YAML 1.1, as sigs.k8s.io/yaml reads it, makes of the
// plain scalar v, when it is sure.
func classify(v []byte) int {
	if len(v) == 0 {
		return plainDoubtful
	}
	if bytes.Contains(v, []byte(" #")) || bytes.Contains(v, []byte(": ")) || v[len(v)-1] == ':' || v[len(v)-1] == ' ' {
		return plainDoubtful
	}
	switch c := v[0]; {
	case c >= '0' && c <= '9', c == '-':
		return classifyNumeric(v)
	case c == '_' || c == '/':
		return plainString
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		if len(v) > 5 {
			return plainString
		}
		switch string(v) {
		case "true", "false", "null":
			return plainLiteral
		}
		var lower [5]byte
		for i, c := range v {
			lower[i] = c | 0x20
		}
		switch string(lower[:len(v)]) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
			return plainDoubtful // a boolean or null YAML 1.1 spells otherwise
		}
		return plainString
	}
	return plainDoubtful // an indicator, '.', '+', '~' or anything unusual
}

// classifyNumeric classifies a plain scalar starting with a digit or '-':
// a decimal integer as JSON writes it, or a string that no YAML 1.1 number
// or timestamp reading takes (a quantity such as 100m, a UID, a flag such
// as -c or --v=2).
func classifyNumeric(v []byte) int {
	digits := v
	if v[0] == '-' {
		digits = v[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 && (digits[0] != '0' || len(digits) == 1) && allDigits(digits) {
		if string(v) == "-0" {
			return plainDoubtful
		}
		return plainLiteral
	}
	if v[0] == '-' && (len(v) < 2 || !isAlnum(v[1]) && v[1] != '-') {
		return plainDoubtful // "- a" is an item, "-.inf" a float
	}
	if bytes.IndexByte(v, '_') >= 0 || bytes.HasPrefix(v, []byte("0b")) || bytes.HasPrefix(v, []byte("-0b")) ||
		(len(v) > 4 && allDigits(v[:4]) && v[4] == '-') {
		return plainDoubtful
	}
	s := string(v)
	if _, err := strconv.ParseInt(s, 0, 64); err == nil || isRange(err) {
		return plainDoubtful
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil || isRange(err) {
		return plainDoubtful
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil || isRange(err) {
		return plainDoubtful
	}
	return plainString
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appendJSONString appends s, printable ASCII, as encoding/json writes a
// string: quotes, backslashes and the HTML characters escaped.
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	out = appendJSONStringContent(out, s)
	return append(out, '"')
}

// appendJSONStringContent is appendJSONString without the quotes.
func appendJSONStringContent(out, s []byte) []byte {
	for {
		i := bytes.IndexAny(s, "\"\\<>&")
		if i < 0 {
			break
		}
		out = append(out, s[:i]...)
		switch c := s[i]; c {
		case '"', '\\':
			out = append(out, '\\', c)
		default:
			out = append(out, `\u00`...)
			out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		s = s[i+1:]
	}
	return append(out, s...)
}
