package cluster

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxMilli is the largest quantity the engine's arithmetic holds: a
// quantity in thousandths that fits an int64, as kube-scheduler's do.
var maxMilli = resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)

// checkQuantities reports the quantities the API server refuses (a
// negative request, limit or allocatable) and those too large for the
// engine to count, for every node and pod, rather than plan with a wrong
// number. A live cluster's objects pass the API server's validation; a
// dump's may have been edited by hand.
func checkQuantities(objs *Objects) error {
	var bad objectErrors
	quantityProblems(objs, &bad)
	return bad.err()
}

// quantityProblems adds the impossible quantities of objs to bad, object by
// object in the order of objs, each object's in the order of its fields.
func quantityProblems(objs *Objects, bad *objectErrors) {
	var names []corev1.ResourceName
	check := func(object string, path *field.Path, list corev1.ResourceList) {
		if len(list) == 0 {
			return
		}
		// Map order is random; the report is not.
		names = names[:0]
		for name := range list {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			q := list[name]
			switch {
			case q.Sign() < 0:
				bad.add(object, field.Invalid(path.Child(string(name)), q.String(), "must be greater than or equal to 0").Error())
			case q.Cmp(*maxMilli) > 0:
				bad.add(object, field.Invalid(path.Child(string(name)), q.String(), fmt.Sprintf("must be at most %s, the largest quantity kube-scheduler counts", maxMilli)).Error())
			}
		}
	}
	for i := range objs.Nodes {
		n := &objs.Nodes[i]
		check("Node "+n.Name, field.NewPath("status", "allocatable"), n.Status.Allocatable)
		check("Node "+n.Name, field.NewPath("status", "capacity"), n.Status.Capacity)
	}
	for i := range objs.Pods {
		p := &objs.Pods[i]
		if !impossiblePodQuantity(p) {
			continue // named and pathed only when there is a problem to report
		}
		pod := "Pod " + p.Namespace + "/" + p.Name
		for _, kind := range []string{"initContainers", "containers"} {
			cs := p.Spec.Containers
			if kind == "initContainers" {
				cs = p.Spec.InitContainers
			}
			for j := range cs {
				at := field.NewPath("spec", kind).Index(j).Child("resources")
				check(pod, at.Child("requests"), cs[j].Resources.Requests)
				check(pod, at.Child("limits"), cs[j].Resources.Limits)
			}
		}
		check(pod, field.NewPath("spec", "overhead"), p.Spec.Overhead)
	}
}

// impossiblePodQuantity reports whether a request, limit or overhead of p
// is one quantityProblems reports.
func impossiblePodQuantity(p *corev1.Pod) bool {
	impossible := func(list corev1.ResourceList) bool {
		for _, q := range list {
			if q.Sign() < 0 || q.Cmp(*maxMilli) > 0 {
				return true
			}
		}
		return false
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for j := range cs {
			if impossible(cs[j].Resources.Requests) || impossible(cs[j].Resources.Limits) {
				return true
			}
		}
	}
	return impossible(p.Spec.Overhead)
}
