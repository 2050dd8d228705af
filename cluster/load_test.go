package cluster

import (
	"strings"
	"testing"
)

const kubectlList = `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    managedFields:
    - manager: kubelet
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop}
  spec:
    nodeName: n1
    containers: [{name: web, image: web:1, resources: {requests: {cpu: 500m}}}]
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w}
`

func TestDecodeForms(t *testing.T) {
	tests := []struct {
		name        string
		input       string
		nodes, pods int
		pdbs        int
		ignored     string
	}{
		{name: "kubectl -o yaml List", input: kubectlList, nodes: 1, pods: 1, pdbs: 1, ignored: "1 Service, 1 Widget"},
		{
			name: "multi-document YAML with empty documents",
			input: "---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n",
			nodes: 1, pods: 1,
		},
		{
			name:  "JSON stream",
			input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}} {"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"}}`,
			nodes: 2,
		},
		{
			name:  "typed list whose items carry no kind",
			input: `{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a","namespace":"x"}},{"metadata":{"name":"b","namespace":"x"}}]}`,
			pods:  2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, ignored, err := Decode(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Nodes) != tt.nodes || len(objs.Pods) != tt.pods || len(objs.PDBs) != tt.pdbs {
				t.Errorf("decoded %d nodes, %d pods, %d PDBs; want %d, %d, %d", len(objs.Nodes), len(objs.Pods), len(objs.PDBs), tt.nodes, tt.pods, tt.pdbs)
			}
			if got := IgnoredSummary(ignored); got != tt.ignored {
				t.Errorf("ignored = %q, want %q", got, tt.ignored)
			}
			for _, n := range objs.Nodes {
				if n.ManagedFields != nil {
					t.Error("managedFields kept")
				}
			}
		})
	}
}

func TestDecodeErrorsNameTheDocument(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{
			name:  "second document is not YAML",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nkind: [unclosed\n",
			want:  "document 2: ",
		},
		{
			name:  "third document has no kind",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n---\nmetadata: {name: x}\n",
			want:  "document 3: object has no kind",
		},
		{
			name:  "a list item of the wrong shape",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: ok}\n- apiVersion: v1\n  kind: Pod\n  spec: {containers: 3}\n",
			want:  "document 1: item 1: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(tt.input))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Decode() error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}
