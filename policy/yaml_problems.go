package policy

import (
	"math"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// yamlProblem words an error converting the policy's YAML to JSON. The
// converter's own words for a value JSON cannot hold (.inf, .nan) name no
// field: the field is found in the YAML.
func yamlProblem(data []byte, err error) string {
	if !strings.Contains(err.Error(), "unsupported value") {
		return err.Error()
	}
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return err.Error()
	}
	if path, value, ok := nonFinite(doc.Content[0], nil); ok {
		return describe(field.Invalid(path, value, "is not a finite number"))
	}
	return err.Error()
}

// nonFinite finds the first value under n that YAML reads as an infinite
// or not-a-number float, with its path.
func nonFinite(n *yamlv3.Node, path *field.Path) (*field.Path, string, bool) {
	switch n.Kind {
	case yamlv3.AliasNode:
		return nonFinite(n.Alias, path)
	case yamlv3.DocumentNode, yamlv3.SequenceNode:
		for i, c := range n.Content {
			at := path
			if n.Kind == yamlv3.SequenceNode {
				at = indexOf(path, i)
			}
			if p, v, ok := nonFinite(c, at); ok {
				return p, v, true
			}
		}
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if p, v, ok := nonFinite(n.Content[i+1], childOf(path, n.Content[i].Value)); ok {
				return p, v, true
			}
		}
	case yamlv3.ScalarNode:
		if n.ShortTag() != "!!float" {
			return nil, "", false
		}
		f, err := strconv.ParseFloat(strings.TrimPrefix(strings.ToLower(n.Value), "."), 64)
		if err != nil {
			// YAML's own spellings: .inf, -.Inf, .NaN.
			switch strings.ToLower(strings.TrimLeft(n.Value, "+-.")) {
			case "inf", "nan":
				return path, n.Value, true
			}
			return nil, "", false
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return path, n.Value, true
		}
	}
	return nil, "", false
}

func childOf(path *field.Path, key string) *field.Path {
	if path == nil {
		return field.NewPath(key)
	}
	return path.Child(key)
}

func indexOf(path *field.Path, i int) *field.Path {
	if path == nil {
		return field.NewPath("").Index(i)
	}
	return path.Index(i)
}
