package cluster

import (
	"encoding/json"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// yamlToJSON converts an object of a dump, refusing a key set twice in a
// map, as the API server and the policy loader do: YAML keeps only the
// last, so the object would not be what its file shows. A key that
// overrides one a merge (<<: *anchor) brought is no duplicate: YAML says
// it wins. itemKind is the kind of an item of a typed List (PodList),
// which leaves it off its items; "" elsewhere.
func yamlToJSON(data []byte, itemKind string) ([]byte, error) {
	if raw, ok := blockToJSON(data); ok {
		return raw, nil
	}
	raw, err := yaml.YAMLToJSONStrict(data)
	if err == nil || !strings.Contains(err.Error(), "already set in map") {
		return raw, err
	}
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil, err
	}
	whole, lerr := yaml.YAMLToJSON(data)
	var h typeHeader
	if lerr != nil || json.Unmarshal(whole, &h) != nil {
		return nil, err
	}
	// The kinds are read as the decoder reads them, from the header.
	if h.Kind == "" {
		h.Kind = itemKind
	}
	path, obj, kind := keptDuplicate(doc.Content[0], h)
	switch {
	case path == nil:
		return whole, nil
	case kind == "":
		// An object without a kind is refused for that first, as one
		// whose keys are all distinct is.
		return nil, errNoKind
	}
	if obj == nil {
		obj = whole
	}
	bad := newInvalidObject(obj, kind, nil)
	bad.errs = field.ErrorList{duplicate(path)}
	return nil, bad
}

// keptDuplicate returns the first key set twice in an object the snapshot
// keeps: its path in the object, the object when it is an item of a List
// (nil: the document), and the object's kind. An object of another kind
// is left out whatever its keys. In a List, each item counts by its own
// kind, or the List's (PodList).
func keptDuplicate(root *yamlv3.Node, h typeHeader) (path *field.Path, item json.RawMessage, kind string) {
	itemKind, isList := strings.CutSuffix(h.Kind, "List")
	if !isList {
		if h.Kind != "" && !readKinds[h.Kind] {
			return nil, nil, ""
		}
		return duplicateKey(root, nil), nil, h.Kind
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i].Value
		if seen[key] {
			return childPath(nil, key), nil, h.Kind
		}
		seen[key] = true
		if !strings.EqualFold(key, "items") || root.Content[i+1].Kind != yamlv3.SequenceNode {
			continue
		}
		for j, it := range root.Content[i+1].Content {
			if j >= len(h.Items) {
				break
			}
			var k struct{ Kind string }
			_ = json.Unmarshal(h.Items[j], &k)
			if k.Kind == "" {
				k.Kind = itemKind
			}
			if k.Kind != "" && !readKinds[k.Kind] {
				continue
			}
			if p := duplicateKey(it, nil); p != nil {
				return p, h.Items[j], k.Kind
			}
		}
	}
	return nil, nil, ""
}

func duplicate(path *field.Path) *field.Error {
	return field.Invalid(path, field.OmitValueType{}, "the key is set twice in the object, and only the last would count")
}

// duplicateKey returns the path of the first key set twice in a map under
// n, or nil. Aliases are not followed: what they refer to is checked where
// it is written.
func duplicateKey(n *yamlv3.Node, path *field.Path) *field.Path {
	switch n.Kind {
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			at := field.NewPath("").Index(i)
			if path != nil {
				at = path.Index(i)
			}
			if p := duplicateKey(c, at); p != nil {
				return p
			}
		}
	case yamlv3.MappingNode:
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			at := childPath(path, key)
			if key != "<<" && seen[key] {
				return at
			}
			seen[key] = true
			if p := duplicateKey(n.Content[i+1], at); p != nil {
				return p
			}
		}
	}
	return nil
}

// isUnknownAnchor reports whether err is the converter's refusal of an
// alias whose anchor is not in what it converted: an item of a List that
// refers to an anchor of an earlier item, which the whole List resolves.
func isUnknownAnchor(err error) bool {
	return strings.Contains(err.Error(), "unknown anchor")
}
