package cluster

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A HorizontalPodAutoscaler owns its target's spec.replicas: a surge that
// raised them by one would be undone, or undo the autoscaler's own change,
// when it scales back. A snapshot keeps of each one only what names its
// target.

// TrimAutoscaler drops what a snapshot does not read of a
// HorizontalPodAutoscaler: all but its name, namespace, UID and target.
func TrimAutoscaler(h *autoscalingv2.HorizontalPodAutoscaler) {
	h.ObjectMeta = metav1.ObjectMeta{Name: h.Name, Namespace: h.Namespace, UID: h.UID}
	h.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: h.Spec.ScaleTargetRef}
	h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
}

// autoscalerFromV1 keeps of an autoscaling/v1 HorizontalPodAutoscaler what
// TrimAutoscaler keeps of a v2 one: its scaleTargetRef has the same fields.
func autoscalerFromV1(h *autoscalingv1.HorizontalPodAutoscaler) autoscalingv2.HorizontalPodAutoscaler {
	ref := h.Spec.ScaleTargetRef
	return autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: autoscalingv2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: h.Name, Namespace: h.Namespace, UID: h.UID},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
			Kind: ref.Kind, Name: ref.Name, APIVersion: ref.APIVersion}},
	}
}

// autoscaledDeployments maps each Deployment a HorizontalPodAutoscaler
// targets to the first such autoscaler, "namespace/name", in name order.
// A target whose apiVersion names no group is counted too: the autoscaler
// cannot scale it as written, but one edit would let it.
func autoscaledDeployments(hpas []autoscalingv2.HorizontalPodAutoscaler) map[Workload]string {
	if len(hpas) == 0 {
		return nil
	}
	sorted := make([]*autoscalingv2.HorizontalPodAutoscaler, len(hpas))
	for i := range hpas {
		sorted[i] = &hpas[i]
	}
	slices.SortFunc(sorted, func(a, b *autoscalingv2.HorizontalPodAutoscaler) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make(map[Workload]string, len(hpas))
	for _, h := range sorted {
		ref := h.Spec.ScaleTargetRef
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || ref.Kind != "Deployment" || (gv.Group != appsv1.GroupName && gv.Group != "") {
			continue
		}
		w := Workload{Kind: "Deployment", Namespace: h.Namespace, Name: ref.Name}
		if _, ok := out[w]; !ok {
			out[w] = h.Namespace + "/" + h.Name
		}
	}
	return out
}

// AutoscalerOf returns the HorizontalPodAutoscaler, "namespace/name", that
// scales the workload: one of its namespace whose scaleTargetRef is that
// Deployment. Only a Deployment has one here; ok is false for any other
// workload, and for every workload when the snapshot holds no autoscaler
// (see AutoscalersKnown).
func (s *Snapshot) AutoscalerOf(w Workload) (name string, ok bool) {
	if w.Kind != "Deployment" {
		return "", false
	}
	name, ok = s.autoscalers[w]
	return name, ok
}

// AutoscalersKnown reports whether the snapshot was built knowing the
// cluster's HorizontalPodAutoscalers: read from the API server, or listed
// in a dump (a typed List, empty or not, or any autoscaler at all). When it
// is false, that AutoscalerOf finds none says nothing.
func (s *Snapshot) AutoscalersKnown() bool { return s.autoscalersKnown }
