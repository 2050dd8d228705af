package deploy

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// TestHelmLint: `helm lint --strict` (warnings fail) passes with the
// default values and with the custom ones, given an image: lint does not
// count a template's `fail`, so without one it would check nothing of the
// workloads (TestChartRefusesWithoutImage shows the failure).
func TestHelmLint(t *testing.T) {
	helm := tools(t).helm
	for _, args := range [][]string{nil, {"--values", testdata("values-custom.yaml")},
		{"--set", "extender.enabled=true,extender.tlsSecretName=rebalancer-extender-tls"},
		{"--set", "monitoring.grafanaDashboard.enabled=true,monitoring.grafanaDashboard.namespace=monitoring,metrics.namespaceLabel=true"}} {
		cmd := append([]string{"lint", "--strict", chartDir(t)}, withTestImage...)
		out := run(t, repoRoot(t), nil, helm, append(cmd, args...)...)
		if strings.Contains(out, "[WARNING]") || strings.Contains(out, "[ERROR]") || !strings.Contains(out, "0 chart(s) failed") {
			t.Errorf("helm lint %v:\n%s", args, out)
		}
	}
}

// loadRenderedPolicy loads the policy ConfigMap's policy.yaml with the same
// loader `rebalancer run --policy` uses.
func loadRenderedPolicy(t testing.TB, objs []*unstructured.Unstructured, name string) *policy.Policy {
	t.Helper()
	data := configMapData(t, find(t, objs, "ConfigMap", name), "policy.yaml")
	p, err := policy.Load([]byte(data), "ConfigMap "+name)
	if err != nil {
		t.Fatalf("the rendered policy does not load: %v\n%s", err, data)
	}
	return p
}

