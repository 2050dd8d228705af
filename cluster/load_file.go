package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// dumpScheme knows the API groups a snapshot reads objects from, whole, so
// that the other kinds of those groups (a Service, a Deployment) decode and
// are counted as ignored like any kind of another group. It is this
// package's own, not client-go's, so that cluster does not import client-go.
var dumpScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme, schedulingv1.AddToScheme, nodev1.AddToScheme,
		storagev1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	return s
}()

// dumpDecoder decodes without conversion or defaulting: objects keep the
// fields the dump holds.
var dumpDecoder = serializer.NewCodecFactory(dumpScheme).UniversalDeserializer()

// ReadFile reads the objects of a cluster dump, as written by
//
//	kubectl get nodes,pods,pdb,namespaces,replicasets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes -A -o yaml
//
// The file may hold a List (kind: List or any *List kind), a stream of YAML
// documents separated by "---", a stream of JSON objects, or a mix. Objects of
// kinds a snapshot does not use are counted in ignored, by kind, and
// otherwise left out. RuntimeClasses (add runtimeclasses to the command) are
// read for placing a new pod.
func ReadFile(path string) (objs Objects, ignored map[string]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return Objects{}, nil, err
	}
	defer f.Close()
	return Decode(f)
}

// Decode reads objects from a stream in any of the forms ReadFile accepts.
// An error names the document (counted from 1) and, inside a List, the item.
func Decode(r io.Reader) (objs Objects, ignored map[string]int, err error) {
	ignored = make(map[string]int)
	br := bufio.NewReaderSize(r, 64*1024)
	if looksLikeJSON(br) {
		err = objs.decodeJSON(br, ignored)
	} else {
		err = objs.decodeYAML(br, ignored)
	}
	if err != nil {
		return Objects{}, nil, err
	}
	return objs, ignored, nil
}

// looksLikeJSON peeks at the first significant byte of the stream.
func looksLikeJSON(br *bufio.Reader) bool {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if err != nil || len(b) < n {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		default:
			return c == '{' || c == '['
		}
	}
}

// decodeJSON reads a stream of JSON objects.
func (o *Objects) decodeJSON(r io.Reader, ignored map[string]int) error {
	dec := json.NewDecoder(r)
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if err := o.addRaw(raw, ignored); err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
	}
}

// decodeYAML reads a stream of YAML documents. A List as kubectl writes it
// is converted to JSON item by item: converting a whole dump at once would
// take tens of times its size in memory.
func (o *Objects) decodeYAML(r *bufio.Reader, ignored map[string]int) error {
	docs := utilyaml.NewYAMLReader(r)
	for doc := 1; ; doc++ {
		data, err := docs.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("document %d: %w", doc, err)
		}
		if list, ok := splitBlockList(data); ok {
			o.listed(strings.TrimSuffix(list.kind, "List"))
			for i, item := range list.items {
				raw, err := yaml.YAMLToJSON(item)
				if err != nil {
					return fmt.Errorf("document %d: item %d: %w", doc, i, err)
				}
				if itemKind := strings.TrimSuffix(list.kind, "List"); itemKind != "" {
					raw = withDefaultType(raw, list.apiVersion, itemKind)
				}
				if err := o.addObject(raw, ignored); err != nil {
					return fmt.Errorf("document %d: item %d: %w", doc, i, err)
				}
			}
			continue
		}
		raw, err := yaml.YAMLToJSON(data)
		if err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue // an empty document, as between two "---"
		}
		if err := o.addRaw(raw, ignored); err != nil {
			return fmt.Errorf("document %d: %w", doc, err)
		}
	}
}

// IgnoredSummary formats the counts Decode returns, e.g. "3 Service, 1 Secret".
func IgnoredSummary(ignored map[string]int) string {
	kinds := make([]string, 0, len(ignored))
	for k := range ignored {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", ignored[k], k)
	}
	return strings.Join(parts, ", ")
}

type typeHeader struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func (o *Objects) addRaw(raw json.RawMessage, ignored map[string]int) error {
	var h typeHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		return err
	}
	if h.Kind == "" {
		return errors.New("object has no kind")
	}
	if strings.HasSuffix(h.Kind, "List") {
		itemKind := strings.TrimSuffix(h.Kind, "List")
		o.listed(itemKind)
		for i, item := range h.Items {
			// A typed list (PodList) leaves kind and apiVersion off its items.
			if itemKind != "" {
				item = withDefaultType(item, h.APIVersion, itemKind)
			}
			if err := o.addObject(item, ignored); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		return nil
	}
	return o.addObject(raw, ignored)
}

// listed records a typed List's item kind; the generic List (itemKind "")
// says nothing of the kinds it would hold.
func (o *Objects) listed(itemKind string) {
	if itemKind == "" {
		return
	}
	if o.ListedKinds == nil {
		o.ListedKinds = make(map[string]bool)
	}
	o.ListedKinds[itemKind] = true
	switch itemKind {
	case "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode":
		o.VolumesListed = true
	}
}

// withDefaultType sets kind and apiVersion on an item of a typed list when
// the item has none.
func withDefaultType(item json.RawMessage, apiVersion, kind string) json.RawMessage {
	var h typeHeader
	if json.Unmarshal(item, &h) != nil || h.Kind != "" {
		return item
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		return item
	}
	m["kind"], _ = json.Marshal(kind)
	m["apiVersion"], _ = json.Marshal(apiVersion)
	out, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return out
}

func (o *Objects) addObject(raw json.RawMessage, ignored map[string]int) error {
	obj, gvk, err := dumpDecoder.Decode(raw, nil, nil)
	if err != nil {
		var h typeHeader
		if json.Unmarshal(raw, &h) == nil && h.Kind != "" && !dumpScheme.Recognizes(schema.FromAPIVersionAndKind(h.APIVersion, h.Kind)) {
			ignored[h.Kind]++
			return nil
		}
		return err
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil) // nothing reads them, and they are much of every object
	}
	switch t := obj.(type) {
	case *corev1.Node:
		o.Nodes = append(o.Nodes, *t)
	case *corev1.Pod:
		o.Pods = append(o.Pods, *t)
	case *policyv1.PodDisruptionBudget:
		o.PDBs = append(o.PDBs, *t)
	case *corev1.Namespace:
		o.Namespaces = append(o.Namespaces, *t)
	case *schedulingv1.PriorityClass:
		o.PriorityClasses = append(o.PriorityClasses, *t)
	case *appsv1.ReplicaSet:
		o.ReplicaSets = append(o.ReplicaSets, *t)
	case *nodev1.RuntimeClass:
		o.RuntimeClasses = append(o.RuntimeClasses, *t)
	case *batchv1.Job:
		o.Jobs = append(o.Jobs, *t)
	case *corev1.PersistentVolume:
		o.PersistentVolumes = append(o.PersistentVolumes, *t)
	case *corev1.PersistentVolumeClaim:
		o.PersistentVolumeClaims = append(o.PersistentVolumeClaims, *t)
	case *storagev1.StorageClass:
		o.StorageClasses = append(o.StorageClasses, *t)
	case *storagev1.CSINode:
		o.CSINodes = append(o.CSINodes, *t)
	case *corev1.ConfigMap:
		if t.Labels[ManagedByLabel] != ManagedBy {
			ignored[gvk.Kind]++
			return nil
		}
		o.StateConfigMaps = append(o.StateConfigMaps, *t)
	default:
		ignored[gvk.Kind]++
	}
	return nil
}
