package deploy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// comparable reduces a rendered object to what the chart and kustomize must
// agree on: everything but labels and annotations (Helm adds its own, and a
// checksum that restarts a Deployment when its ConfigMap changes), and the
// policy and scheduler configuration as what they mean rather than how they
// are written.
func comparable(t *testing.T, o *unstructured.Unstructured) map[string]any {
	t.Helper()
	c := o.DeepCopy().Object
	unstructured.RemoveNestedField(c, "metadata", "labels")
	unstructured.RemoveNestedField(c, "metadata", "annotations")
	switch o.GetKind() {
	case "Deployment":
		unstructured.RemoveNestedField(c, "spec", "selector")
		unstructured.RemoveNestedField(c, "spec", "template", "metadata")
	case "CronJob":
		unstructured.RemoveNestedField(c, "spec", "jobTemplate", "metadata")
		unstructured.RemoveNestedField(c, "spec", "jobTemplate", "spec", "template", "metadata")
	case "ConfigMap":
		data, _, _ := unstructured.NestedStringMap(c, "data")
		meaning := map[string]any{}
		for k, v := range data {
			if k == "policy.yaml" {
				p, err := policy.Load([]byte(v), key(o))
				if err != nil {
					t.Fatalf("%s: %v", key(o), err)
				}
				meaning[k] = policyJSON(t, p)
				continue
			}
			var parsed any
			if err := yaml.Unmarshal([]byte(v), &parsed); err != nil {
				t.Fatalf("%s %s: %v", key(o), k, err)
			}
			meaning[k] = parsed
		}
		c["data"] = meaning
	}
	return c
}

// TestKustomizeMatchesChart: each overlay renders the same objects as the
// chart with the matching values — same kinds, names, RBAC rules, container
// args, pod settings and policy — so that the two ways to install cannot
// drift apart.
func TestKustomizeMatchesChart(t *testing.T) {
	for _, c := range []struct {
		overlay string
		set     []string
	}{
		// The overlays evict; the documented overlay of one's own adds
		// --dry-run to start with.
		{"cronjob", []string{"--set", "dryRun=false"}},
		{"deployment", []string{"--set", "mode=deployment,dryRun=false"}},
		{"scheduler", []string{"--set", "scheduler.enabled=true,dryRun=false"}},
		{"extender", []string{"--set", "extender.enabled=true,dryRun=false"}},
	} {
		t.Run(c.overlay, func(t *testing.T) {
			// The overlays have no install-time check: a kustomize user
			// runs `rebalancer validate` on the policy file.
			chart := releaseObjects(helmTemplate(t, docRelease, docNamespace, c.set...))
			kust := kustomizeBuild(t, kustomizeDir(t, c.overlay))
			if ck, kk := keys(chart), keys(kust); !reflect.DeepEqual(ck, kk) {
				t.Fatalf("different objects:\nchart:     %s\nkustomize: %s", strings.Join(ck, ", "), strings.Join(kk, ", "))
			}
			for _, co := range chart {
				ko := find(t, kust, co.GetKind(), co.GetName())
				cc, kc := comparable(t, co), comparable(t, ko)
				if !reflect.DeepEqual(cc, kc) {
					cj, _ := json.MarshalIndent(cc, "", "  ")
					kj, _ := json.MarshalIndent(kc, "", "  ")
					t.Errorf("%s differs:\nchart:\n%s\nkustomize:\n%s", key(co), cj, kj)
				}
			}
		})
	}
}