func policyJSON(t testing.TB, p *policy.Policy) string {
	t.Helper()
	b, err := json.Marshal(p.RebalancePolicy)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestChartDefaults: the default values (and an image) render a CronJob,
// its policy, a ServiceAccount and its RBAC, the install-time check, and
// nothing else; the CronJob is the one the
// issue asks for; the policy is the binary's built-in default.
func TestChartDefaults(t *testing.T) {
	objs := helmTemplate(t, docRelease, docNamespace)
	want := []string{
		"ClusterRole rebalancer",
		"ClusterRoleBinding rebalancer",
		"ConfigMap rebalancer/rebalancer-policy",
		"ConfigMap rebalancer/rebalancer-validate",
		"CronJob rebalancer/rebalancer",
		"Job rebalancer/rebalancer-validate",
		"Role kube-system/rebalancer-run-lease",
		"Role rebalancer/rebalancer",
		"RoleBinding kube-system/rebalancer-run-lease",
		"RoleBinding rebalancer/rebalancer",
		"ServiceAccount rebalancer/rebalancer",
	}
	if got := keys(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("rendered objects:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	cj := find(t, objs, "CronJob", "rebalancer")
	for field, want := range map[string]any{
		"spec.schedule":                                     "*/2 * * * *",
		"spec.concurrencyPolicy":                            "Forbid",
		"spec.startingDeadlineSeconds":                      int64(60),
		"spec.successfulJobsHistoryLimit":                   int64(3),
		"spec.failedJobsHistoryLimit":                       int64(3),
		"spec.jobTemplate.spec.activeDeadlineSeconds":       int64(600),
		"spec.jobTemplate.spec.backoffLimit":                int64(0),
		"spec.jobTemplate.spec.template.spec.restartPolicy": "Never",
	} {
		got, ok, _ := unstructured.NestedFieldNoCopy(cj.Object, strings.Split(field, ".")...)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("CronJob %s = %#v, want %#v", field, got, want)
		}
	}
	// A first install evicts nothing.
	wantArgs := []string{"run", "--policy=/etc/rebalancer/policy.yaml", "--interval=0", "--max-duration=540s", "--output=table", "--qps=20", "--burst=30", "--dry-run"}
	if got := containerArgs(t, cj, "rebalancer"); !reflect.DeepEqual(got, wantArgs) {
		t.Errorf("CronJob args %q, want %q", got, wantArgs)
	}
	if img, _, _ := unstructured.NestedString(container0(t, cj, "rebalancer"), "image"); img != testImage {
		t.Errorf("image %s, want %s", img, testImage)
	}
	untagged := find(t, helmTemplate(t, docRelease, docNamespace, "--set", "image.tag="), "CronJob", "rebalancer")
	if img, _, _ := unstructured.NestedString(container0(t, untagged, "rebalancer"), "image"); img != testImageRepository+":"+chartAppVersion(t) {
		t.Errorf("without image.tag: image %s; want the chart's appVersion as tag", img)
	}

	got := policyJSON(t, loadRenderedPolicy(t, objs, "rebalancer-policy"))
	if want := policyJSON(t, policy.Default()); got != want {
		t.Errorf("the chart's default policy is not the binary's built-in one (policy/default.yaml):\nchart:    %s\nbuilt-in: %s", got, want)
	}
}

func chartAppVersion(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(chartDir(t) + "/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "appVersion:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	t.Fatal("Chart.yaml has no appVersion")
	return ""
}

// TestChartCustomValues: deployment mode with two replicas, the scheduler,
// per-namespace overrides and a Pushgateway render what each value says,
// and the rendered policy and scheduler configuration load in the code that
// reads them.
func TestChartCustomValues(t *testing.T) {
	objs := helmTemplate(t, "rb", "ops", "--values", testdata("values-custom.yaml"))
	want := []string{
		"ClusterRole rb-rebalancer",
		"ClusterRole rb-rebalancer-scheduler",
		"ClusterRole rb-rebalancer-uninstall-guard",
		"ClusterRoleBinding rb-rebalancer",
		"ClusterRoleBinding rb-rebalancer-scheduler",
		"ClusterRoleBinding rb-rebalancer-uninstall-guard",
		"ConfigMap ops/rb-rebalancer-policy",
		"ConfigMap ops/rb-rebalancer-scheduler-config",
		"ConfigMap ops/rb-rebalancer-validate",
		"Deployment ops/rb-rebalancer",
		"Deployment ops/rb-rebalancer-scheduler",
		"Job ops/rb-rebalancer-uninstall-guard",
		"Job ops/rb-rebalancer-validate",
		"Role kube-system/rb-rebalancer-run-lease",
		"Role ops/rb-rebalancer",
		"Role ops/rb-rebalancer-scheduler",
		"RoleBinding kube-system/rb-rebalancer-run-lease",
		"RoleBinding ops/rb-rebalancer",
		"RoleBinding ops/rb-rebalancer-scheduler",
		"ServiceAccount ops/rb-rebalancer",
		"ServiceAccount ops/rb-rebalancer-scheduler",
		"ServiceAccount ops/rb-rebalancer-uninstall-guard",
	}
	if got := keys(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("rendered objects:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	d := find(t, objs, "Deployment", "rb-rebalancer")
	wantArgs := []string{"run", "--policy=/etc/rebalancer/policy.yaml", "--interval=90s", "--output=json", "--qps=10", "--burst=15",
		"--v=2", "--pushgateway=http://pushgateway.monitoring.svc:9091", "--pushgateway-instance=prod-eu-1", "--metrics-addr=:9090", "--leader-elect"}
	if got := containerArgs(t, d, "rebalancer"); !reflect.DeepEqual(got, wantArgs) {
		t.Errorf("Deployment args %q, want %q", got, wantArgs)
	}
	if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 2 {
		t.Errorf("replicas %d, want 2", r)
	}
	// Leader election makes a rolling update safe; Recreate is only for one
	// replica without it.
	if s, ok, _ := unstructured.NestedString(d.Object, "spec", "strategy", "type"); ok {
		t.Errorf("strategy %s with leader election; want the default rolling update", s)
	}
	if d1 := find(t, helmTemplate(t, "rb", "ops", "--set", "mode=deployment"), "Deployment", "rb-rebalancer"); true {
		if s, _, _ := unstructured.NestedString(d1.Object, "spec", "strategy", "type"); s != "Recreate" {
			t.Errorf("one replica without leader election: strategy %q, want Recreate", s)
		}
		if args := containerArgs(t, d1, "rebalancer"); contains(args, "--leader-elect") {
			t.Errorf("one replica: args %q elect a leader", args)
		}
	}

	p := loadRenderedPolicy(t, objs, "rb-rebalancer-policy")
	if s := p.For("shop", map[string]string{"team": "payments"}); s.PerNamespaceLimit == nil || *s.PerNamespaceLimit != 1 {
		t.Errorf("the payments override does not limit its namespaces to 1 eviction: %+v", s.PerNamespaceLimit)
	}
	if s := p.For("batch", nil); s.Args("LowNodeUtilization") != nil {
		t.Errorf("the batch override does not turn LowNodeUtilization off")
	}
	if s := p.For("web", nil); s.Args("LowNodeUtilization") == nil {
		t.Errorf("LowNodeUtilization is off outside the overrides")
	}
	if p.Cooldown == nil || p.Cooldown.Duration.String() != "10m0s" {
		t.Errorf("cooldown %v, want 10m", p.Cooldown)
	}

	// Plans simulate the scheduler the chart runs.
	if p.Scheduler == nil {
		t.Errorf("with the scheduler enabled, the policy does not simulate it")
	} else if simulated, err := profile.LoadProfiles(p.Scheduler.Config, "policy scheduler.config"); err != nil {
		t.Errorf("the policy's scheduler.config does not load: %v", err)
	} else if _, ok := profile.ProfileByName(simulated, "rebalancer-placer"); !ok {
		t.Errorf("the policy simulates %+v, not the scheduler's profile rebalancer-placer", simulated)
	}

	sd := find(t, objs, "Deployment", "rb-rebalancer-scheduler")
	sargs := containerArgs(t, sd, "scheduler")
	for _, want := range []string{"schedule", "--config=/etc/rebalancer-scheduler/config.yaml", "--scheduler-name=rebalancer-placer", "--leader-elect", "--metrics-addr=:9090"} {
		if !contains(sargs, want) {
			t.Errorf("scheduler args %q lack %s", sargs, want)
		}
	}
	cfg := configMapData(t, find(t, objs, "ConfigMap", "rb-rebalancer-scheduler-config"), "config.yaml")
	profiles, err := profile.LoadProfiles([]byte(cfg), "scheduler ConfigMap")
	if err != nil {
		t.Fatalf("the rendered KubeSchedulerConfiguration does not load: %v\n%s", err, cfg)
	}
	if _, ok := profile.ProfileByName(profiles, "rebalancer-placer"); !ok || len(profiles) != 1 {
		t.Errorf("profiles %+v; want one, named rebalancer-placer as --scheduler-name says", profiles)
	}
	if !strings.Contains(cfg, "MostAllocated") || !strings.Contains(cfg, "ImageLocality") {
		t.Errorf("the profile values did not reach the configuration:\n%s", cfg)
	}
	if x := profiles[0].Extenders; len(x) != 1 || x[0].URLPrefix != "http://gpu-extender.kube-system:8888/scheduler" || x[0].Weight != 2 || !x[0].NodeCacheCapable {
		t.Errorf("extenders %+v; want the one of the values", x)
	}
	if r, _, _ := unstructured.NestedInt64(sd.Object, "spec", "replicas"); r != 3 {
		t.Errorf("scheduler replicas %d, want 3", r)
	}

	// By default the scheduler runs two replicas, one of which the Lease
	// elects.
	def := find(t, helmTemplate(t, "rb", "ops", "--set", "scheduler.enabled=true"), "Deployment", "rb-rebalancer-scheduler")
	if r, _, _ := unstructured.NestedInt64(def.Object, "spec", "replicas"); r != 2 || !contains(containerArgs(t, def, "scheduler"), "--leader-elect") {
		t.Errorf("default scheduler: %d replicas, args %q; want 2 with --leader-elect", r, containerArgs(t, def, "scheduler"))
	}
}

// TestSchemaRejectsBadValues: values.schema.json stops bad values at
// `helm template`/`helm install` time and names the field; the valid custom
// values (TestChartCustomValues) show it does not reject everything.
func TestSchemaRejectsBadValues(t *testing.T) {
	helm := tools(t).helm
	cases := []struct {
		name, values, wantField string
	}{
		{"testdata/values-invalid.yaml", "", "/policy/strategies/LowNodeUtilization/targetThresholds/cpu"},
		{"threshold below 0", "policy: {strategies: {LowNodeUtilization: {thresholds: {cpu: -1}}}}", "/thresholds/cpu"},
		{"unknown mode", "mode: daemonset", "/mode"},
		{"negative limit", "policy: {limits: {total: -1}}", "/policy/limits/total"},
		{"typo in the policy", "policy: {limit: {total: 3}}", "/policy"},
		{"unknown strategy", "policy: {strategies: {RemoveEverything: {}}}", "/policy/strategies"},
		{"node pool without a name", "policy: {strategies: {LowNodeUtilization: {nodePools: [{nodeSelector: {}}]}}}", "/policy/strategies/LowNodeUtilization/nodePools/0"},
		// Helm names the field badly for propertyNames; the name is what counts.
		{"not a resource name", "policy: {strategies: {LowNodeUtilization: {thresholds: {CPU: 10}, targetThresholds: {CPU: 20}}}}", "invalid propertyName 'CPU'"},
		{"override by name and selector", "policy: {overrides: [{namespaces: [a], namespaceSelector: {matchLabels: {x: y}}}]}", "/policy/overrides/0"},
		{"override with node-level thresholds", "policy: {overrides: [{namespaces: [a], strategies: {LowNodeUtilization: {thresholds: {cpu: 10}}}}]}", "/policy/overrides/0/strategies/LowNodeUtilization"},
		{"namespace include and exclude", "policy: {namespaces: {include: [a], exclude: [b]}}", "/policy/namespaces"},
		{"bad namespace name", "policy: {namespaces: {exclude: [Kube_System]}}", "/policy/namespaces/exclude/0"},
		{"bad duration", "policy: {cooldown: 5 minutes}", "/policy/cooldown"},
		{"priority by value and name", "policy: {evictable: {priorityThreshold: {value: 1000, name: high}}}", "/policy/evictable/priorityThreshold"},
		{"concurrent cycles", "cronJob: {concurrencyPolicy: Allow}", "/cronJob/concurrencyPolicy"},
		{"bad schedule", "cronJob: {schedule: every minute}", "/cronJob/schedule"},
		{"zero replicas", "deployment: {replicas: 0}", "/deployment/replicas"},
		{"interval 0 in a Deployment", "deployment: {interval: \"0\"}", "/deployment/interval"},
		{"output format", "output: xml", "/output"},
		{"qps as text", "kubeAPI: {qps: fast}", "/kubeAPI/qps"},
		{"resources without limits", "resources: {limits: null}", "/resources"},
		{"pushgateway not a URL", "metrics: {pushgateway: pushgateway:9091}", "/metrics/pushgateway"},
		{"metrics port out of range", "metrics: {port: 70000}", "/metrics/port"},
		{"alert threshold not a Prometheus duration", "monitoring: {prometheusRule: {failingFor: 10 minutes}}", "/monitoring/prometheusRule/failingFor"},
		{"typo in monitoring", "monitoring: {serviceMonitor: {enable: true}}", "/monitoring/serviceMonitor"},
		{"dashboard in a namespace that cannot be", "monitoring: {grafanaDashboard: {enabled: true, namespace: Monitoring}}", "/monitoring/grafanaDashboard/namespace"},
		{"dashboard label as a number", "monitoring: {grafanaDashboard: {enabled: true, labels: {grafana_dashboard: 1}}}", "/monitoring/grafanaDashboard/labels/grafana_dashboard"},
		{"namespace label as text", "metrics: {namespaceLabel: \"yes\"}", "/metrics/namespaceLabel"},
		{"scheduler named like the default one", "scheduler: {schedulerName: default-scheduler}", "/scheduler/schedulerName"},
		{"scheduler profile names itself", "scheduler: {profile: {schedulerName: x}}", "/scheduler/profile"},
		{"run Lease without a name", "runLease: {namespace: ops, name: \"\"}", "/runLease/name"},
		{"run Lease without a namespace", "runLease: {namespace: \"\", name: lock}", "/runLease/namespace"},
		{"unknown key in the run Lease", "runLease: {namespace: ops, lease: lock}", "/runLease"},
		{"unknown top-level value", "replicaCount: 2", "replicaCount"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := testdata("values-invalid.yaml")
			if c.values != "" {
				file = writeFile(t, t.TempDir(), "values.yaml", c.values+"\n")
			}
			out, stderr, err := runErr(repoRoot(t), nil, helm, "template", "r", chartDir(t), "--values", file)
			if err == nil {
				t.Fatalf("helm template accepted %s:\n%s", c.values, out)
			}
			if !strings.Contains(stderr, "values don't meet the specifications of the schema") || !strings.Contains(stderr, c.wantField) {
				t.Errorf("helm template failed, but not with a schema error at %s:\n%s", c.wantField, stderr)
			}
		})
	}
}

// renderings are every way the objects are rendered: the chart's default
// and custom values, and each kustomize overlay.
func renderings(t *testing.T) map[string][]*unstructured.Unstructured {
	return map[string][]*unstructured.Unstructured{
		"chart defaults":       helmTemplate(t, docRelease, docNamespace),
		"chart custom":         helmTemplate(t, "rb", "ops", "--values", testdata("values-custom.yaml")),
		"kustomize/cronjob":    kustomizeBuild(t, kustomizeDir(t, "cronjob")),
		"kustomize/deployment": kustomizeBuild(t, kustomizeDir(t, "deployment")),
		"kustomize/scheduler":  kustomizeBuild(t, kustomizeDir(t, "scheduler")),
		"chart with the extender (HTTPS)": helmTemplate(t, docRelease, docNamespace,
			"--set", "extender.enabled=true,extender.tlsSecretName=rebalancer-extender-tls"),
		"kustomize/extender": kustomizeBuild(t, kustomizeDir(t, "extender")),
	}
}

// TestPodSecurity: every pod the chart or kustomize runs is non-root with a
// read-only root filesystem, no capabilities, no privilege escalation and
// the RuntimeDefault seccomp profile (Pod Security "restricted"), has
// resource requests and limits and the critical priority class. A pod that
// talks to the API server runs under its own ServiceAccount, and learns its
// namespace from the downward API when it keeps state there (run,
// schedule); one that does not (the install-time check) mounts no token at
// all. The API server's own PodSecurity check of
// the same objects is in TestApplyToAPIServer.
func TestPodSecurity(t *testing.T) {
	for name, objs := range renderings(t) {
		ws := workloads(objs)
		if len(ws) == 0 {
			t.Errorf("%s: no workload", name)
		}
		for _, w := range ws {
			at := name + ": " + key(w)
			spec := podSpec(t, w)
			check := func(obj map[string]any, path string, want any) {
				got, ok, _ := unstructured.NestedFieldNoCopy(obj, strings.Split(path, ".")...)
				if !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s = %#v, want %#v", at, path, got, want)
				}
			}
			check(spec, "securityContext.runAsNonRoot", true)
			check(spec, "securityContext.seccompProfile.type", "RuntimeDefault")
			// The critical classes are refused outside kube-system where the
			// API server limits them (TestApplyToAPIServer's does).
			if pc, _, _ := unstructured.NestedString(spec, "priorityClassName"); pc == "system-cluster-critical" || pc == "system-node-critical" {
				t.Errorf("%s: priorityClassName %s", at, pc)
			}
			offline := false
			if mount, ok, _ := unstructured.NestedBool(spec, "automountServiceAccountToken"); ok && !mount {
				offline = true
			}
			if sa, _, _ := unstructured.NestedString(spec, "serviceAccountName"); !offline && (sa == "" || sa == "default") {
				t.Errorf("%s: serviceAccountName %q with a token; want its own", at, sa)
			}
			cs, _, _ := unstructured.NestedSlice(spec, "containers")
			for _, c := range cs {
				c := c.(map[string]any)
				check(c, "securityContext.allowPrivilegeEscalation", false)
				check(c, "securityContext.readOnlyRootFilesystem", true)
				check(c, "securityContext.runAsNonRoot", true)
				check(c, "securityContext.capabilities.drop", []any{"ALL"})
				if _, ok, _ := unstructured.NestedFieldNoCopy(c, "securityContext", "capabilities", "add"); ok {
					t.Errorf("%s: adds capabilities", at)
				}
				for _, kind := range []string{"requests", "limits"} {
					for _, r := range []string{"cpu", "memory"} {
						if _, ok, _ := unstructured.NestedFieldNoCopy(c, "resources", kind, r); !ok {
							t.Errorf("%s: no %s %s", at, r, kind)
						}
					}
				}
				env, _, _ := unstructured.NestedSlice(c, "env")
				found := false
				for _, e := range env {
					e := e.(map[string]any)
					fp, _, _ := unstructured.NestedString(e, "valueFrom", "fieldRef", "fieldPath")
					found = found || (e["name"] == "POD_NAMESPACE" && fp == "metadata.namespace")
				}
				// run and schedule keep their state and Lease in their own
				// namespace; the other commands need none.
				args, _, _ := unstructured.NestedStringSlice(c, "args")
				keepsState := len(args) > 0 && (args[0] == "run" || args[0] == "schedule")
				if !found && keepsState {
					t.Errorf("%s: POD_NAMESPACE does not come from metadata.namespace: %v", at, env)
				}
			}
		}
	}
}

// notesOf renders NOTES.txt as `helm install` prints it.
func notesOf(t testing.TB, install string) string {
	t.Helper()
	_, notes, ok := strings.Cut(install, "NOTES:\n")
	if !ok {
		t.Fatalf("no NOTES in:\n%s", install)
	}
	return notes
}

// TestChartRunLease: the run Lease moves only as a whole, and where it
// goes the CronJob's runs are told (--run-lease) and the ServiceAccount is
// granted it; at its default the args say nothing of it.
func TestChartRunLease(t *testing.T) {
	objs := helmTemplate(t, docRelease, docNamespace, "--set", "runLease.namespace=ops,runLease.name=cluster-run-lock")
	args := containerArgs(t, find(t, objs, "CronJob", "rebalancer"), "rebalancer")
	if !slices.Contains(args, "--run-lease=ops/cluster-run-lock") {
		t.Errorf("CronJob args %q lack --run-lease=ops/cluster-run-lock", args)
	}
	var role rbacv1.Role
	for _, o := range ofKind(objs, "Role") {
		if o.GetNamespace() == "ops" && o.GetName() == "rebalancer-run-lease" {
			toTyped(t, o, &role)
		}
	}
	if len(role.Rules) != 2 || !slices.Equal(role.Rules[1].ResourceNames, []string{"cluster-run-lock"}) {
		t.Errorf("Role ops/rebalancer-run-lease rules %+v, want get and update on cluster-run-lock", role.Rules)
	}
	if defaults := containerArgs(t, find(t, helmTemplate(t, docRelease, docNamespace), "CronJob", "rebalancer"), "rebalancer"); slices.ContainsFunc(defaults, func(a string) bool {
		return strings.HasPrefix(a, "--run-lease")
	}) {
		t.Errorf("default CronJob args %q name the run Lease", defaults)
	}
}

// Values written for an earlier chart name a per-step bound by its former
// flat name; the chart's default names it perStep. An upgrade with such
// values keeps the user's bound instead of refusing one bound set twice.
func TestChartKeepsFormerLimitNames(t *testing.T) {
	for _, tc := range []struct {
		name         string
		set          []string
		wantNode     int32
		wantNodeFrom string
		wantWorkload string
	}{
		{"chart default", nil, 5, "limits.perStep.node", ""},
		{"former perNode replaces the default", []string{"policy.limits.perNode=3"}, 3, "limits.perNode", ""},
		{"former perWorkload beside the default", []string{"policy.limits.perWorkload=2"}, 5, "limits.perStep.node", "2"},
		{"current name", []string{"policy.limits.perStep.node=2"}, 2, "limits.perStep.node", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			p := loadRenderedPolicy(t, helmTemplate(t, "rb", "ops", args...), "rb-rebalancer-policy")
			step := p.Limits.Step()
			if step.Node.Max == nil || *step.Node.Max != tc.wantNode || step.Node.Field != tc.wantNodeFrom {
				t.Errorf("per-step node bound %v from %q, want %d from %q", step.Node.Max, step.Node.Field, tc.wantNode, tc.wantNodeFrom)
			}
			got := ""
			if step.Workload.Max != nil {
				got = step.Workload.Max.String()
			}
			if got != tc.wantWorkload {
				t.Errorf("per-step workload bound %q, want %q", got, tc.wantWorkload)
			}
		})
	}
}
