package e2e

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// TestPlaceDefaultsThePodAsTheAPIServerDoes: the pod `place` places is the
// one the API server would create. The API server decides: a server-side
// dry run creates the Deployment's pod (defaulting and admission, the
// RuntimeClass plugin included), and what the engine reads of it (requests,
// host ports, overhead, nodeSelector, tolerations) must equal what it reads
// of the pod cluster.DefaultPod defaulted. `place` against the live cluster
// then reports those defaults, the RuntimeClass read from the API server.
func TestPlaceDefaultsThePodAsTheAPIServerDoes(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	const ns = "placedefaults"
	if _, err := cp.CreateNamespace(ctx, ns); err != nil {
		t.Fatal(err)
	}
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-sandboxed"},
		Handler:    "sandboxed",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")}},
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"e2e.rebalancer.dev/runtime": "sandboxed"},
			Tolerations:  []corev1.Toleration{{Key: "e2e.rebalancer.dev/runtime", Operator: corev1.TolerationOpEqual, Value: "sandboxed", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	if _, err := cp.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{})
	})

	deployment := `apiVersion: apps/v1
kind: Deployment
metadata: {name: agent, namespace: ` + ns + `}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      hostNetwork: true
      runtimeClassName: e2e-sandboxed
      initContainers:
      - {name: setup, image: setup:1, resources: {limits: {cpu: "1", memory: 64Mi}}}
      containers:
      - name: agent
        image: agent:1
        ports: [{containerPort: 9100}, {containerPort: 9101, protocol: UDP}]
        resources: {limits: {cpu: "3", memory: 1Gi}, requests: {memory: 512Mi}}
`
	var d struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(deployment), &d); err != nil {
		t.Fatal(err)
	}
	newPod := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent-new", Labels: d.Spec.Template.Labels},
			Spec: *d.Spec.Template.Spec.DeepCopy()}
	}

	server, err := cp.Client.CoreV1().Pods(ns).Create(ctx, newPod(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	ours := newPod()
	applied := cluster.DefaultPod(ours, []nodev1.RuntimeClass{*rc})

	// What the engine reads of each.
	read := func(p *corev1.Pod) (cluster.Resources, []cluster.HostPort) {
		snap, err := cluster.New(cluster.Objects{Pods: []corev1.Pod{*p}}, metav1.Now().Time)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Pod(ns + "/" + p.Name).SpecRequests, cluster.PodHostPorts(p)
	}
	serverReq, serverPorts := read(server)
	ourReq, ourPorts := read(ours)
	if !reflect.DeepEqual(serverReq, ourReq) {
		t.Errorf("requests: the API server's pod %+v, place's %+v", serverReq, ourReq)
	}
	if serverReq.MilliCPU != 3250 {
		t.Errorf("the API server's pod requests %dm cpu, want 3250m (3 from the limit, 250m overhead): the fixture no longer tests what it says", serverReq.MilliCPU)
	}
	if !reflect.DeepEqual(serverPorts, ourPorts) || len(ourPorts) != 2 {
		t.Errorf("host ports: the API server's pod %v, place's %v", serverPorts, ourPorts)
	}
	if !reflect.DeepEqual(server.Spec.NodeSelector, ours.Spec.NodeSelector) {
		t.Errorf("nodeSelector: the API server's pod %v, place's %v", server.Spec.NodeSelector, ours.Spec.NodeSelector)
	}
	// The API server also adds the not-ready and unreachable NoExecute
	// tolerations, which do not keep a pod off a node the scheduler
	// considers; every toleration place adds must be among its own.
	for _, tol := range ours.Spec.Tolerations {
		if !slices.ContainsFunc(server.Spec.Tolerations, func(o corev1.Toleration) bool { return o.MatchToleration(&tol) }) {
			t.Errorf("place adds toleration %v, which the API server does not", tol)
		}
	}
	for _, tol := range server.Spec.Tolerations {
		if tol.Effect != corev1.TaintEffectNoExecute && !slices.ContainsFunc(ours.Spec.Tolerations, func(o corev1.Toleration) bool { return o.MatchToleration(&tol) }) {
			t.Errorf("the API server adds toleration %v, which place does not", tol)
		}
	}

	// place reads the RuntimeClass from the API server and says what it
	// applied.
	r := rebalancer(t, "place", "--kubeconfig", cp.Kubeconfig, writeFile(t, "deployment.yaml", deployment), "-o", "json")
	if r.code != 0 {
		t.Fatalf("place: exit %d\n%s", r.code, r.stderr)
	}
	var res struct {
		Defaults []string `json:"defaults"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Defaults, "\n") != strings.Join(applied, "\n") {
		t.Errorf("place against the cluster applied:\n  %s\nwant:\n  %s", strings.Join(res.Defaults, "\n  "), strings.Join(applied, "\n  "))
	}
}
