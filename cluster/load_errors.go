package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/version"
)

// maxReportedObjects bounds the objects an error names one by one: a dump
// edited wrong in one place is often wrong in thousands, and the first
// ones say what to fix.
const maxReportedObjects = 20

// objectErrors collects what is wrong with the objects of a dump, object
// by object, so that one run reports all of it (up to maxReportedObjects,
// then a count), as kube-apiserver reports every invalid field of an
// object at once.
type objectErrors struct {
	lines []string
	// objects counts the objects with problems; last is the latest, whose
	// further problems count no more.
	objects int
	last    string
}

// full reports whether further objects are only counted, so that the
// caller can skip working out what is wrong with them.
func (e *objectErrors) full() bool { return e.objects >= maxReportedObjects }

// add records a problem of object, which names the object ("Pod
// shop/web-1") or, when it has no name, where it is ("document 3: item 2").
func (e *objectErrors) add(object string, problem string) {
	if object != e.last || e.objects == 0 {
		e.objects++
		e.last = object
	}
	if e.objects <= maxReportedObjects {
		e.lines = append(e.lines, object+": "+problem)
	}
}

func (e *objectErrors) err() error {
	if e.objects == 0 {
		return nil
	}
	lines := e.lines
	if more := e.objects - maxReportedObjects; more > 0 {
		lines = append(lines[:len(lines):len(lines)], fmt.Sprintf("and %d more objects with problems", more))
	}
	return &InvalidObjectsError{Problems: lines}
}

// InvalidObjectsError is what is wrong with the objects of a dump or a
// cluster, a line per problem, each naming the object and the field.
type InvalidObjectsError struct {
	Problems []string
}

func (e *InvalidObjectsError) Error() string { return strings.Join(e.Problems, "\n") }

// invalidObject is an object of a known kind that does not decode, with
// each of its fields that does not.
type invalidObject struct {
	// object is "Kind namespace/name", "Kind name" or, with no name, "Kind".
	object string
	named  bool
	errs   field.ErrorList
	// cause is the decoder's own error, for a problem no field explains.
	cause error
}

func (e *invalidObject) Error() string { return e.object + ": " + e.problems()[0] }

func (e *invalidObject) problems() []string {
	if len(e.errs) == 0 {
		return []string{e.cause.Error()}
	}
	out := make([]string, len(e.errs))
	for i, fe := range e.errs {
		out[i] = fe.Error()
	}
	return out
}

// report adds the problems of err, about the object at where, to e.
func (e *objectErrors) report(where string, err error) {
	var bad *invalidObject
	if !errors.As(err, &bad) {
		e.add(where, err.Error())
		return
	}
	object := bad.object
	if !bad.named {
		object = where + ": " + bad.object
	}
	for _, p := range bad.problems() {
		e.add(object, p)
	}
}

// explainDecodeError works out which fields of raw, an object of type t
// that the decoder refused with cause, do not decode. The decoder stops at
// the first and names no path; a user needs the path of every one.
func explainDecodeError(raw []byte, kind string, t reflect.Type, cause error) *invalidObject {
	bad := newInvalidObject(raw, kind, cause)
	bad.errs = TypeErrors(raw, reflect.New(t).Interface(), nil)
	return bad
}

// newInvalidObject names the object raw holds by its kind, namespace and
// name, as far as it has them.
func newInvalidObject(raw []byte, kind string, cause error) *invalidObject {
	bad := &invalidObject{object: kind, cause: cause}
	var meta struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(raw, &meta) == nil {
		var name, namespace string
		if json.Unmarshal(meta.Metadata["name"], &name) == nil && name != "" {
			bad.named = true
			bad.object += " " + name
			if json.Unmarshal(meta.Metadata["namespace"], &namespace) == nil && namespace != "" {
				bad.object = kind + " " + namespace + "/" + name
			}
		}
	}
	return bad
}

// versionsOfKinds maps each kind of the groups a snapshot reads to its
// apiVersions, newest first, to say which one an object that has none
// lacks. A kind of several groups (the options every group registers) says
// nothing.
var versionsOfKinds = func() map[string][]string {
	versions := make(map[string][]schema.GroupVersion)
	shared := make(map[string]bool)
	for gvk := range dumpScheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		gvs := versions[gvk.Kind]
		if len(gvs) > 0 && gvs[0].Group != gvk.Group {
			shared[gvk.Kind] = true
		}
		versions[gvk.Kind] = append(gvs, gvk.GroupVersion())
	}
	out := make(map[string][]string, len(versions))
	for kind, gvs := range versions {
		if shared[kind] {
			continue
		}
		slices.SortFunc(gvs, func(a, b schema.GroupVersion) int {
			return -version.CompareKubeAwareVersionStrings(a.Version, b.Version)
		})
		for _, gv := range gvs {
			out[kind] = append(out[kind], gv.String())
		}
	}
	return out
}()

// readKinds are the kinds a snapshot keeps.
var readKinds = map[string]bool{
	"Node": true, "Pod": true, "PodDisruptionBudget": true, "Namespace": true, "PriorityClass": true,
	"ReplicaSet": true, "StatefulSet": true, "RuntimeClass": true, "Job": true, "NodeMetrics": true,
	"PodMetrics": true, "PersistentVolume": true, "PersistentVolumeClaim": true, "StorageClass": true,
	"CSINode": true, "ConfigMap": true, "Deployment": true, "HorizontalPodAutoscaler": true,
}

// unknownVersion refuses an object of a kind a snapshot keeps, in that
// kind's API group but at a version it does not read (a Pod of v2, a
// PodDisruptionBudget of policy/v1beta1), rather than leave it out of the
// plan as an object of some other API. A kind of another group (a custom
// resource that happens to be called Node) is another API.
func unknownVersion(raw []byte, gvk schema.GroupVersionKind) error {
	versions, ok := versionsOfKinds[gvk.Kind]
	if !ok || !readKinds[gvk.Kind] {
		return nil
	}
	if want, _ := schema.ParseGroupVersion(versions[0]); want.Group != gvk.Group {
		return nil
	}
	bad := newInvalidObject(raw, gvk.Kind, nil)
	bad.errs = field.ErrorList{field.Invalid(field.NewPath("apiVersion"), gvk.GroupVersion().String(),
		"a "+gvk.Kind+" of a dump is read as "+strings.Join(versions, " or "))}
	return bad
}

// missingAPIVersion refuses an object of a kind a snapshot reads that does
// not say its apiVersion, as kube-apiserver does, rather than leave it out
// of the snapshot as an object of some other API.
func missingAPIVersion(raw []byte, kind string) error {
	versions, ok := versionsOfKinds[kind]
	if !ok {
		return nil
	}
	bad := newInvalidObject(raw, kind, nil)
	bad.errs = field.ErrorList{field.Required(field.NewPath("apiVersion"), "a "+kind+" is "+strings.Join(versions, " or "))}
	return bad
}
