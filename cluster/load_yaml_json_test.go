package cluster

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// kubectlItems are items as kubectl prints them, with the shapes of YAML
// it writes: nested mappings, sequences of mappings and of scalars at the
// key's indentation, quoted and plain scalars that are strings, numbers,
// booleans and nulls, literal blocks, and managedFields' keys.
var kubectlItems = []string{
	"apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    note: \"a \\\"quoted\\\" value: with a colon\"\n    single: 'it''s'\n  creationTimestamp: \"2026-11-01T08:00:00Z\"\n  labels:\n    app: web\n    version: \"1.0\"\n  name: web-1\n  uid: 0a1b2c3d-0000-0000-0000-000000000001\nspec:\n  containers:\n  - args:\n    - --port=8080\n    - -v\n    command:\n    - sh\n    - -c\n    - |\n      echo one\n\n      echo two\n    image: web:1\n    name: web\n    ports:\n    - containerPort: 8080\n      protocol: TCP\n    resources:\n      limits:\n        memory: 1Gi\n      requests:\n        cpu: 100m\n        memory: \"134217728\"\n  enableServiceLinks: true\n  priority: -10\n  terminationGracePeriodSeconds: 30\n  tolerations:\n  - effect: NoExecute\n    key: node.kubernetes.io/not-ready\n    operator: Exists\n    tolerationSeconds: 300\nstatus:\n  conditions:\n  - lastProbeTime: null\n    status: \"True\"\n    type: Ready\n  phase: Running\n",
	"hostIP: 10.0.12.7\nuid: 2494b376-0000-4000-8000-00002494b376\nversion: 1.2.3\nids:\n- 1a\n- 9z-1\n- 1e3\n- 1.5\n- 12_0\n- 0x1f\n- 2026-11-01\n- 1e3.4.5\n- 1.2.3.4\n- 0.0.1e3\n",
	"apiVersion: v1\nkind: Node\nmetadata:\n  managedFields:\n  - apiVersion: v1\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:metadata:\n        f:labels:\n          .: {}\n          f:app: {}\n      f:status:\n        f:conditions:\n          k:{\"type\":\"Ready\"}:\n            .: {}\n    manager: kubelet\n    operation: Update\n    time: \"2026-11-01T08:00:00Z\"\n  name: n1\nspec:\n  taints: []\n  unschedulable: false\nstatus:\n  allocatable:\n    cpu: \"4\"\n    memory: 8Gi\n    pods: \"110\"\n  images:\n  - names:\n    - registry.example/web@sha256:0123\n    - registry.example/web:1\n    sizeBytes: 123456789\n  message: |-\n    no trailing line break\n",
}

// The converter must give what the YAML library gives for every item of
// the example dump and the items above, without leaving them to it.
func TestBlockYAMLToJSONConvertsAsTheYAMLLibrary(t *testing.T) {
	example, err := os.ReadFile("../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	list, ok := splitBlockList(example)
	if !ok {
		t.Fatal("examples/cluster.yaml is not a List as kubectl writes it")
	}
	items := list.items
	for _, it := range kubectlItems {
		items = append(items, []byte(it))
	}
	var scalars scalarCache
	for i, it := range items {
		got, ok := blockYAMLToJSON(it, &scalars)
		if !ok {
			t.Errorf("item %d left to the YAML library:\n%s", i, it)
			continue
		}
		if diff := sameJSON(t, it, got); diff != "" {
			t.Errorf("item %d: %s", i, diff)
		}
	}
}

// Shapes kubectl does not write are left to the YAML library.
func TestBlockYAMLToJSONLeavesOtherYAML(t *testing.T) {
	for name, item := range map[string]string{
		"anchor":              "a: &x 1\nb: *x\n",
		"tag":                 "a: !!str 1\n",
		"flow mapping":        "a: {b: 1}\n",
		"folded number":       "a: 1\n  two\n",
		"folded quoted":       "a: \"one\n  two\"\n",
		"comment":             "a: b # c\n",
		"tab":                 "a:\tb\n",
		"repeated key":        "a: 1\na: 2\n",
		"merge key":           "<<: {a: 1}\n",
		"keep chomping":       "a: |+\n  x\n\n",
		"document end":        "a: 1\n...\n",
		"nested sequence":     "a:\n- - 1\n",
		"boolean-looking key": "yes: 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			if got, ok := blockYAMLToJSON([]byte(item), &scalarCache{}); ok {
				t.Errorf("converted to %s; want it left to the YAML library", got)
			}
		})
	}
}

// FuzzBlockYAMLToJSON checks that whatever the converter converts, it
// converts as the YAML library does.
func FuzzBlockYAMLToJSON(f *testing.F) {
	for _, it := range kubectlItems {
		f.Add([]byte(it))
	}
	for _, seed := range exampleSeeds(f) {
		if list, ok := splitBlockList(seed); ok {
			f.Add(list.items[0])
		}
	}
	f.Add([]byte("a: 0x1F\nb: 1e3\nc: .inf\nd: ~\ne: 2026-11-01\nf: 0o17\ng: +1\nh: 1_000\n"))
	f.Add([]byte("ip: 10.64.0.1\nuid: 2494b376-0000-4000-8000-00002494b376\nv: 1.2\nw: 1.2.3e4\nt: 2026-11-01 08:00:00\nx: 0b101\ny: 1_2.3_4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := blockYAMLToJSON(data, &scalarCache{})
		if !ok {
			return
		}
		if diff := sameJSON(t, data, got); diff != "" {
			t.Error(diff)
		}
	})
}

// sameJSON says how got differs from what the YAML library makes of item.
func sameJSON(t *testing.T, item, got []byte) string {
	t.Helper()
	want, err := yaml.YAMLToJSON(item)
	if err != nil {
		return "converted " + string(got) + ", but the YAML library refuses the item: " + err.Error()
	}
	var g, w any
	if err := decodeNumbers(got, &g); err != nil {
		return "converted to invalid JSON " + string(got) + ": " + err.Error()
	}
	if err := decodeNumbers(want, &w); err != nil {
		return ""
	}
	if !reflect.DeepEqual(g, w) {
		return "converted to\n" + string(got) + "\nwant\n" + string(want)
	}
	return ""
}

func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
