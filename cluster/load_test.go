package cluster

import (
	"errors"
	"reflect"
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
			name:  "a document with no kind sets a key twice",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nA:\n- 0\nA: 0\n",
			want:  "document 2: object has no kind",
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
		{
			// The items are told apart by their brackets; the second is
			// YAML's flow style, which a JSON document may not hold.
			name:  "a JSON List with an item that is not JSON",
			input: `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}},{apiVersion: v1, kind: Node, metadata: {name: n2}}]}`,
			want:  "document 1: invalid character 'a' looking for beginning of object key string",
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
	testRefusedDumps(t, tests)
}

// What kube-apiserver would refuse in an object of a dump is refused, each
// problem naming the object (or where it is, without a name) and the field,
// rather than planned as something the file does not say.
func TestDecodeRefusesWhatTheAPIServerWould(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{
			name:  "a pod without a name",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {namespace: shop}\n  spec: {containers: [{name: web}]}\n",
			want:  []string{"document 1: item 0: Pod: metadata.name: Required value: every object of a dump has a name"},
		},
		{
			name:  "a Pod of an API version there is none of",
			input: "apiVersion: v2\nkind: Pod\nmetadata: {name: web-1, namespace: shop}\n",
			want:  []string{`Pod shop/web-1: apiVersion: Invalid value: "v2": a Pod of a dump is read as v1`},
		},
		{
			name:  "a PodDisruptionBudget of a version the API server no longer serves",
			input: "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec: {minAvailable: 1}\n",
			want:  []string{`PodDisruptionBudget shop/web: apiVersion: Invalid value: "policy/v1beta1": a PodDisruptionBudget of a dump is read as policy/v1`},
		},
		{
			name:  "a HorizontalPodAutoscaler of a version the API server no longer serves",
			input: "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5}\n",
			want:  []string{`HorizontalPodAutoscaler shop/web: apiVersion: Invalid value: "autoscaling/v2beta2": a HorizontalPodAutoscaler of a dump is read as autoscaling/v2 or autoscaling/v1`},
		},
		{
			name:  "a HorizontalPodAutoscaler without an apiVersion",
			input: "kind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: shop}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5}\n",
			want:  []string{`HorizontalPodAutoscaler shop/web: apiVersion: Required value: a HorizontalPodAutoscaler is autoscaling/v2 or autoscaling/v1`},
		},
		{
			name:  "maxUnavailable that is neither a number nor a percentage",
			input: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec: {maxUnavailable: abc}\n",
			want:  []string{`PodDisruptionBudget shop/web: spec.maxUnavailable: Invalid value: "abc": must be a whole number or a percentage from 0% to 100%, such as 1 or 25%`},
		},
		{
			name:  "a negative count and a negative or fractional percentage",
			input: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: a, namespace: shop}\nspec: {minAvailable: -1}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: shop}\nspec: {maxUnavailable: -5%}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: c, namespace: shop}\nspec: {maxUnavailable: 2.5%}\n",
			want: []string{
				`PodDisruptionBudget shop/a: spec.minAvailable: Invalid value: -1: must be greater than or equal to 0`,
				`PodDisruptionBudget shop/b: spec.maxUnavailable: Invalid value: "-5%": must be a whole number or a percentage from 0% to 100%, such as 1 or 25%`,
				`PodDisruptionBudget shop/c: spec.maxUnavailable: Invalid value: "2.5%": must be a whole number or a percentage from 0% to 100%, such as 1 or 25%`,
			},
		},
		{
			name:  "minAvailable above 100%, and maxUnavailable beside it",
			input: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec: {minAvailable: 150%, maxUnavailable: 1}\n",
			want: []string{
				`PodDisruptionBudget shop/web: spec.minAvailable: Invalid value: "150%": must be a whole number or a percentage from 0% to 100%, such as 1 or 25%`,
				`PodDisruptionBudget shop/web: spec: Invalid value: "minAvailable and maxUnavailable": set one of minAvailable and maxUnavailable, not both`,
			},
		},
		{
			name:  "containers null",
			input: "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop}\nspec: {containers: null}\n",
			want:  []string{`Pod shop/web-1: spec.containers: Invalid value: null: must be the list of the pod's containers`},
		},
		{
			name:  "a container that is null",
			input: "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop}\nspec: {containers: [{name: web}, null]}\n",
			want:  []string{`Pod shop/web-1: spec.containers[1].name: Required value: every container has a name`},
		},
		{
			name:  "a taint and a toleration of an effect there is none of",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: dedicated, effect: NoScheduleAtAll}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop}\nspec: {containers: [{name: web}], tolerations: [{key: dedicated, effect: Never}]}\n",
			want: []string{
				`Node n1: spec.taints[0].effect: Invalid value: "NoScheduleAtAll": must be NoSchedule, PreferNoSchedule or NoExecute`,
				`Pod shop/web-1: spec.tolerations[0].effect: Invalid value: "Never": must be NoSchedule, PreferNoSchedule or NoExecute`,
			},
		},
		{
			name:  "a key set twice in a List's item",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web-1\n    namespace: shop\n    name: web-2\n  spec: {containers: [{name: web}]}\n",
			want:  []string{"Pod shop/web-2: metadata.name: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice in a document",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a, zone: b}}\n",
			want:  []string{"Node n1: metadata.labels.zone: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice under a key that is no field name, in JSON",
			input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"my labels":{"a":"1","a":"2"}}`,
			want:  []string{"Node n1: [my labels].a: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice under a key that is no field name, in YAML",
			input: "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n\"my labels\": {a: 1, a: 2}\n",
			want:  []string{"Node n1: [my labels].a: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice in an item of a typed List, whose items leave out their kind",
			input: "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: web-1, namespace: shop, name: web-2}\n  spec: {containers: [{name: web}]}\n",
			want:  []string{"Pod shop/web-2: metadata.name: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice in a List's item of a kind the snapshot leaves out, then in a Node",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w1, name: w2}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1, name: n2}\n",
			want:  []string{"Node n2: metadata.name: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice in a List itself",
			input: "apiVersion: v1\nkind: List\nitems: []\nitems: []\n",
			want:  []string{"document 1: List: items: Invalid value: the key is set twice in the object, and only the last would count"},
		},
		{
			name:  "a key set twice in an item of a List that shares anchors",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1, labels: &l {zone: a}}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2, labels: *l, name: n3}\n",
			want:  []string{"Node n3: metadata.name: Invalid value: the key is set twice in the object, and only the last would count"},
		},
	}
	testRefusedDumps(t, tests)
}

// An object of a kind the snapshot leaves out is left out whatever its
// keys, as it is in a JSON dump.
func TestDecodeLeavesOutAKindItDoesNotKeepWhateverItsKeys(t *testing.T) {
	for _, input := range []string{
		"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, name: w2}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w1, name: w2}\n",
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}` + "\n" + `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","name":"w2"}}`,
	} {
		objs, _, err := Decode(strings.NewReader(input))
		if err != nil || len(objs.Nodes) != 1 {
			t.Errorf("Decode(%q) = %d nodes, %v; want the node alone", input, len(objs.Nodes), err)
		}
	}
}

