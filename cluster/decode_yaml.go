package cluster

import (
	"encoding/json"
	"errors"
	"strconv"
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
	raw, err := yaml.YAMLToJSONStrict(data)
	if err == nil || !strings.Contains(err.Error(), "already set in map") {
		return raw, err
	}
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil, err
	}
	path := keptDuplicate(doc.Content[0], itemKind)
	if path == nil {
		return yaml.YAMLToJSON(data)
	}
	return duplicateKeyError(data, path, itemKind)
}

// keptDuplicate returns the path of the first key set twice in an object
// the snapshot keeps, or nil: an object of another kind is left out
// whatever its keys. In a List, that is each item by its own kind, or the
// List's.
func keptDuplicate(root *yamlv3.Node, ofList string) *field.Path {
	kind := scalarOf(root, "kind")
	if kind == "" {
		kind = ofList
	}
	itemKind, isList := strings.CutSuffix(kind, "List")
	if !isList {
		if kind != "" && !readKinds[kind] {
			return nil
		}
		return duplicateKey(root, nil)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i].Value
		if seen[key] {
			return field.NewPath(key)
		}
		seen[key] = true
		if key != "items" || root.Content[i+1].Kind != yamlv3.SequenceNode {
			continue
		}
		for j, it := range root.Content[i+1].Content {
			k := scalarOf(it, "kind")
			if k == "" {
				k = itemKind
			}
			if k != "" && !readKinds[k] {
				continue
			}
			if p := duplicateKey(it, field.NewPath("items").Index(j)); p != nil {
				return p
			}
		}
	}
	return nil
}

// scalarOf returns the value of a map's key, "" when n is no map or the
// key is not a plain value.
func scalarOf(n *yamlv3.Node, key string) string {
	if n.Kind != yamlv3.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i+1].Kind == yamlv3.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// duplicateKeyError names the object and the path of its first key set
// twice; the converter names only a line of the item.
func duplicateKeyError(data []byte, path *field.Path, ofList string) ([]byte, error) {
	raw, err := yaml.YAMLToJSON(data)
	var h typeHeader
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return nil, errors.New(duplicate(path).Error())
	}
	if h.Kind == "" {
		h.Kind = ofList
	}
	// In a List read whole, the object is the item.
	if i, rest, ok := itemOf(path); ok && strings.HasSuffix(h.Kind, "List") && i < len(h.Items) {
		var item struct{ Kind string }
		if json.Unmarshal(h.Items[i], &item) == nil {
			if item.Kind == "" {
				item.Kind = strings.TrimSuffix(h.Kind, "List")
			}
			raw, h.Kind, path = h.Items[i], item.Kind, rest
		}
	}
	if h.Kind == "" {
		// An object without a kind is refused for that first, as one
		// whose keys are all distinct is.
		return nil, errNoKind
	}
	bad := newInvalidObject(raw, h.Kind, nil)
	bad.errs = field.ErrorList{duplicate(path)}
	return nil, bad
}

func duplicate(path *field.Path) *field.Error {
	return field.Invalid(path, field.OmitValueType{}, "the key is set twice in the object, and only the last would count")
}

// itemOf splits "items[3].metadata.name" into 3 and "metadata.name".
func itemOf(path *field.Path) (int, *field.Path, bool) {
	s := path.String()
	rest, ok := strings.CutPrefix(s, "items[")
	if !ok {
		return 0, nil, false
	}
	num, rest, ok := strings.Cut(rest, "]")
	i, err := strconv.Atoi(num)
	if !ok || err != nil || !strings.HasPrefix(rest, ".") {
		return 0, nil, false
	}
	parts := strings.Split(rest[1:], ".")
	return i, field.NewPath(parts[0], parts[1:]...), true
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
			at := field.NewPath(key)
			if path != nil {
				at = path.Child(key)
			}
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
