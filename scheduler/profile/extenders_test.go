package profile

import (
	"slices"
	"testing"
	"time"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
)

func TestLoadProfilesReadsExtenders(t *testing.T) {
	cfg := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: a
- schedulerName: b
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/old]
      scoringStrategy: {type: MostAllocated}
extenders:
- urlPrefix: https://gpu.example:8443/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  bindVerb: bind
  weight: 5
  enableHTTPS: true
  tlsConfig: {insecure: true}
  nodeCacheCapable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  - name: example.com/fpga
- urlPrefix: http://quota.example
  filterVerb: filter
  httpTimeout: 2s
  ignorable: true
`
	profiles, err := LoadProfiles([]byte(cfg), "sched.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range profiles {
		if len(p.Extenders) != 2 {
			t.Fatalf("profile %s has extenders %+v; want both, as every profile of the file", p.SchedulerName, p.Extenders)
		}
		gpu, quota := p.Extenders[0], p.Extenders[1]
		if gpu.URLPrefix != "https://gpu.example:8443/scheduler" || gpu.Weight != 5 || gpu.BindVerb != "bind" || !gpu.NodeCacheCapable || !gpu.EnableHTTPS || gpu.TLSConfig == nil || !gpu.TLSConfig.Insecure {
			t.Errorf("%s: first extender %+v", p.SchedulerName, gpu)
		}
		if gpu.HTTPTimeout.Duration != DefaultExtenderTimeout || quota.HTTPTimeout.Duration != 2*time.Second || !quota.Ignorable {
			t.Errorf("%s: timeouts %v and %v (ignorable %v); want kube-scheduler's default of %v, then 2s", p.SchedulerName, gpu.HTTPTimeout.Duration, quota.HTTPTimeout.Duration, quota.Ignorable, DefaultExtenderTimeout)
		}
		// The resources an extender checks instead of the scheduler replace
		// NodeResourcesFit's ignoredResources, the rest of its args kept.
		fit := argsOf[configv1.NodeResourcesFitArgs](t, p, noderesources.FitName)
		if !slices.Equal(fit.IgnoredResources, []string{"example.com/gpu"}) {
			t.Errorf("%s: NodeResourcesFit ignores %v; want [example.com/gpu]", p.SchedulerName, fit.IgnoredResources)
		}
		if p.SchedulerName == "b" && fit.ScoringStrategy.Type != configv1.MostAllocated {
			t.Errorf("b: scoring strategy %v lost", fit.ScoringStrategy.Type)
		}
	}
}

func TestLoadProfilesExtenderErrors(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"prioritize without a weight", head + "- urlPrefix: http://a\n  prioritizeVerb: prioritize\n",
			`sched.yaml: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it`},
		{"a negative weight", head + "- urlPrefix: http://a\n- urlPrefix: http://b\n  prioritizeVerb: prioritize\n  weight: -2\n",
			`sched.yaml: extenders[1].weight: Invalid value: -2: must have a positive weight applied to it`},
		{"two binders", head + "- urlPrefix: http://a\n  bindVerb: bind\n- urlPrefix: http://b\n  bindVerb: bind\n",
			`sched.yaml: extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind`},
		{"a native resource", head + "- urlPrefix: http://a\n  managedResources:\n  - name: cpu\n",
			`sched.yaml: extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name`},
		{"a kubernetes.io resource", head + "- urlPrefix: http://a\n  managedResources:\n  - name: kubernetes.io/gpu\n",
			`sched.yaml: extenders[0].managedResources[0].name: Invalid value: "kubernetes.io/gpu": is an invalid extended resource name`},
		{"a resource twice across extenders", head + "- urlPrefix: http://a\n  managedResources:\n  - name: example.com/gpu\n- urlPrefix: http://b\n  managedResources:\n  - name: example.com/gpu\n",
			`sched.yaml: extenders[1].managedResources[0].name: Invalid value: "example.com/gpu": duplicate extender managed resource name`},
		{"every problem, each on its line", head + "- urlPrefix: http://a\n  prioritizeVerb: p\n  bindVerb: bind\n- urlPrefix: http://b\n  bindVerb: bind\n",
			"sched.yaml: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it\n" +
				`sched.yaml: extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind`},
		{"an unknown field", head + "- urlPrefix: http://a\n  filterverb: filter\n",
			`sched.yaml: extenders[0].filterverb: unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadProfiles([]byte(tt.yaml), "sched.yaml")
			if err == nil || err.Error() != tt.want {
				t.Errorf("got\n %v\nwant\n %s", err, tt.want)
			}
		})
	}
}