// Anchors and aliases mean in a dump what YAML says, across the items of
// a List too: kubectl never writes them, but a dump edited by hand may.
func TestDecodeAnchorsAcrossListItems(t *testing.T) {
	node := func(name, labels string) string {
		return "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: " + name + "\n    labels: " + labels + "\n  status:\n    allocatable: {cpu: \"4\"}\n"
	}
	tests := []struct {
		name  string
		input string
	}{
		{name: "a List as kubectl writes it, read item by item",
			input: "apiVersion: v1\nkind: List\nitems:\n" + node("n1", "&zone {topology.kubernetes.io/zone: a}") + node("n2", "*zone")},
		{name: "a List read whole, after another document",
			input: "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\nitems:\n" + node("n1", "&zone {topology.kubernetes.io/zone: a}") + node("n2", "*zone") + "kind: List\napiVersion: v1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, _, err := Decode(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Nodes) != 2 {
				t.Fatalf("decoded %d nodes, want 2", len(objs.Nodes))
			}
			for _, n := range objs.Nodes {
				if got := n.Labels["topology.kubernetes.io/zone"]; got != "a" {
					t.Errorf("node %s: zone = %q, want a", n.Name, got)
				}
			}
		})
	}
}

func TestDecodeRefusesAKeySetTwiceInJSON(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{name: "in metadata", input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","name":"n2"}}`,
			want: "Node n2: metadata.name: Invalid value: the key is set twice in the object, and only the last would count"},
		{name: "in a List's item, deep in a list", input: `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"x"},"spec":{"containers":[{"name":"c","image":"i"},{"name":"d","resources":{"requests":{"cpu":"1","cpu":"2"}}}]}}]}`,
			want: "Pod x/a: spec.containers[1].resources.requests.cpu: Invalid value: the key is set twice in the object, and only the last would count"},
		{name: "after a value that ends in a backslash", input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","annotations":{"y":"x\\","y":"z"}}}`,
			want: "Node n1: metadata.annotations.y: Invalid value: the key is set twice in the object, and only the last would count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode(strings.NewReader(tt.input))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Decode() error = %v, want %q", err, tt.want)
			}
		})
	}
	// Keys that look alike in strings and lists are no keys.
	ok := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"name","b":"{\"name\":1,\"name\":2}"},"annotations":{"x":"[\"a\",\"a\"]","y":"ends in a backslash\\","name":"z"}}}`
	if _, _, err := Decode(strings.NewReader(ok)); err != nil {
		t.Fatal(err)
	}
}

// A key beside a merge (<<: *anchor) overrides the merged one, as YAML
// says: it is no key set twice.
func TestDecodeMergeKeysOverride(t *testing.T) {
	input := "apiVersion: v1\nkind: List\nitems:\n" +
		"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels: &base\n      zone: a\n      pool: general\n" +
		"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n2\n    labels:\n      <<: *base\n      zone: b\n"
	objs, _, err := Decode(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range objs.Nodes {
		got[n.Name] = n.Labels["zone"] + "/" + n.Labels["pool"]
	}
	if want := map[string]string{"n1": "a/general", "n2": "b/general"}; !reflect.DeepEqual(got, want) {
		t.Errorf("zone/pool of the nodes = %v, want %v", got, want)
	}
}

// testRefusedDumps requires Decode to refuse each input with exactly the
// problems listed, one a line.
func testRefusedDumps(t *testing.T, tests []struct {
	name  string
	input string
	want  []string
}) {
	t.Helper()
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
