package cluster

import (
	"bytes"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// Splitting a List into items must decode exactly what converting the whole
// document decodes.
func TestSplitListDecodesLikeTheWholeDocument(t *testing.T) {
	example, err := os.ReadFile("../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	typed := "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a, namespace: x}\n  spec:\n    containers:\n    - name: c\n      image: i\n      command:\n      - |\n        echo one\n\n        echo two\n- metadata: {name: b, namespace: x}\nmetadata: {resourceVersion: \"1\"}\n"
	for name, doc := range map[string][]byte{"kubectl List": []byte(kubectlList), "example dump": example, "typed PodList": []byte(typed)} {
		t.Run(name, func(t *testing.T) {
			if _, ok := splitBlockList(doc); !ok {
				t.Fatal("the document was not split")
			}
			split, _, err := Decode(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			j, err := yaml.YAMLToJSON(doc)
			if err != nil {
				t.Fatal(err)
			}
			whole, _, err := Decode(bytes.NewReader(j))
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(split, whole) {
				t.Error("the split document decodes differently from the whole one")
			}
			if len(split.Pods) == 0 {
				t.Error("no pods decoded")
			}
		})
	}
}

func TestSplitBlockListLeavesOtherShapesWhole(t *testing.T) {
	for name, doc := range map[string]string{
		"flow style":        "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Node, metadata: {name: n}}]\n",
		"indented items":    "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n",
		"not a List":        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
		"top-level list":    "- a\n- b\n",
		"items twice":       "kind: List\nitems:\n- a: 1\nmetadata: {}\nitems:\n- b: 2\n",
		"item after a key":  "kind: List\nitems:\n- a: 1\nmetadata: {}\n- b: 2\n",
		"no items key":      "kind: List\nmetadata: {}\n",
		"multi-line string": "kind: List\nitems:\n- a: \"x\n y\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			list, ok := splitBlockList([]byte(doc))
			if ok {
				t.Errorf("split into %d items; want the document left whole", len(list.items))
			}
		})
	}
}

// BenchmarkDecodeDump decodes a kubectl-style YAML dump of 6,000 pods.
//
//	go test ./cluster -run '^$' -bench DecodeDump -benchmem
func BenchmarkDecodeDump(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 6000 {
		buf.WriteString("- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p" + itoa(i) + "\n    namespace: shop\n    labels:\n      app: web\n" +
			"  spec:\n    nodeName: n1\n    containers:\n    - name: web\n      image: registry.example/web:1\n      resources:\n        requests:\n          cpu: 100m\n          memory: 128Mi\n" +
			"  status:\n    phase: Running\n    conditions:\n    - type: Ready\n      status: \"True\"\n")
	}
	buf.WriteString("metadata:\n  resourceVersion: \"\"\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		objs, _, err := Decode(bytes.NewReader(data))
		if err != nil || len(objs.Pods) != 6000 {
			b.Fatalf("decoded %d pods: %v", len(objs.Pods), err)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
