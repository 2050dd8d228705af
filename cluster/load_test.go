package cluster

import (
	"errors"
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
			name:  "a list item of the wrong shape, with no name",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: ok}\n- apiVersion: v1\n  kind: Pod\n  spec: {containers: 3}\n",
			want:  "document 1: item 1: Pod: spec.containers: Invalid value: 3: must be a list",
		},
		{
			// As kubectl's YAML reader: "---" then text is no separator,
			// and nothing after it is read.
			name:  "a line that starts like a separator",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---0\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\n",
			want:  "document 1: invalid Yaml document separator: 0",
		},
		{
			name:  "a bad separator after a List streamed item by item",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n--- x\n",
			want:  "document 1: invalid Yaml document separator: x",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(tt.input))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Decode() error = %v, want prefix %q", err, tt.want)
			}
			// Bad content is told apart from a stream that cannot be read.
			var bad *InvalidObjectsError
			if !errors.As(err, &bad) {
				t.Errorf("Decode() error is a %T, want an *InvalidObjectsError", err)
			}
		})
	}
}

// A dump edited by hand is refused with every object that does not decode,
// each named as kubectl names it, with each field as kube-apiserver names
// it, so that one attempt shows all there is to fix.
func TestDecodeNamesEveryBadObjectAndField(t *testing.T) {
	node := "- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: \"4\"}}\n"
	pod := func(name, spec string) string {
		return "- apiVersion: v1\n  kind: Pod\n  metadata: {name: " + name + ", namespace: default}\n  spec: " + spec + "\n"
	}
	list := func(items ...string) string {
		return "apiVersion: v1\nkind: List\nitems:\n" + strings.Join(items, "")
	}
	var many []string
	for i := range 25 {
		many = append(many, pod("web-"+itoa(i), "{priority: high}"))
	}
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{
			name:  "a request that is not a quantity",
			input: list(node, pod("web-1", "{containers: [{name: web, resources: {requests: {cpu: abc}}}]}")),
			want: []string{`Pod default/web-1: spec.containers[0].resources.requests.cpu: Invalid value: "abc": ` +
				`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		},
		{
			name: "every field of every object, and the quantities of those that decode",
			input: list(node,
				pod("web-1", "{priority: high, containers: [{name: web, ports: [{containerPort: 80x}]}]}"),
				pod("web-2", "{containers: [{name: web, resources: {limits: {memory: -1Gi}}}]}"),
				"- apiVersion: v1\n  kind: Node\n  metadata: {name: n2, creationTimestamp: yesterday}\n  spec: {unschedulable: maybe}\n"),
			want: []string{
				`Pod default/web-1: spec.containers[0].ports[0].containerPort: Invalid value: "80x": must be a whole number from -2147483648 to 2147483647`,
				`Pod default/web-1: spec.priority: Invalid value: "high": must be a whole number from -2147483648 to 2147483647`,
				`Node n2: metadata.creationTimestamp: Invalid value: "yesterday": must be an RFC 3339 time such as 2026-11-20T12:00:00Z`,
				`Node n2: spec.unschedulable: Invalid value: "maybe": must be true or false`,
				`Pod default/web-2: spec.containers[0].resources.limits.memory: Invalid value: "-1Gi": must be greater than or equal to 0`,
			},
		},
		{
			name:  "the first twenty objects, then a count",
			input: list(many...),
			want: func() []string {
				var lines []string
				for i := range 20 {
					lines = append(lines, `Pod default/web-`+itoa(i)+`: spec.priority: Invalid value: "high": must be a whole number from -2147483648 to 2147483647`)
				}
				return append(lines, "and 5 more objects with problems")
			}(),
		},
		{
			name:  "a document that is not YAML does not hide the next one's problems",
			input: "kind: [unclosed\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: default}\nspec: {nodeName: [n1]}\n",
			want: []string{
				"document 1: yaml: line 1: did not find expected ',' or ']'",
				`Pod default/web-1: spec.nodeName: Invalid value: ["n1"]: must be a string`,
			},
		},
		{
			name:  "a JSON stream",
			input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":1}}} {"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"a","namespace":"x"},"spec":{"tolerations":{}}}]}`,
			want: []string{
				`Node n1: metadata.labels[zone]: Invalid value: 1: must be a string`,
				`Pod x/a: spec.tolerations: Invalid value: {}: must be a list`,
			},
		},
		{
			name:  "an object of a kind a snapshot reads that does not say its apiVersion",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nkind: Pod\nmetadata: {name: web-1, namespace: default}\n",
			want:  []string{"Pod default/web-1: apiVersion: Required value: a Pod is v1"},
		},
		{
			name:  "a kind that is not a string",
			input: "apiVersion: v1\nkind: 5\n",
			want:  []string{"document 1: kind: Invalid value: 5: must be a string"},
		},
		{
			name:  "a document that is not an object",
			input: "just words\n",
			want:  []string{"document 1: not an object: a Kubernetes object or a List is expected"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(tt.input))
			if err == nil {
				t.Fatal("Decode() accepted the dump")
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Decode() error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
