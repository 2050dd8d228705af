package extenderclient

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// BindFunc binds a pod to a node through an extender; it reports false
// when no extender took the pod, which the caller then binds with the
// Binding API.
type BindFunc func(ctx context.Context, pod *corev1.Pod, node string) (bound bool, err error)

// Binder returns the BindFunc of kube-scheduler's precedence: the first
// extender with a bindVerb that is interested in the pod binds it; when
// that fails and the extender is ignorable, the next one is tried, and
// after the last the Binding API. Nil when no extender binds.
func Binder(cs []*Client) BindFunc {
	var binders []*Client
	for _, c := range cs {
		if c.IsBinder() {
			binders = append(binders, c)
		}
	}
	if len(binders) == 0 {
		return nil
	}
	return func(ctx context.Context, pod *corev1.Pod, node string) (bool, error) {
		for _, c := range binders {
			if !c.IsInterested(pod) {
				continue
			}
			err := c.Bind(ctx, pod, node)
			if err != nil && c.IsIgnorable() {
				klog.FromContext(ctx).Info("Skipping an ignorable extender whose bind failed", "extender", c.Name(), "pod", klog.KObj(pod), "err", err)
				continue
			}
			return true, err
		}
		return false, nil
	}
}
