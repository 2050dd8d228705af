package cluster

import (
	"maps"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// hpaDump is the output of `kubectl get hpa -A -o yaml`: a generic List of
// autoscaling/v2 objects with their metrics, behavior and status.
const hpaDump = `apiVersion: v1
items:
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata:
    name: web
    namespace: shop
    uid: 5f0c1f7e-6a4b-4c1e-9a57-0d2c7f0e8b11
    resourceVersion: "48213"
    creationTimestamp: "2026-11-20T09:00:00Z"
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler"}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    minReplicas: 2
    maxReplicas: 10
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
    behavior:
      scaleDown: {stabilizationWindowSeconds: 300}
  status:
    currentReplicas: 3
    desiredReplicas: 3
    conditions:
    - {type: AbleToScale, status: "True", reason: ReadyForNewScale, lastTransitionTime: "2026-11-20T09:01:00Z"}
kind: List
metadata: {resourceVersion: ""}
`

// A dump's autoscalers are read as kubectl prints them, autoscaling/v2 or
// v1, and kept as far as they name their target.
func TestDecodeAutoscalers(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		want   []autoscalingv2.HorizontalPodAutoscaler
		listed bool
	}{
		{
			name:  "kubectl get hpa -A -o yaml",
			input: hpaDump,
			want: []autoscalingv2.HorizontalPodAutoscaler{{
				TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "5f0c1f7e-6a4b-4c1e-9a57-0d2c7f0e8b11"},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
			}},
		},
		{
			name: "an autoscaling/v1 object, whose target has the same fields",
			input: "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: api, namespace: shop}\n" +
				"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}, maxReplicas: 4, targetCPUUtilizationPercentage: 80}\n",
			want: []autoscalingv2.HorizontalPodAutoscaler{{
				TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
				ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "api"}},
			}},
		},
		{
			name:   "the API server's empty List: the cluster has none",
			input:  "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscalerList\nmetadata: {resourceVersion: \"7\"}\nitems: []\n",
			listed: true,
		},
		{
			name:  "kubectl's empty generic List names no kind",
			input: "apiVersion: v1\nkind: List\nitems: []\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, ignored, err := Decode(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			if len(ignored) != 0 {
				t.Errorf("ignored %v, want nothing", ignored)
			}
			if !equality.Semantic.DeepEqual(objs.HorizontalPodAutoscalers, tt.want) {
				t.Errorf("read %+v\nwant %+v", objs.HorizontalPodAutoscalers, tt.want)
			}
			if objs.AutoscalersListed != tt.listed {
				t.Errorf("AutoscalersListed = %t, want %t", objs.AutoscalersListed, tt.listed)
			}
		})
	}
}

// Kinds a snapshot does not read are still counted and left out beside
// the autoscalers, the Scale of their group included.
func TestDecodeLeavesOutOtherKindsBesideAutoscalers(t *testing.T) {
	input := hpaDump + "---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n" +
		"---\napiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 3}\n"
	objs, ignored, err := Decode(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"Service": 1, "Scale": 1}; !maps.Equal(ignored, want) {
		t.Errorf("ignored %v, want %v", ignored, want)
	}
	if len(objs.HorizontalPodAutoscalers) != 1 {
		t.Errorf("read %d autoscalers, want 1", len(objs.HorizontalPodAutoscalers))
	}
}

// hpa is an autoscaler of namespace shop whose target is the given kind and
// name, at apiVersion.
func hpa(name, apiVersion, kind, target string) autoscalingv2.HorizontalPodAutoscaler {
	return autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: apiVersion, Kind: kind, Name: target}},
	}
}

// A Deployment is autoscaled when an autoscaler of its namespace targets it
// by kind and name, in its API group.
func TestAutoscalerOf(t *testing.T) {
	web := Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	tests := []struct {
		name     string
		hpas     []autoscalingv2.HorizontalPodAutoscaler
		workload Workload
		want     string // "" for none
	}{
		{
			name:     "an autoscaler of the Deployment",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("web", "apps/v1", "Deployment", "web")},
			workload: web, want: "shop/web",
		},
		{
			name:     "an autoscaler of another Deployment",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("api", "apps/v1", "Deployment", "api")},
			workload: web,
		},
		{
			name:     "an autoscaler of a Deployment of the same name in another namespace",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("web", "apps/v1", "Deployment", "web")},
			workload: Workload{Kind: "Deployment", Namespace: "shop-staging", Name: "web"},
		},
		{
			name:     "an autoscaler of a StatefulSet of the same name",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("web", "apps/v1", "StatefulSet", "web")},
			workload: web,
		},
		{
			name:     "the StatefulSet it scales is no Deployment",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("db", "apps/v1", "StatefulSet", "db")},
			workload: Workload{Kind: "StatefulSet", Namespace: "shop", Name: "db"},
		},
		{
			name:     "a target without apiVersion",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("web", "", "Deployment", "web")},
			workload: web, want: "shop/web",
		},
		{
			name:     "a custom resource called Deployment",
			hpas:     []autoscalingv2.HorizontalPodAutoscaler{hpa("web", "example.com/v1", "Deployment", "web")},
			workload: web,
		},
		{
			name: "two autoscalers of one Deployment: the first by name",
			hpas: []autoscalingv2.HorizontalPodAutoscaler{
				hpa("web-memory", "apps/v1", "Deployment", "web"), hpa("web-cpu", "apps/v1", "Deployment", "web")},
			workload: web, want: "shop/web-cpu",
		},
		{
			name:     "no autoscaler",
			workload: web,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Objects{HorizontalPodAutoscalers: tt.hpas}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.AutoscalerOf(tt.workload)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("AutoscalerOf(%s) = %q, %t; want %q", tt.workload, got, ok, tt.want)
			}
		})
	}
}

// The pods of a Deployment reach its autoscaler through their ReplicaSet,
// in a snapshot of a dump.
func TestAutoscalerOfADumpedPod(t *testing.T) {
	dump := strings.Join([]string{gapNode, gapReplicaSet, gapDeploymentPod, hpaDump}, "---\n")
	objs, _, err := Decode(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Pod("shop/web-1")
	if got, ok := s.AutoscalerOf(p.Workload); !ok || got != "shop/web" {
		t.Errorf("AutoscalerOf(%s) = %q, %t; want shop/web", p.Workload, got, ok)
	}
}

// Whether the snapshot knows the cluster's autoscalers: an absent kind is
// told apart from none only where it was listed.
func TestAutoscalersKnown(t *testing.T) {
	tests := []struct {
		name string
		objs Objects
		want bool
	}{
		{name: "not read", want: false},
		{name: "read, and none", objs: Objects{AutoscalersListed: true}, want: true},
		{name: "one in a dump", objs: Objects{HorizontalPodAutoscalers: []autoscalingv2.HorizontalPodAutoscaler{
			hpa("web", "apps/v1", "Deployment", "web")}}, want: true},
	}
	for _, tt := range tests {
		s, err := New(tt.objs, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AutoscalersKnown(); got != tt.want {
			t.Errorf("%s: AutoscalersKnown() = %t, want %t", tt.name, got, tt.want)
		}
	}
}
