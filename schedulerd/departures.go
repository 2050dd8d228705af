package schedulerd

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A run records an eviction in the state ConfigMap before it evicts, and
// the pod's controller creates the replacement once the evicted pod is
// terminating, so a replacement can come within the second that the
// hand-offs read last are kept. departures remembers when a pod of each
// controller last began to leave, so that a pod of that controller reads
// the hand-offs again when they were read before it: decided on the old
// list, the replacement would go where the engine likes best, and the
// next replacement of the workload would take its planned node.
type departures struct {
	mu sync.Mutex
	at map[controllerKey]time.Time
}

// controllerKey names a pod's controller: a replacement has the evicted
// pod's controller.
type controllerKey struct {
	namespace, kind, name string
}

func controllerOf(p *corev1.Pod) (controllerKey, bool) {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return controllerKey{}, false
	}
	return controllerKey{p.Namespace, ref.Kind, ref.Name}, true
}

// maxDepartures bounds the controllers remembered; past it, those whose
// last departure is older than the hand-offs' TTL are forgotten.
const maxDepartures = 4096

// left records that p began to leave at now.
func (d *departures) left(p *corev1.Pod, now time.Time, ttl time.Duration) {
	key, ok := controllerOf(p)
	if !ok {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at == nil {
		d.at = make(map[controllerKey]time.Time)
	}
	if len(d.at) >= maxDepartures {
		for k, t := range d.at {
			if now.Sub(t) > ttl {
				delete(d.at, k)
			}
		}
	}
	d.at[key] = now
}

// since reports whether a pod of p's controller began to leave after t.
func (d *departures) since(p *corev1.Pod, t time.Time) bool {
	key, ok := controllerOf(p)
	if !ok {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.at[key]
	return ok && at.After(t)
}
