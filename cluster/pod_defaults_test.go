package cluster

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The defaults of the API reference that change where a new pod can run,
// each as the reference states it, checked through the requests and ports
// the engine then reads.
func TestDefaultPod(t *testing.T) {
	kata := nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "kata"},
		Handler:    "kata",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")}},
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"runtime": "kata"},
			Tolerations:  []corev1.Toleration{{Key: "runtime", Value: "kata", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	limits := func(cpu, memory string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}
	}
	named := func(s string) *string { return &s }
	tests := []struct {
		name string
		edit func(*corev1.Pod)
		// wantCPU and wantMiB are the pod's requests the engine reads.
		wantCPU, wantMiB int64
		wantPorts        []int32
		wantSelector     map[string]string
		wantTolerations  int
		wantDefaults     []string
	}{
		{
			name: "nothing to default",
			edit: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
			},
			wantCPU: 500,
		},
		{
			// "If Requests is omitted for a container, it defaults to Limits
			// if that is explicitly specified."
			name:         "a container with limits only requests its limits",
			edit:         func(p *corev1.Pod) { p.Spec.Containers[0].Resources = limits("3", "1Gi") },
			wantCPU:      3000,
			wantMiB:      1024,
			wantDefaults: []string{"containers[app]: requests of cpu, memory default to the limits"},
		},
		{
			name: "a request given is kept; only the one left out defaults",
			edit: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources = limits("3", "1Gi")
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			},
			wantCPU: 1000, wantMiB: 1024,
			wantDefaults: []string{"containers[app]: requests of memory default to the limits"},
		},
		{
			name: "an init container's limits too",
			edit: func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Resources: limits("2", "64Mi")}}
			},
			wantCPU: 2000, wantMiB: 64,
			wantDefaults: []string{"initContainers[migrate]: requests of cpu, memory default to the limits"},
		},
		{
			// Pod-level resources: with pod-level limits, a pod-level request
			// left out is the containers' request, or the limit when no
			// container asks for the resource.
			name: "pod-level limits give the pod-level requests",
			edit: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}
				podLimits := limits("2", "2Gi")
				p.Spec.Resources = &podLimits
			},
			wantCPU: 500, wantMiB: 2048,
			wantDefaults: []string{"pod-level requests of cpu, memory default from the containers' requests or the pod-level limits"},
		},
		{
			// ContainerPort.hostPort: "If HostNetwork is specified, this must
			// match ContainerPort."
			name: "hostNetwork binds the container ports on the node",
			edit: func(p *corev1.Pod) {
				p.Spec.HostNetwork = true
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9100}, {ContainerPort: 9200, HostPort: 9200}}
			},
			wantPorts:    []int32{9100, 9200},
			wantDefaults: []string{"containers[app]: hostNetwork binds containerPort 9100 on the node as hostPort 9100"},
		},
		{
			name: "without hostNetwork a container port is not bound on the node",
			edit: func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9100}}
			},
		},
		{
			// The RuntimeClass admission controller: overhead.podFixed
			// becomes the pod's overhead, scheduling is merged into the pod.
			name: "the RuntimeClass adds its overhead, nodeSelector and tolerations",
			edit: func(p *corev1.Pod) {
				p.Spec.RuntimeClassName = named("kata")
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
			},
			wantCPU: 1250, wantMiB: 120,
			wantSelector:    map[string]string{"runtime": "kata"},
			wantTolerations: 1,
			wantDefaults: []string{
				"RuntimeClass kata adds its overhead cpu 250m, memory 120Mi to the pod's requests",
				"RuntimeClass kata adds nodeSelector runtime=kata",
				"RuntimeClass kata adds 1 toleration(s)",
			},
		},
		{
			name:         "a RuntimeClass that is not there is said, not guessed",
			edit:         func(p *corev1.Pod) { p.Spec.RuntimeClassName = named("gvisor") },
			wantDefaults: []string{"runtimeClassName gvisor: no such RuntimeClass here, so its overhead and scheduling constraints are not applied (the API server rejects a pod whose RuntimeClass does not exist)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-new"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
			tt.edit(&p)
			got := DefaultPod(&p, []nodev1.RuntimeClass{kata})
			if strings.Join(got, "\n") != strings.Join(tt.wantDefaults, "\n") {
				t.Errorf("defaults:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.wantDefaults, "\n  "))
			}
			req := newPod(&p, 0).SpecRequests
			if req.MilliCPU != tt.wantCPU || req.Memory != tt.wantMiB<<20 {
				t.Errorf("requests = %dm, %dMi; want %dm, %dMi", req.MilliCPU, req.Memory>>20, tt.wantCPU, tt.wantMiB)
			}
			var ports []int32
			for _, hp := range PodHostPorts(&p) {
				ports = append(ports, hp.Port)
			}
			if !reflect.DeepEqual(ports, tt.wantPorts) {
				t.Errorf("host ports = %v, want %v", ports, tt.wantPorts)
			}
			if len(p.Spec.NodeSelector) > 0 || tt.wantSelector != nil {
				if !reflect.DeepEqual(p.Spec.NodeSelector, tt.wantSelector) {
					t.Errorf("nodeSelector = %v, want %v", p.Spec.NodeSelector, tt.wantSelector)
				}
			}
			if len(p.Spec.Tolerations) != tt.wantTolerations {
				t.Errorf("%d tolerations, want %d", len(p.Spec.Tolerations), tt.wantTolerations)
			}
		})
	}
}
