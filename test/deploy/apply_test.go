package deploy

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

const fieldManager = "rebalancer-deploy-test"

// warningRecorder keeps the warnings the API server sends back, such as
// PodSecurity's about a pod template that breaks the namespace's level.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.msgs
	w.msgs = nil
	return m
}

// restrictedNamespace creates a fresh namespace whose pods must meet the
// Pod Security "restricted" level: enforced for pods, warned about for the
// pod templates of CronJobs and Deployments.
func restrictedNamespace(t *testing.T, cp *harness.ControlPlane, name string) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
		"pod-security.kubernetes.io/warn":    "restricted",
		"pod-security.kubernetes.io/audit":   "restricted",
	}}}
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("namespace %s: %v", name, err)
	}
	// The ServiceAccount admission plugin refuses pods until the namespace's
	// default ServiceAccount exists.
	err := harness.WaitFor(ctx, time.Minute, "default ServiceAccount in "+name, func(ctx context.Context) (bool, error) {
		_, err := cp.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// applyAll server-side applies every object, as `kubectl apply
// --server-side` does, and fails on a rejection or a warning.
func applyAll(t *testing.T, cp *harness.ControlPlane, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(cp.RestConfig)
	cfg.WarningHandler = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s: %v", key(o), err)
			continue
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			if o.GetNamespace() == "" {
				t.Errorf("%s is namespaced but rendered without a namespace", key(o))
				continue
			}
			ri = dyn.Resource(m.Resource).Namespace(o.GetNamespace())
		}
		if _, err := ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
			t.Errorf("the API server rejects %s: %v", key(o), err)
		}
		for _, w := range warnings.take() {
			t.Errorf("the API server warns about %s: %s", key(o), w)
		}
	}
}

// checkPodsAdmitted creates the pods each workload would run and waits until
// they exist: PodSecurity enforcement and the Priority admission plugin
// (priorityClassName) judge real pods, not templates. A CronJob's pod comes
// from a Job made of its jobTemplate, as `kubectl create job --from=cronjob/`
// makes one; a Job (the chart's install-time check, applied like any object
// here) makes its own. No pod runs: nothing schedules them.
func checkPodsAdmitted(t *testing.T, cp *harness.ControlPlane, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	for _, w := range workloads(objs) {
		ns := w.GetNamespace()
		var selector string
		want := 1
		switch w.GetKind() {
		case "CronJob":
			var cj batchv1.CronJob
			toTyped(t, w, &cj)
			job := &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: cj.Name + "-admission", Namespace: ns, Labels: cj.Spec.JobTemplate.Labels},
				Spec:       cj.Spec.JobTemplate.Spec,
			}
			if _, err := cp.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
				t.Errorf("a Job from %s's jobTemplate: %v", key(w), err)
				continue
			}
			selector = "job-name=" + job.Name
		case "Job":
			// Applied above, so its controller is already creating the pod.
			selector = "job-name=" + w.GetName()
		case "Deployment":
			r, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
			want = int(r)
			ml, _, _ := unstructured.NestedStringMap(w.Object, "spec", "selector", "matchLabels")
			var parts []string
			for k, v := range ml {
				parts = append(parts, k+"="+v)
			}
			selector = strings.Join(parts, ",")
		}
		err := harness.WaitFor(ctx, time.Minute, fmt.Sprintf("%d pod(s) of %s", want, key(w)), func(ctx context.Context) (bool, error) {
			pods, err := cp.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			return err == nil && len(pods.Items) >= want, nil
		})
		if err != nil {
			t.Errorf("%v; the controller's events say: %s", err, failedCreates(t, cp, ns))
		}
	}
}

// failedCreates returns the FailedCreate events of a namespace: where a
// controller reports that the API server refused its pods.
func failedCreates(t *testing.T, cp *harness.ControlPlane, ns string) string {
	evs, err := cp.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=FailedCreate"})
	if err != nil {
		return err.Error()
	}
	var msgs []string
	for _, e := range evs.Items {
		msgs = append(msgs, e.Message)
	}
	return strings.Join(msgs, "; ")
}

// kustomizeInto renders an overlay as a user's own overlay on top of it
// would: in another namespace, with a name prefix (ClusterRoles are shared
// by the whole cluster, and several renderings are applied to one).
func kustomizeInto(t *testing.T, overlay, namespace, prefix string) []*unstructured.Unstructured {
	t.Helper()
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, kustomizeDir(t, overlay))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "kustomization.yaml", fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %s
namePrefix: %s
resources:
  - %s
