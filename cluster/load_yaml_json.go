package cluster

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// blockYAMLToJSON converts an item of a List as kubectl prints it into
// JSON, the way yaml.YAMLToJSON does, several times faster and with a
// fraction of its garbage: it reads only the YAML that kubectl writes
// (block mappings and sequences, one-line scalars, literal blocks) and
// returns ok false for anything else (anchors, tags, flow collections,
// multi-line or folded scalars, comments, tabs), which the caller converts
// with yaml.YAMLToJSON. A plain scalar that does not start with a letter
// (a number, a time, a quantity) is resolved by the YAML library itself,
// once per distinct text.
func blockYAMLToJSON(item []byte, scalars *scalarCache) ([]byte, bool) {
	if len(item) == 0 || item[len(item)-1] != '\n' {
		return nil, false // a last line without its break ends a literal block differently
	}
	if !printable(item) {
		return nil, false
	}
	c := yamlConverter{scalars: scalars, out: make([]byte, 0, len(item))}
	for len(item) > 0 {
		text := item
		if i := bytes.IndexByte(item, '\n'); i >= 0 {
			text, item = item[:i], item[i+1:]
		} else {
			item = nil
		}
		if bytes.IndexByte(text, '\t') >= 0 || bytes.IndexByte(text, '\r') >= 0 {
			return nil, false
		}
		trimmed := bytes.TrimLeft(text, " ")
		c.lines = append(c.lines, yamlLine{indent: len(text) - len(trimmed), text: trimmed})
	}
	for _, l := range c.lines {
		if l.indent == 0 && (bytes.HasPrefix(l.text, []byte("---")) || bytes.HasPrefix(l.text, []byte("..."))) {
			return nil, false
		}
	}
	if len(c.lines) == 0 || len(c.lines[0].text) == 0 || c.lines[0].indent != 0 {
		return nil, false
	}
	if !c.node(0) || c.i != len(c.lines) {
		return nil, false
	}
	return c.out, true
}

// printable reports whether text holds only what YAML allows in a stream
// and this converter reads: line breaks and printable characters, no tabs,
// no byte order mark.
func printable(text []byte) bool {
	for i := 0; i < len(text); {
		b := text[i]
		if b < utf8.RuneSelf {
			if (b < 0x20 && b != '\n') || b == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == 0xFEFF,
			r < 0xA0 && r != 0x85, r > 0xD7FF && r < 0xE000, r > 0xFFFD && r < 0x10000:
			return false
		}
		i += size
	}
	return true
}

type yamlLine struct {
	indent int
	text   []byte
}

type yamlConverter struct {
	lines   []yamlLine
	i       int
	out     []byte
	scalars *scalarCache
}

// node converts the mapping or sequence whose lines start at the current
// line, at indent.
func (c *yamlConverter) node(indent int) bool {
	l := c.lines[c.i]
	if l.indent != indent || len(l.text) == 0 {
		return false
	}
	if isSequenceEntry(l.text) {
		return c.sequence(indent)
	}
	return c.mapping(indent)
}

func isSequenceEntry(text []byte) bool {
	return bytes.HasPrefix(text, []byte("- ")) || len(text) == 1 && text[0] == '-'
}

func (c *yamlConverter) mapping(indent int) bool {
	c.out = append(c.out, '{')
	var keys [][]byte
	for first := true; c.i < len(c.lines); first = false {
		l := c.lines[c.i]
		if len(l.text) == 0 || l.indent > indent {
			return false
		}
		if l.indent < indent || isSequenceEntry(l.text) {
			break
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return false
		}
		for _, k := range keys {
			if bytes.Equal(k, key) {
				return false // a repeated key: left to the YAML library
			}
		}
		keys = append(keys, key)
		if !first {
			c.out = append(c.out, ',')
		}
		c.out = appendJSONString(c.out, key)
		c.out = append(c.out, ':')
		c.i++
		if !c.value(indent, rest) {
			return false
		}
	}
	c.out = append(c.out, '}')
	return true
}

func (c *yamlConverter) sequence(indent int) bool {
	c.out = append(c.out, '[')
	for first := true; c.i < len(c.lines); first = false {
		l := c.lines[c.i]
		if len(l.text) == 0 || l.indent > indent {
			return false
		}
		if l.indent < indent || !isSequenceEntry(l.text) {
			break
		}
		if !first {
			c.out = append(c.out, ',')
		}
		if len(l.text) < 3 || l.text[2] == ' ' || isSequenceEntry(l.text[2:]) {
			return false
		}
		entry := l.text[2:]
		if _, _, isMapping := splitKey(entry); isMapping {
			// "- key: value" starts a mapping two columns in.
			c.lines[c.i] = yamlLine{indent: indent + 2, text: entry}
			if !c.mapping(indent + 2) {
				return false
			}
			continue
		}
		c.i++
		if entry[0] == '|' {
			if !c.literal(indent, entry) {
				return false
			}
			continue
		}
		if !c.scalar(entry) {
			return false
		}
	}
	c.out = append(c.out, ']')
	return true
}

