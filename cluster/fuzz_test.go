package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A problem names the object, by kind and name, with the field that is
// wrong; an object without a name, or what is no object at all, by where it
// is in the file.
var (
	// A field's path starts with whatever a key may be: "8.e" too.
	namedProblem  = regexp.MustCompile(`^(?:[A-Z][A-Za-z]* .*|document \d+(?:: item \d+)?: [A-Z][A-Za-z]*): [^\s:].*: (?:Invalid|Required) value`)
	placedProblem = regexp.MustCompile(`^document \d+(?:: item \d+)?: `)
	moreProblems  = regexp.MustCompile(`^and \d+ more objects with problems$`)
	// placedObject is an object of a kind the snapshot reads, with no name.
	placedObject = regexp.MustCompile(`^document \d+(?:: item \d+)?: [A-Z][A-Za-z]*: `)
)

// FuzzDecode checks that no dump makes Decode (or building a snapshot of
// what it decoded) panic, and that every problem it reports names an
// object and, for an object of a kind the snapshot reads, the field.
func FuzzDecode(f *testing.F) {
	for _, seed := range exampleSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte(kubectlList))
	f.Add([]byte(`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a","namespace":"x"},"spec":{"priority":"high"}}]}`))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {containers: [{name: c, resources: {requests: {cpu: abc}}}]}\n---\nkind: [\n"))
	f.Add([]byte("kind: Pod\nmetadata: {name: p, namespace: shop}\n"))
	f.Add([]byte("apiVersion: v2\nkind: Pod\nmetadata: {namespace: shop}\nspec: {containers: [null], tolerations: [{effect: Never}]}\n"))
	f.Add([]byte("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p, namespace: shop, name: q}\nspec: {maxUnavailable: abc}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","name":"n2"},"spec":{"taints":[{"key":"a","effect":"Bogus"}]}}`))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1, labels: &l {zone: a}}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2, labels: *l}\n"))
	f.Add([]byte("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    <<: {zone: a, pool: p}\n    zone: b\n"))
	// A JSON List's items are told apart by their brackets: one that is
	// not valid JSON, and brackets and quotes inside strings.
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod",}]}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","labels":{"x":"}]\\\"{["}}} , {"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, ignored, err := decode(bytes.NewReader(data), 1)
		// Items decoded by workers give what one goroutine gives.
		parallel, parallelIgnored, parallelErr := decode(bytes.NewReader(data), 3)
		if fmt.Sprint(parallelErr) != fmt.Sprint(err) || !reflect.DeepEqual(parallel, objs) || !reflect.DeepEqual(parallelIgnored, ignored) {
			t.Fatalf("decoded by workers: %v; in order: %v", parallelErr, err)
		}
		if err == nil {
			_, _ = New(objs, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
			return
		}
		var bad *InvalidObjectsError
		if !errors.As(err, &bad) || len(bad.Problems) == 0 {
			t.Fatalf("Decode() error %T %q is not an *InvalidObjectsError with problems", err, err)
		}
		for _, p := range bad.Problems {
			if !namedProblem.MatchString(p) && !placedProblem.MatchString(p) && !moreProblems.MatchString(p) {
				t.Errorf("problem %q names neither an object nor where it is", p)
			}
			if placedObject.MatchString(p) && !namedProblem.MatchString(p) {
				t.Errorf("problem %q of an object of a kind the snapshot reads names no field", p)
			}
		}
	})
}

// exampleSeeds are small dumps cut from examples/cluster.yaml, one object
// of each kind it holds, each a List as kubectl writes it.
func exampleSeeds(f *testing.F) [][]byte {
	data, err := os.ReadFile("../examples/cluster.yaml")
	if err != nil {
		f.Fatal(err)
	}
	list, ok := splitBlockList(data)
	if !ok {
		f.Fatal("examples/cluster.yaml is not a List as kubectl writes it")
	}
	seen := map[string]bool{}
	var seeds [][]byte
	for _, item := range list.items {
		kind := kindOf(item)
		if seen[kind] {
			continue
		}
		seen[kind] = true
		var b bytes.Buffer
		b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
		for i, line := range strings.SplitAfter(string(item), "\n") {
			if line == "" {
				continue
			}
			if i == 0 {
				b.WriteString("- " + line)
			} else {
				b.WriteString("  " + line)
			}
		}
		seeds = append(seeds, b.Bytes())
	}
	if len(seeds) < 3 {
		f.Fatalf("examples/cluster.yaml gave %d seeds; want one per kind it holds", len(seeds))
	}
	return seeds
}

func kindOf(item []byte) string {
	for _, line := range strings.Split(string(item), "\n") {
		if k, ok := strings.CutPrefix(line, "kind: "); ok {
			return k
		}
	}
	return ""
}