`, namespace, prefix, filepath.ToSlash(rel)))
	return kustomizeBuild(t, dir)
}

// TestApplyToAPIServer applies every rendering — the chart with its default
// and its custom values, and each kustomize overlay moved to a namespace of
// its own — to a real API server, in a fresh namespace that enforces Pod
// Security "restricted": the API server accepts every object without a
// warning, and admits the pods the workloads create. For the overlays it
// also checks that the RBAC follows the ServiceAccount into the new
// namespace.
func TestApplyToAPIServer(t *testing.T) {
	cp := controlPlane(t)
	plain := rbacOf(t, "run")
	cases := []struct {
		name   string
		render func(ns string) []*unstructured.Unstructured
	}{
		{"chart-defaults", func(ns string) []*unstructured.Unstructured { return helmTemplate(t, "cd", ns) }},
		{"chart-custom", func(ns string) []*unstructured.Unstructured {
			return helmTemplate(t, "cc", ns, "--values", testdata("values-custom.yaml"))
		}},
		// The Services in front of /metrics; the ServiceMonitors and the
		// PrometheusRule need the Prometheus operator's CRDs, which this API
		// server does not have (nor fakes): TestMetricsServicesSelectTheirPods
		// and TestPrometheusRuleIsTheDocumentedOne check them by rendering.
		{"chart-monitoring", func(ns string) []*unstructured.Unstructured {
			return withoutOperatorKinds(t, helmTemplate(t, "cm", ns, "--set",
				"mode=deployment,scheduler.enabled=true,monitoring.serviceMonitor.enabled=true,monitoring.prometheusRule.enabled=true"))
		}},
		{"kustomize-cronjob", func(ns string) []*unstructured.Unstructured { return kustomizeInto(t, "cronjob", ns, "kc-") }},
		{"kustomize-deployment", func(ns string) []*unstructured.Unstructured { return kustomizeInto(t, "deployment", ns, "kd-") }},
		{"kustomize-scheduler", func(ns string) []*unstructured.Unstructured { return kustomizeInto(t, "scheduler", ns, "ks-") }},
		{"chart-extender", func(ns string) []*unstructured.Unstructured {
			return helmTemplate(t, "ce", ns, "--set", "extender.enabled=true,extender.tlsSecretName=ce-extender-tls")
		}},
		{"kustomize-extender", func(ns string) []*unstructured.Unstructured { return kustomizeInto(t, "extender", ns, "ke-") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns := "apply-" + c.name
			objs := c.render(ns)
			if strings.HasPrefix(c.name, "kustomize") {
				used := map[string]bool{}
				// The overlay's namespace: moves the run Lease's Role too
				// (docs/install.md says what to do about it).
				checkRBAC(t, c.name+" in "+ns, objs, "rebalancer", plain.inNamespace(ns), used)
			}
			restrictedNamespace(t, cp, ns)
			applyAll(t, cp, objs)
			checkPodsAdmitted(t, cp, objs)
			// Each object is there as rendered: applying it again changes
			// nothing the server keeps (an unknown field would have been
			// dropped, and come back as a diff here).
			for _, o := range objs {
				checkStored(t, cp, o)
			}
			for _, svc := range ofKind(objs, "Service") {
				checkServicePods(t, cp, svc)
			}
		})
	}
}

// withoutOperatorKinds drops the ServiceMonitors and the PrometheusRule,
// after checking that there are some to drop.
func withoutOperatorKinds(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var kept, dropped []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind().Group == "monitoring.coreos.com" {
			dropped = append(dropped, o)
		} else {
			kept = append(kept, o)
		}
	}
	if len(dropped) != 3 {
		t.Fatalf("rendered %s of monitoring.coreos.com; want 2 ServiceMonitors and a PrometheusRule", keys(dropped))
	}
	return kept
}

// checkServicePods: the pods the API server finds with a Service's selector
// are those of the Deployment of the same name, all of them.
func checkServicePods(t *testing.T, cp *harness.ControlPlane, svc *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	pods, err := cp.Client.CoreV1().Pods(svc.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(selector).String()})
	if err != nil {
		t.Fatal(err)
	}
	d, err := cp.Client.AppsV1().Deployments(svc.GetNamespace()).Get(ctx, svc.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s has no Deployment of its name: %v", key(svc), err)
	}
	for _, p := range pods.Items {
		owner := metav1.GetControllerOf(&p)
		// A ReplicaSet is named after its Deployment, with its hash last.
		if owner == nil || owner.Kind != "ReplicaSet" || owner.Name[:strings.LastIndex(owner.Name, "-")] != d.Name {
			t.Errorf("%s selects pod %s, owned by %v, not by Deployment %s", key(svc), p.Name, owner, d.Name)
		}
	}
	if want := int(*d.Spec.Replicas); len(pods.Items) != want {
		t.Errorf("%s selects %d pods; Deployment %s has %d", key(svc), len(pods.Items), d.Name, want)
	}
}

// checkStored fails when a field of the rendered object is not what the API
// server stored: a field the server does not know is pruned on write.
func checkStored(t *testing.T, cp *harness.ControlPlane, o *unstructured.Unstructured) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cp.RestConfig)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cp.RestConfig)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	gvk := o.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	stored, err := ri.Get(context.Background(), o.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		t.Errorf("%s was not stored", key(o))
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if path, diff := subsetDiff(o.Object, stored.Object, ""); diff != "" {
		t.Errorf("%s: the server stored %s differently: %s", key(o), path, diff)
	}
}

// subsetDiff reports the first value of want that got does not hold. The
// server adds defaults and status, so got may hold more.
func subsetDiff(want, got any, path string) (string, string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, fmt.Sprintf("%#v is not an object", got)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return path + "." + k, "missing"
			}
			if p, d := subsetDiff(wv, gv, path+"."+k); d != "" {
				return p, d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, fmt.Sprintf("%#v, want %#v", got, want)
		}
		for i := range w {
			if p, d := subsetDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return p, d
			}
		}
	default:
		// Quantities come back canonical ("1" stays "1", 1000m would become
		// "1"); the renderings use canonical forms, so plain equality holds.
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return path, fmt.Sprintf("%#v, want %#v", got, want)
		}
	}
	return "", ""
}