// value converts the value of a key at indent, rest being what follows
// the key on its line.
func (c *yamlConverter) value(indent int, rest []byte) bool {
	switch {
	case len(rest) == 0:
		if c.i < len(c.lines) {
			next := c.lines[c.i]
			if next.indent > indent || next.indent == indent && isSequenceEntry(next.text) {
				return c.node(next.indent)
			}
		}
		c.out = append(c.out, "null"...)
		return true
	case rest[0] == '|':
		return c.literal(indent, rest)
	}
	if c.i < len(c.lines) && c.lines[c.i].indent > indent && len(c.lines[c.i].text) > 0 {
		return c.foldedPlain(indent, rest)
	}
	return c.scalar(rest)
}

// foldedPlain converts a plain string the YAML library wrote over several
// lines, each after the first indented more than its key: the lines join
// with a space.
func (c *yamlConverter) foldedPlain(indent int, first []byte) bool {
	if !plainScalar(first) || !isString(first) {
		return false
	}
	text := append([]byte{}, first...)
	for c.i < len(c.lines) && c.lines[c.i].indent > indent {
		l := c.lines[c.i].text
		if len(l) == 0 || !plainScalar(l) || l[0] == '-' {
			return false
		}
		text = append(append(text, ' '), l...)
		c.i++
	}
	c.out = appendJSONString(c.out, text)
	return true
}

// literal converts a literal block scalar, "|" (one final line break) or
// "|-" (none), whose lines are indented more than its key.
func (c *yamlConverter) literal(indent int, header []byte) bool {
	strip := false
	switch string(header) {
	case "|":
	case "|-":
		strip = true
	default:
		return false
	}
	if c.i >= len(c.lines) || len(c.lines[c.i].text) == 0 || c.lines[c.i].indent <= indent {
		return false
	}
	contentIndent := c.lines[c.i].indent
	var text []byte
	for c.i < len(c.lines) {
		l := c.lines[c.i]
		if len(l.text) == 0 {
			text = append(text, '\n')
			c.i++
			continue
		}
		if l.indent < contentIndent {
			if l.indent > indent {
				return false
			}
			break
		}
		text = append(text, bytes.Repeat([]byte{' '}, l.indent-contentIndent)...)
		text = append(text, l.text...)
		text = append(text, '\n')
		c.i++
	}
	if len(c.lines[c.i-1].text) == 0 {
		return false // empty lines at the end: left to the YAML library
	}
	text = bytes.TrimRight(text, "\n")
	if !strip {
		text = append(text, '\n')
	}
	if !utf8.Valid(text) {
		return false
	}
	c.out = appendJSONString(c.out, text)
	return true
}

// scalar converts a one-line scalar: quoted, plain, {} or [].
func (c *yamlConverter) scalar(s []byte) bool {
	switch s[0] {
	case '"':
		v, ok := doubleQuoted(s)
		if !ok {
			return false
		}
		c.out = appendJSONString(c.out, v)
		return true
	case '\'':
		v, ok := singleQuoted(s)
		if !ok {
			return false
		}
		c.out = appendJSONString(c.out, v)
		return true
	case '{', '[':
		if string(s) == "{}" || string(s) == "[]" {
			c.out = append(c.out, s...)
			return true
		}
		return false
	}
	if !plainScalar(s) {
		return false
	}
	if isString(s) || isNumberlessString(s) {
		c.out = appendJSONString(c.out, s)
		return true
	}
	v, ok := c.scalars.resolve(s)
	if !ok {
		return false
	}
	c.out = append(c.out, v...)
	return true
}

// splitKey splits "key: value" or "key:" into the key's text and the value.
func splitKey(text []byte) (key, rest []byte, ok bool) {
	switch text[0] {
	case '"', '\'':
		end := bytes.IndexByte(text[1:], text[0])
		if end < 0 || !bytes.HasPrefix(text[end+2:], []byte(":")) {
			return nil, nil, false
		}
		quoted := text[:end+2]
		var k []byte
		if text[0] == '"' {
			k, ok = doubleQuoted(quoted)
		} else {
			k, ok = singleQuoted(quoted)
		}
		if !ok {
			return nil, nil, false
		}
		if rest := text[end+3:]; len(rest) > 0 && rest[0] != ' ' {
			return nil, nil, false
		}
		return k, bytes.TrimLeft(text[end+3:], " "), true
	}
	i := bytes.Index(text, []byte(": "))
	if i < 0 {
		if !bytes.HasSuffix(text, []byte(":")) {
			return nil, nil, false
		}
		i = len(text) - 1
	}
	key = text[:i]
	if !plainScalar(key) || !isString(key) && string(key) != "." {
		return nil, nil, false
	}
	return key, bytes.TrimLeft(text[i+1:], " "), true
}

