package cluster

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// A dump is decoded item by item; a document that turns out not to be a
// List of the shape it started as is decoded again whole, as if it had
// been read whole from the start, with no object or problem counted twice.
func TestDecodeStreamsAndRereadsWhatIsNotAList(t *testing.T) {
	pod := func(name string) string {
		return "- apiVersion: v1\n  kind: Pod\n  metadata: {name: " + name + ", namespace: x}\n"
	}
	tests := []struct {
		name  string
		input string
		pods  []string
		nodes []string
		err   string
	}{
		{name: "kubectl List, kind after the items", input: "apiVersion: v1\nitems:\n" + pod("a") + pod("b") + "kind: List\nmetadata: {}\n", pods: []string{"a", "b"}},
		{
			name:  "typed List whose kind comes after items without kind",
			input: "apiVersion: v1\nitems:\n- metadata: {name: a, namespace: x}\n- metadata: {name: b, namespace: x}\nkind: PodList\n",
			pods:  []string{"a", "b"},
		},
		{
			name:  "an object with items that is not a List",
			input: "apiVersion: v1\nitems:\n" + pod("a") + "kind: Node\nmetadata: {name: n1}\n",
			nodes: []string{"n1"},
		},
		{
			name:  "a List that changes shape after its items",
			input: "apiVersion: v1\nkind: List\nitems:\n" + pod("a") + "metadata: {}\n- b\n",
			err:   "document 1: ",
		},
		{
			name:  "a bad item of a List read again is reported once",
			input: "apiVersion: v1\nitems:\n- metadata: {name: a, namespace: x}\n  spec: {priority: high}\nkind: PodList\n",
			err:   `Pod x/a: spec.priority: Invalid value: "high": must be a whole number from -2147483648 to 2147483647`,
		},
		{
			name:  "documents after one read again",
			input: "apiVersion: v1\nitems:\n- metadata: {name: a, namespace: x}\nkind: PodList\n---\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: List\nitems:\n" + pod("b"),
			pods:  []string{"a", "b"}, nodes: []string{"n1"},
		},
		{
			name:  "JSON List, kind after the items",
			input: `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"x"}}],"kind":"List","metadata":{}}`,
			pods:  []string{"a"},
		},
		{
			name:  "JSON typed List, kind after the items",
			input: `{"apiVersion":"v1","items":[{"metadata":{"name":"a","namespace":"x"}},{"metadata":{"name":"b","namespace":"x"}}],"kind":"PodList"}`,
			pods:  []string{"a", "b"},
		},
		{
			name:  "JSON objects and Lists in a stream",
			input: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}} {"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a","namespace":"x"}}]} {"apiVersion":"v1","items":[],"kind":"Node","metadata":{"name":"n2"}}`,
			pods:  []string{"a"}, nodes: []string{"n1", "n2"},
		},
		{
			name:  "JSON List with a syntax error after some items",
			input: `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"x"}}, x]}`,
			err:   "document 1: invalid character 'x' looking for beginning of value",
		},
		{
			name:  "a typed List with a null item",
			input: `{"apiVersion":"v1","kind":"PodList","items":[null]}`,
			err:   "document 1: item 0: object has no kind",
		},
		{
			name:  "an empty item of what is not a List",
			input: "kind: 0\nitems:\n- \n",
			err:   "document 1: kind: Invalid value: 0: must be a string",
		},
		{
			name:  "JSON keys in another case, read as encoding/json reads them",
			input: `{"apiVersion":"v1","Kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"x"}}]}`,
			pods:  []string{"a"},
		},
	}
	for _, tt := range tests {
		for _, seekable := range []bool{true, false} {
			t.Run(tt.name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.input)
				if !seekable {
					r = struct{ io.Reader }{r}
				}
				objs, _, err := Decode(r)
				if tt.err != "" {
					if err == nil || !strings.HasPrefix(err.Error(), tt.err) || strings.Count(err.Error(), "\n") > 0 {
						t.Fatalf("Decode() error = %v, want one problem starting %q", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				var pods, nodes []string
				for _, p := range objs.Pods {
					pods = append(pods, p.Name)
				}
				for _, n := range objs.Nodes {
					nodes = append(nodes, n.Name)
				}
				if !slices.Equal(pods, tt.pods) || !slices.Equal(nodes, tt.nodes) {
					t.Errorf("decoded pods %v and nodes %v, want %v and %v", pods, nodes, tt.pods, tt.nodes)
				}
			})
		}
	}
}

// A dump that starts in the middle of a file is read from there, and read
// again from there.
func TestDecodeFromAnOffset(t *testing.T) {
	input := "ignored prefix\napiVersion: v1\nitems:\n- metadata: {name: a, namespace: x}\nkind: PodList\n"
	r := bytes.NewReader([]byte(input))
	if _, err := r.Seek(int64(len("ignored prefix\n")), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	objs, _, err := Decode(r)
	if err != nil || len(objs.Pods) != 1 {
		t.Fatalf("decoded %d pods, error %v; want 1 pod", len(objs.Pods), err)
	}
}

func TestCountPods(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  int
	}{
		{name: "kubectl -o yaml List: a PodDisruptionBudget is not a pod", input: kubectlList + "- apiVersion: v1\n  kind: Pod\n  metadata: {name: web-2, namespace: shop}\n", want: 2},
		{name: "kubectl -o json List", input: "{\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\"\n        },\n        {\n            \"kind\": \"PodDisruptionBudget\"\n        }\n    ]\n}\n", want: 1},
		{name: "compact JSON stream", input: `{"kind":"Pod"}{"kind":"Pod"}{"kind":"PodList","items":[]}`, want: 2},
		{name: "no newline after the last kind", input: "kind: Node\n---\nkind: Pod", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every chunk size puts a kind across the end of a chunk somewhere.
			for chunk := int64(1); chunk <= int64(len(tt.input))+1; chunk++ {
				src := strings.NewReader("# header\n" + tt.input)
				got, err := countPodsBy(src, int64(len("# header\n")), chunk)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Fatalf("chunks of %d bytes: countPods() = %d, want %d", chunk, got, tt.want)
				}
				if at, _ := src.Seek(0, io.SeekCurrent); at != int64(len("# header\n")) {
					t.Fatalf("chunks of %d bytes: countPods() left the stream at %d, want where it started", chunk, at)
				}
			}
		})
	}
}

// A snapshot keeps its pods for the whole run: no room for more.
func TestDecodedPodsFillTheirSlice(t *testing.T) {
	var pods, events strings.Builder
	for i := range 5 {
		fmt.Fprintf(&pods, "- apiVersion: v1\n  kind: Pod\n  metadata: {name: web-%d, namespace: shop}\n", i)
		fmt.Fprintf(&events, "- apiVersion: v1\n  kind: Event\n  metadata: {name: web-%d.1, namespace: shop}\n  involvedObject:\n    kind: Pod\n    name: web-%d\n", i, i)
	}
	tests := []struct {
		name  string
		items string
	}{
		{name: "pods only", items: pods.String()},
		{name: "events about the pods look like more pods", items: pods.String() + events.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, _, err := Decode(strings.NewReader("apiVersion: v1\nkind: List\nitems:\n" + tt.items))
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Pods) != 5 || cap(objs.Pods) != 5 {
				t.Errorf("decoded %d pods in a slice of capacity %d, want 5 in 5", len(objs.Pods), cap(objs.Pods))
			}
		})
	}
}
