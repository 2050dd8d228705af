package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The kinds of the Prometheus operator's CRDs. The test API server has no
// such CRDs, so the chart's objects of these kinds are checked by rendering
// and structure only, never applied.
var operatorKinds = []string{"ServiceMonitor", "PrometheusRule"}

func monitoringDoc(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "monitoring.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// documentedRules returns the rule groups of docs/monitoring.md's rule file
// (the ```yaml block headed "# rebalancer-rules.yaml"), through JSON so
// that they compare with a rendered object's.
func documentedRules(t *testing.T) []any {
	t.Helper()
	const head = "```yaml\n# rebalancer-rules.yaml\n"
	doc := monitoringDoc(t)
	_, rest, ok := strings.Cut(doc, head)
	if !ok {
		t.Fatalf("docs/monitoring.md has no block starting %q", head)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("docs/monitoring.md: the rule file's block is not closed")
	}
	var file struct {
		Groups []any `json:"groups"`
	}
	if err := yaml.UnmarshalStrict([]byte(block), &file); err != nil {
		t.Fatalf("docs/monitoring.md's rule file: %v", err)
	}
	return viaJSON(t, file.Groups).([]any)
}

func viaJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// alerts returns the rules of the groups by alert name, in order.
func alerts(t *testing.T, groups []any) ([]string, map[string]map[string]any) {
	t.Helper()
	var names []string
	byName := map[string]map[string]any{}
	for _, g := range groups {
		rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
		for _, r := range rules {
			r := r.(map[string]any)
			name, _ := r["alert"].(string)
			names = append(names, name)
			byName[name] = r
		}
	}
	return names, byName
}

// TestMonitoringOffByDefault: no Service, ServiceMonitor or PrometheusRule
// renders unless asked for, even where there is a /metrics to scrape.
func TestMonitoringOffByDefault(t *testing.T) {
	for _, set := range []string{"mode=cronjob", "mode=deployment", "mode=deployment,scheduler.enabled=true,deployment.replicas=2"} {
		objs := helmTemplate(t, "r", "ns", "--set", set)
		for _, kind := range append([]string{"Service"}, operatorKinds...) {
			if got := ofKind(objs, kind); len(got) > 0 {
				t.Errorf("--set %s renders %s by default", set, strings.Join(keys(got), ", "))
			}
		}
	}
}

// TestPrometheusRuleIsTheDocumentedOne: the chart's PrometheusRule holds
// exactly the rule file docs/monitoring.md gives, field for field (the
// scheduler's alert only with the scheduler), and its thresholds come from
// the values.
func TestPrometheusRuleIsTheDocumentedOne(t *testing.T) {
	doc := documentedRules(t)
	docNames, docRules := alerts(t, doc)
	if len(docNames) < 5 {
		t.Fatalf("docs/monitoring.md gives %d alerts: %q", len(docNames), docNames)
	}
	rule := func(t *testing.T, set string) *unstructured.Unstructured {
		t.Helper()
		rules := ofKind(helmTemplate(t, "r", "ns", "--set", "monitoring.prometheusRule.enabled=true,"+set), "PrometheusRule")
		if len(rules) != 1 {
			t.Fatalf("--set %s: %d PrometheusRules, want 1", set, len(rules))
		}
		if api := rules[0].GetAPIVersion(); api != "monitoring.coreos.com/v1" {
			t.Errorf("apiVersion %s", api)
		}
		return rules[0]
	}
	groups := func(t *testing.T, r *unstructured.Unstructured) []any {
		g, _, _ := unstructured.NestedSlice(r.Object, "spec", "groups")
		return viaJSON(t, g).([]any)
	}

	t.Run("with the scheduler", func(t *testing.T) {
		got := groups(t, rule(t, "scheduler.enabled=true"))
		if !reflect.DeepEqual(got, doc) {
			g, _ := yaml.Marshal(got)
			d, _ := yaml.Marshal(doc)
			t.Errorf("the chart's rules differ from docs/monitoring.md's:\nchart:\n%s\ndocs:\n%s", g, d)
		}
	})
	t.Run("without the scheduler", func(t *testing.T) {
		names, byName := alerts(t, groups(t, rule(t, "scheduler.enabled=false")))
		want := slices.DeleteFunc(slices.Clone(docNames), func(n string) bool { return strings.Contains(n, "Scheduler") })
		if !reflect.DeepEqual(names, want) {
			t.Errorf("alerts %q, want %q", names, want)
		}
		for _, n := range names {
			if !reflect.DeepEqual(byName[n], docRules[n]) {
				t.Errorf("%s: %v, want %v", n, byName[n], docRules[n])
			}
		}
	})
	t.Run("thresholds and labels from the values", func(t *testing.T) {
		r := rule(t, "scheduler.enabled=true,monitoring.prometheusRule.noSuccessMinutes=90,monitoring.prometheusRule.failingFor=1h,"+
			"monitoring.prometheusRule.refusedFor=2h,monitoring.prometheusRule.schedulerPendingFor=5m,monitoring.prometheusRule.labels.release=prom")
		if r.GetLabels()["release"] != "prom" {
			t.Errorf("labels %v lack release=prom", r.GetLabels())
		}
		_, byName := alerts(t, groups(t, r))
		for _, c := range []struct{ alert, field, want string }{
			{"RebalancerNoRecentSuccess", "expr", "time() - max without (instance, pod) (rebalancer_last_success_timestamp_seconds) > 90 * 60"},
			{"RebalancerNoSuccessRecorded", "for", "90m"},
			{"RebalancerRunsFailing", "for", "1h"},
			{"RebalancerEvictionsRefused", "for", "2h"},
			{"RebalancerSchedulerPodsPending", "for", "5m"},
		} {
			if got := byName[c.alert][c.field]; got != c.want {
				t.Errorf("%s %s = %v, want %q", c.alert, c.field, got, c.want)
			}
		}
	})
}

// TestMonitoringDocCoversTheMetrics: every metric the code registers, and
// every metric an alert rule reads, has its row in docs/monitoring.md.
func TestMonitoringDocCoversTheMetrics(t *testing.T) {
	doc := monitoringDoc(t)
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(rebalancer_\\w+)` \\| (counter|gauge|histogram) \\|").FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = true
	}
	name := regexp.MustCompile(`Name:\s+"(rebalancer_\w+)"`)
	for _, file := range []string{"report/metrics.go", "schedulerd/metrics.go"} {
		src, err := os.ReadFile(filepath.Join(repoRoot(t), file))
		if err != nil {
			t.Fatal(err)
		}
		found := name.FindAllStringSubmatch(string(src), -1)
		if len(found) == 0 {
			t.Errorf("%s registers no rebalancer_ metric that this test can see", file)
		}
		for _, m := range found {
			if !documented[m[1]] {
				t.Errorf("%s registers %s, which docs/monitoring.md does not list", file, m[1])
			}
		}
	}
	_, rules := alerts(t, documentedRules(t))
	for alert, r := range rules {
		expr, _ := r["expr"].(string)
		for _, m := range regexp.MustCompile(`rebalancer_\w+`).FindAllString(expr, -1) {
			if !documented[m] {
				t.Errorf("%s reads %s, which docs/monitoring.md does not list", alert, m)
			}
		}
	}
}

// TestMetricsServicesSelectTheirPods: with monitoring.serviceMonitor
// enabled, each process that serves /metrics gets a Service whose selector
// matches the pods of its own Deployment and of no other workload, whose
// port leads to the container port that --metrics-addr listens on, and a
// ServiceMonitor that selects that Service alone, on that port. A CronJob
// has none: its runs push.
func TestMetricsServicesSelectTheirPods(t *testing.T) {
	const port = 9090
	cases := []struct {
		name string
		set  string
		want []string // the Deployments scraped
	}{
		{"deployment and scheduler", "mode=deployment,deployment.replicas=2,scheduler.enabled=true", []string{"rb-rebalancer", "rb-rebalancer-scheduler"}},
		{"deployment", "mode=deployment", []string{"rb-rebalancer"}},
		{"cronjob and scheduler", "mode=cronjob,scheduler.enabled=true", []string{"rb-rebalancer-scheduler"}},
		{"cronjob", "mode=cronjob", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := helmTemplate(t, "rb", "ops", "--set", c.set+",metrics.port="+strconv.Itoa(port)+
				",monitoring.serviceMonitor.enabled=true,monitoring.serviceMonitor.interval=45s,monitoring.serviceMonitor.labels.release=prom")
			checkMetricsServices(t, objs, port, c.want, true)
		})
	}
	t.Run("services only", func(t *testing.T) {
		objs := helmTemplate(t, "rb", "ops", "--set", "mode=deployment,scheduler.enabled=true,monitoring.service.enabled=true")
		checkMetricsServices(t, objs, 8080, []string{"rb-rebalancer", "rb-rebalancer-scheduler"}, false)
	})
	t.Run("no metrics port", func(t *testing.T) {
		args := append([]string{"template", "rb", chartDir(t)}, withTestImage...)
		args = append(args, "--set", "mode=deployment,metrics.port=0,monitoring.serviceMonitor.enabled=true")
		out, stderr, err := runErr(repoRoot(t), nil, tools(t).helm, args...)
		if err == nil || !strings.Contains(stderr, "metrics.port is 0") {
			t.Errorf("a ServiceMonitor without /metrics: err %v\n%s%s", err, stderr, out)
		}
	})
}

func checkMetricsServices(t *testing.T, objs []*unstructured.Unstructured, port int64, want []string, monitors bool) {
	t.Helper()
	services := ofKind(objs, "Service")
	var names []string
	for _, s := range services {
		names = append(names, s.GetName())
	}
	if !reflect.DeepEqual(names, want) && len(names)+len(want) > 0 {
		t.Errorf("Services %q, want %q", names, want)
	}
	for _, s := range services {
		selector, _, _ := unstructured.NestedStringMap(s.Object, "spec", "selector")
		if len(selector) == 0 {
			t.Errorf("%s selects every pod", key(s))
			continue
		}
		var matched []*unstructured.Unstructured
		for _, w := range workloads(objs) {
			tmpl := "spec.template.metadata.labels"
			if w.GetKind() == "CronJob" {
				tmpl = "spec.jobTemplate.spec.template.metadata.labels"
			}
			podLabels, _, _ := unstructured.NestedStringMap(w.Object, strings.Split(tmpl, ".")...)
			if labels.SelectorFromSet(selector).Matches(labels.Set(podLabels)) {
				matched = append(matched, w)
			}
		}
		if len(matched) != 1 || matched[0].GetKind() != "Deployment" || matched[0].GetName() != s.GetName() {
			t.Errorf("%s selects the pods of %q; want those of Deployment %s alone", key(s), keys(matched), s.GetName())
			continue
		}
		ports, _, _ := unstructured.NestedSlice(s.Object, "spec", "ports")
		if len(ports) != 1 {
			t.Fatalf("%s has ports %v; want one", key(s), ports)
		}
		sp := ports[0].(map[string]any)
		if sp["name"] != "metrics" || sp["port"] != port {
			t.Errorf("%s port %v; want metrics, %d", key(s), sp, port)
		}
		target, _ := sp["targetPort"].(string)
		found := false
		cs, _, _ := unstructured.NestedSlice(podSpec(t, matched[0]), "containers")
		for _, ci := range cs {
			c := ci.(map[string]any)
			cports, _, _ := unstructured.NestedSlice(c, "ports")
			for _, cp := range cports {
				cp := cp.(map[string]any)
				if cp["name"] == target {
					found = true
					args, _, _ := unstructured.NestedStringSlice(c, "args")
					if cp["containerPort"] != port || !contains(args, "--metrics-addr=:"+strconv.FormatInt(port, 10)) {
						t.Errorf("%s targets port %s = %v of a container with args %q; want %d, served by --metrics-addr", key(s), target, cp["containerPort"], args, port)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s targets port %q, which no container of %s names", key(s), target, key(matched[0]))
		}
	}

	sms := ofKind(objs, "ServiceMonitor")
	if !monitors {
		if len(sms) > 0 {
			t.Errorf("ServiceMonitors %s without monitoring.serviceMonitor.enabled", keys(sms))
		}
		return
	}
	if len(sms) != len(services) {
		t.Errorf("%d ServiceMonitors for %d Services", len(sms), len(services))
	}
	for _, sm := range sms {
		if sm.GetAPIVersion() != "monitoring.coreos.com/v1" || sm.GetLabels()["release"] != "prom" {
			t.Errorf("%s: apiVersion %s, labels %v; want monitoring.coreos.com/v1 and release=prom", key(sm), sm.GetAPIVersion(), sm.GetLabels())
		}
		ml, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
		var matched []*unstructured.Unstructured
		for _, s := range services {
			if len(ml) > 0 && labels.SelectorFromSet(ml).Matches(labels.Set(s.GetLabels())) {
				matched = append(matched, s)
			}
		}
		if len(matched) != 1 || matched[0].GetName() != sm.GetName() || matched[0].GetNamespace() != sm.GetNamespace() {
			t.Errorf("%s selects Services %q; want %s alone", key(sm), keys(matched), sm.GetName())
		}
		eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		if len(eps) != 1 {
			t.Fatalf("%s has endpoints %v; want one", key(sm), eps)
		}
		ep := eps[0].(map[string]any)
		if ep["port"] != "metrics" || ep["path"] != "/metrics" || ep["interval"] != "45s" {
			t.Errorf("%s endpoint %v; want port metrics (the Service's), path /metrics, interval 45s", key(sm), ep)
		}
	}
}

// TestGrafanaDashboard: monitoring.grafanaDashboard puts the dashboard of
// charts/rebalancer/dashboards, byte for byte, in a ConfigMap with the
// label Grafana's sidecar looks for, where the values say; without it there
// is none. The dashboard reads its Prometheus from the ${datasource}
// variable, and only metrics docs/monitoring.md lists.
func TestGrafanaDashboard(t *testing.T) {
	file, err := os.ReadFile(filepath.Join(chartDir(t), "dashboards", "rebalancer.json"))
	if err != nil {
		t.Fatal(err)
	}
	dashboards := func(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, cm := range ofKind(objs, "ConfigMap") {
			if _, ok := cm.GetLabels()["grafana_dashboard"]; ok || strings.HasSuffix(cm.GetName(), "-dashboard") {
				out = append(out, cm)
			}
		}
		return out
	}
	cases := []struct {
		name      string
		set       string
		want      bool
		namespace string
		labels    map[string]string
		annotated map[string]string
	}{
		{name: "off by default", set: "mode=cronjob"},
		{name: "off, with everything else", set: "mode=deployment,scheduler.enabled=true,monitoring.serviceMonitor.enabled=true,monitoring.prometheusRule.enabled=true"},
		{name: "on", set: "monitoring.grafanaDashboard.enabled=true", want: true, namespace: "ns",
			labels: map[string]string{"grafana_dashboard": "1"}},
		{name: "on, where the sidecar looks", want: true, namespace: "monitoring",
			set: "monitoring.grafanaDashboard.enabled=true,monitoring.grafanaDashboard.namespace=monitoring," +
				"monitoring.grafanaDashboard.labels.team=platform,monitoring.grafanaDashboard.annotations.grafana_folder=rebalancer",
			labels:    map[string]string{"grafana_dashboard": "1", "team": "platform"},
			annotated: map[string]string{"grafana_folder": "rebalancer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := dashboards(helmTemplate(t, "r", "ns", "--set", c.set))
			if !c.want {
				if len(got) > 0 {
					t.Fatalf("--set %s renders %s", c.set, strings.Join(keys(got), ", "))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("--set %s: %d dashboard ConfigMaps (%s), want 1", c.set, len(got), strings.Join(keys(got), ", "))
			}
			cm := got[0]
			if cm.GetName() != "r-rebalancer-dashboard" || cm.GetNamespace() != c.namespace {
				t.Errorf("ConfigMap %s, want ConfigMap %s/r-rebalancer-dashboard", key(cm), c.namespace)
			}
			for k, v := range c.labels {
				if cm.GetLabels()[k] != v {
					t.Errorf("labels %v, want %s: %q among them", cm.GetLabels(), k, v)
				}
			}
			if !reflect.DeepEqual(cm.GetAnnotations(), c.annotated) && len(cm.GetAnnotations())+len(c.annotated) > 0 {
				t.Errorf("annotations %v, want %v", cm.GetAnnotations(), c.annotated)
			}
			if data := configMapData(t, cm, "rebalancer.json"); data != string(file) {
				t.Errorf("the ConfigMap's rebalancer.json differs from dashboards/rebalancer.json (%d bytes, the file %d)", len(data), len(file))
			}
		})
	}

	t.Run("the dashboard", func(t *testing.T) {
		checkDashboard(t, file, monitoringDoc(t))
	})
}

// checkDashboard checks what Grafana needs of a dashboard to import it with
// a data source of the user's choice, and that its queries read documented
// metrics.
func checkDashboard(t *testing.T, file []byte, doc string) {
	t.Helper()
	type target struct {
		Expr       string `json:"expr"`
		Datasource struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		} `json:"datasource"`
	}
	type panel struct {
		Type       string `json:"type"`
		Title      string `json:"title"`
		ID         int    `json:"id"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		GridPos struct{ H, W, X, Y int } `json:"gridPos"`
		Targets []target                 `json:"targets"`
	}
	var d struct {
		UID           string  `json:"uid"`
		Title         string  `json:"title"`
		SchemaVersion int     `json:"schemaVersion"`
		Panels        []panel `json:"panels"`
		Templating    struct {
			List []struct {
				Name, Type, Query string
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(file, &d); err != nil {
		t.Fatalf("dashboards/rebalancer.json: %v", err)
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion == 0 || len(d.Panels) == 0 {
		t.Errorf("uid %q, title %q, schemaVersion %d, %d panels: a dashboard needs all four", d.UID, d.Title, d.SchemaVersion, len(d.Panels))
	}
	found := false
	for _, v := range d.Templating.List {
		found = found || v.Name == "datasource" && v.Type == "datasource" && v.Query == "prometheus"
	}
	if !found {
		t.Errorf("no variable datasource of type datasource for prometheus among %+v", d.Templating.List)
	}

	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(rebalancer_\\w+)` \\| (counter|gauge|histogram) \\|").FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = true
	}
	read := map[string]bool{}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel %q: id %d is taken", p.Title, p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q does not read ${datasource}", p.Title)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if tg.Datasource.Type != "prometheus" || tg.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q: a query reads %s %q, not prometheus ${datasource}", p.Title, tg.Datasource.Type, tg.Datasource.UID)
			}
			for _, m := range regexp.MustCompile(`rebalancer_\w+`).FindAllString(tg.Expr, -1) {
				m = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")
				read[m] = true
				if !documented[m] {
					t.Errorf("panel %q reads %s, which docs/monitoring.md does not list", p.Title, m)
				}
			}
		}
	}
	// What the dashboard is for: rebalancing seen over weeks.
	for _, m := range []string{"rebalancer_evictions_total", "rebalancer_candidates_skipped_total", "rebalancer_cycle_duration_seconds",
		"rebalancer_last_cycle_success", "rebalancer_strategy_duration_seconds", "rebalancer_node_utilization_ratio"} {
		if !read[m] {
			t.Errorf("no panel reads %s", m)
		}
	}
}

// TestChartMetricsNamespaceLabel: metrics.namespaceLabel passes
// --metrics-namespace-label to the runs, in either mode, and only then.
func TestChartMetricsNamespaceLabel(t *testing.T) {
	for _, c := range []struct {
		set, kind string
		want      bool
	}{
		{"mode=cronjob", "CronJob", false},
		{"mode=cronjob,metrics.namespaceLabel=true", "CronJob", true},
		{"mode=deployment", "Deployment", false},
		{"mode=deployment,metrics.namespaceLabel=true", "Deployment", true},
	} {
		args := containerArgs(t, find(t, helmTemplate(t, "r", "ns", "--set", c.set), c.kind, "r-rebalancer"), "rebalancer")
		if got := slices.Contains(args, "--metrics-namespace-label"); got != c.want {
			t.Errorf("--set %s: --metrics-namespace-label among the args: %v, want %v (%q)", c.set, got, c.want, args)
		}
	}
}