// plainScalar reports whether s is a plain scalar this converter reads: no
// indicator first, no comment, no mapping inside, no trailing space.
func plainScalar(s []byte) bool {
	if len(s) == 0 || s[len(s)-1] == ' ' || s[len(s)-1] == ':' || !utf8.Valid(s) {
		return false
	}
	switch s[0] {
	case '&', '*', '!', '|', '>', '%', '@', '`', '{', '}', '[', ']', ',', '#', '?', '"', '\'', '-', ':':
		if s[0] != '-' || len(s) == 1 || s[1] == ' ' {
			return false
		}
	}
	return !bytes.Contains(s, []byte(" #")) && !bytes.Contains(s, []byte(": "))
}

// isString reports whether a plain scalar is certainly a string: it starts
// with a letter and is none of the words YAML 1.1 reads as a boolean or
// null.
func isString(s []byte) bool {
	if c := s[0] | 0x20; c < 'a' || c > 'z' {
		return false
	}
	switch string(s) {
	case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
		"true", "True", "TRUE", "false", "False", "FALSE",
		"on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL":
		return false
	}
	return true
}

// isNumberlessString reports whether a plain scalar that starts with a
// digit is certainly a string in YAML 1.1 as the YAML library reads it:
// not a time (four digits and a dash first), not an integer with a base
// prefix, and either holding a character no number holds (a UID) or dots
// no number holds (an IP address). Most such values of a dump are unique,
// which the cache of resolved scalars cannot help with.
func isNumberlessString(s []byte) bool {
	if len(s) < 2 || s[0] < '0' || s[0] > '9' {
		return false
	}
	if len(s) > 4 && s[4] == '-' && bytes.IndexFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		return false
	}
	switch s[1] | 0x20 {
	case 'x', 'o', 'b':
		return false
	}
	dots := 0
	onlyDigitsAndDots := true
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
		case c == '.':
			dots++
		case c == '+' || c == '-' || c == '_' || c == 'e' || c == 'E':
			onlyDigitsAndDots = false
		default:
			return true
		}
	}
	return onlyDigitsAndDots && dots >= 2
}

// doubleQuoted reads a one-line double-quoted scalar with the escapes the
// YAML library writes; anything else is not read.
func doubleQuoted(s []byte) ([]byte, bool) {
	var out []byte
	i := 1
	for ; i < len(s) && s[i] != '"'; i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		i++
		if i >= len(s) {
			return nil, false
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			if i+n >= len(s) {
				return nil, false
			}
			r, err := strconv.ParseUint(string(s[i+1:i+1+n]), 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return nil, false
			}
			out = utf8.AppendRune(out, rune(r))
			i += n
		default:
			return nil, false
		}
	}
	if i >= len(s) || len(bytes.TrimRight(s[i+1:], " ")) > 0 || !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}

// singleQuoted reads a one-line single-quoted scalar.
func singleQuoted(s []byte) ([]byte, bool) {
	var out []byte
	i := 1
	for ; i < len(s); i++ {
		if s[i] == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				out = append(out, '\'')
				i++
				continue
			}
			break
		}
		out = append(out, s[i])
	}
	if i >= len(s) || len(bytes.TrimRight(s[i+1:], " ")) > 0 || !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}

// appendJSONString appends s, valid UTF-8, as a JSON string.
func appendJSONString(out, s []byte) []byte {
	out = append(out, '"')
	for _, b := range s {
		switch {
		case b == '"' || b == '\\':
			out = append(out, '\\', b)
		case b < 0x20:
			out = append(out, `\u00`...)
			out = append(out, "0123456789abcdef"[b>>4], "0123456789abcdef"[b&0xf])
		default:
			out = append(out, b)
		}
	}
	return append(out, '"')
}

// scalarCache holds the JSON of plain scalars as the YAML library resolves
// them: a dump repeats its quantities, ports and counts many times.
type scalarCache struct {
	m map[string][]byte
}

// maxCachedScalars bounds the cache: unique values (UIDs that start with a
// digit) are resolved each time once it is full.
const maxCachedScalars = 1 << 16

func (c *scalarCache) resolve(s []byte) ([]byte, bool) {
	if v, ok := c.m[string(s)]; ok {
		return v, v != nil
	}
	j, err := yaml.YAMLToJSON(append([]byte("v: "), s...))
	var v []byte
	if err == nil && bytes.HasPrefix(j, []byte(`{"v":`)) && bytes.HasSuffix(j, []byte("}")) {
		v = j[len(`{"v":`) : len(j)-1]
	}
	if c.m == nil {
		c.m = make(map[string][]byte)
	}
	if len(c.m) < maxCachedScalars {
		c.m[string(s)] = v
	}
	return v, v != nil
}
