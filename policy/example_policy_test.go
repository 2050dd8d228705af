package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// examplePolicy is the policy that shows users every setting.
const examplePolicy = "../examples/policy.yaml"

// TestExamplePolicy keeps examples/policy.yaml the reference it claims to
// be: it loads, it names every field of the RebalancePolicy type (a field
// set in it, or mentioned in a comment next to it: "or include: [...]",
// "with configFile: FILE"), it names no field that does not exist, and each
// global setting's line comment states the default, which must be what Load
// fills in. The strategies' arguments and defaults are docs/strategies.md's.
func TestExamplePolicy(t *testing.T) {
	if _, err := policy.LoadFile(examplePolicy); err != nil {
		t.Fatalf("examples/policy.yaml does not load: %v", err)
	}
	fields := policyFields(reflect.TypeFor[policy.RebalancePolicy](), "", map[reflect.Type]bool{})
	ex := readExample(t)

	t.Run("names every field", func(t *testing.T) {
		for _, f := range fields.all {
			if !ex.named[f] {
				t.Errorf("%s: not in examples/policy.yaml; set it, or mention it in a comment next to its alternative (\"or %s: ...\")", f, last(f))
			}
		}
		for f := range ex.named {
			if !slices.Contains(fields.all, f) {
				t.Errorf("%s: examples/policy.yaml names it, but a RebalancePolicy has no such field", f)
			}
		}
	})

	t.Run("states the defaults", func(t *testing.T) {
		empty := loadedJSON(t, minimalPolicy(""))
		for _, k := range ex.keys {
			if strings.HasPrefix(k.path, "overrides") || strings.HasPrefix(k.path, "strategies") || k.path == "apiVersion" || k.path == "kind" {
				continue
			}
			if k.def == "" {
				if !fields.container[k.path] && !ex.unsetAncestor(k.path) {
					t.Errorf("%s: its line comment states no default (\"; default: V\")", k.path)
				}
				continue
			}
			if k.def == "unset" {
				if v, ok := lookup(empty, k.path); ok {
					t.Errorf("%s: the comment says the default is unset, but a policy without it loads with %v", k.path, v)
				}
				continue
			}
			with := loadedJSON(t, minimalPolicy(nested(k.path, k.def)))
			if !reflect.DeepEqual(with, empty) {
				v, ok := lookup(empty, k.path)
				if !ok {
					v = "it unset"
				}
				t.Errorf("%s: the comment says the default is %s, but a policy without it loads with %v", k.path, k.def, v)
			}
		}
	})
}

// fieldSet is the field paths of the policy type ("limits.perNode"; a
// list's elements have the list's path), and which of them hold fields of
// their own.
type fieldSet struct {
	all       []string
	container map[string]bool
}

// policyFields walks the JSON fields of t. It descends into the structs of
// package policy only: a label selector or a strategy's arguments are
// documented where their types are. A struct met twice (an override's
// evictable) has its fields named once, at the first place.
func policyFields(t reflect.Type, prefix string, seen map[reflect.Type]bool) fieldSet {
	out := fieldSet{container: map[string]bool{}}
	seen[t] = true
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		out.all = append(out.all, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || ft.PkgPath() != t.PkgPath() || ft == reflect.TypeFor[policy.Strategies]() || seen[ft] {
			continue
		}
		out.container[path] = true
		sub := policyFields(ft, path, seen)
		out.all = append(out.all, sub.all...)
		for p := range sub.container {
			out.container[p] = true
		}
	}
	return out
}

// example is what examples/policy.yaml sets and says.
type example struct {
	// keys are the settings present, in the file's order.
	keys []exampleKey
	// named holds the field paths present or mentioned in a comment.
	named map[string]bool
}

type exampleKey struct {
	path string
	// def is the default the line comment states: "" for none, "unset",
	// or a value.
	def string
}

var (
	// defaultRe finds "default: V" in a line comment; V is "unset" or one
	// YAML scalar.
	defaultRe = regexp.MustCompile(`\bdefault: ([^\s,;]+)`)
	// mentionRe finds a field named in a comment, as an alternative ("or
	// include: [...]") or a companion ("with configFile: FILE") of the
	// setting.
	mentionRe = regexp.MustCompile(`\b(?:or|with) ([a-z][A-Za-z]*):`)
)

func readExample(t *testing.T) example {
	t.Helper()
	data, err := os.ReadFile(examplePolicy)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	ex := example{named: map[string]bool{}}
	fields := policyFields(reflect.TypeFor[policy.RebalancePolicy](), "", map[reflect.Type]bool{})
	ex.walk(doc.Content[0], "", fields)
	return ex
}

// walk records the keys of a mapping at path and descends into the ones
// that are policy structs; a list's items share the list's path. A field
// mentioned in a key's comments is the key's child when the key holds such
// a field, else its sibling.
func (ex *example) walk(n *yaml.Node, path string, fields fieldSet) {
	if n.Kind == yaml.SequenceNode {
		for _, item := range n.Content {
			ex.walk(item, path, fields)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		p := join(path, key.Value)
		ex.named[p] = true
		k := exampleKey{path: p}
		if m := defaultRe.FindStringSubmatch(key.LineComment + "\n" + value.LineComment); m != nil {
			k.def = m[1]
		}
		ex.keys = append(ex.keys, k)
		for _, c := range []string{key.HeadComment, key.LineComment, value.LineComment} {
			for _, m := range mentionRe.FindAllStringSubmatch(c, -1) {
				named := join(path, m[1])
				if child := join(p, m[1]); fields.container[p] && slices.Contains(fields.all, child) {
					named = child
				}
				ex.named[named] = true
			}
		}
		if fields.container[p] {
			ex.walk(value, p, fields)
		}
	}
}

// unsetAncestor reports whether a mapping that holds path is, by its
// comment, unset by default: its fields then have no default of their own.
func (ex *example) unsetAncestor(path string) bool {
	for _, k := range ex.keys {
		if k.def == "unset" && strings.HasPrefix(path, k.path+".") {
			return true
		}
	}
	return false
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func last(path string) string { return path[strings.LastIndex(path, ".")+1:] }

// nested writes one setting at a dotted path as block YAML.
func nested(path, value string) string {
	var b strings.Builder
	for i, name := range strings.Split(path, ".") {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s%s:", strings.Repeat("  ", i), name)
	}
	b.WriteString(" " + value + "\n")
	return b.String()
}

func minimalPolicy(settings string) string {
	return "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n" + settings
}

// loadedJSON loads a policy and returns the document with its defaults as
// JSON values.
func loadedJSON(t *testing.T, doc string) map[string]any {
	t.Helper()
	p, err := policy.Load([]byte(doc), "policy.yaml")
	if err != nil {
		t.Fatalf("%s\n%v", doc, err)
	}
	b, err := json.Marshal(p.RebalancePolicy)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// lookup returns the value at a dotted path of decoded JSON.
func lookup(doc map[string]any, path string) (any, bool) {
	var v any = doc
	for _, name := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}
