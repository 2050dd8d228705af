package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

// A strategy's evictable overlays the settings of the namespace, which are
// the global evictable overlaid by the override's: global ← override ←
// strategy, the strategy's own merged from its global and override
// arguments.
func TestStrategyEvictableOverlaysTheNamespaces(t *testing.T) {
	p, err := Load([]byte(header+`
evictable:
  minPodAge: 10m
  priorityThreshold: {value: 1000}
  labelSelector: {matchLabels: {movable: "yes"}}
strategies:
  RemovePodsHavingTooManyRestarts:
    podRestartThreshold: 10
    evictable: {localStorage: true, labelSelector: {}}
  PodLifeTime:
    maxPodLifeTimeSeconds: 86400
    evictable: {systemCritical: true}
  RemoveDuplicates: {}
overrides:
- namespaces: [batch]
  evictable: {minPodAge: 1h, localStorage: false, barePods: true}
  strategies:
    RemovePodsHavingTooManyRestarts:
      evictable: {minPodAge: 5m}
    RemoveDuplicates:
      evictable: {priorityThreshold: {name: high-priority}}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		namespace string
		strategy  string
		want      string // the fields that tell the layers apart
	}{
		{"web", "RemoveDuplicates", `minPodAge 10m0s, localStorage false, barePods false, systemCritical false, threshold {"value":1000}, label selector movable=yes`},
		{"web", "RemovePodsHavingTooManyRestarts", `minPodAge 10m0s, localStorage true, barePods false, systemCritical false, threshold {"value":1000}, label selector every pod`},
		{"web", "PodLifeTime", `minPodAge 10m0s, localStorage false, barePods false, systemCritical true, threshold none, label selector movable=yes`},
		{"batch", "RemoveDuplicates", `minPodAge 1h0m0s, localStorage false, barePods true, systemCritical false, threshold {"name":"high-priority"}, label selector movable=yes`},
		{"batch", "RemovePodsHavingTooManyRestarts", `minPodAge 5m0s, localStorage true, barePods true, systemCritical false, threshold {"value":1000}, label selector every pod`},
		{"batch", "PodLifeTime", `minPodAge 1h0m0s, localStorage false, barePods true, systemCritical true, threshold none, label selector movable=yes`},
	}
	for _, tt := range tests {
		t.Run(tt.namespace+"/"+tt.strategy, func(t *testing.T) {
			if got := describeEvictable(p.For(tt.namespace, nil).EvictableFor(tt.strategy)); got != tt.want {
				t.Errorf("EvictableFor(%s) =\n  %s\nwant\n  %s", tt.strategy, got, tt.want)
			}
		})
	}
	if got, want := p.PriorityClassNames(), []string{"high-priority"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("PriorityClassNames() = %v, want %v", got, want)
	}
}

func describeEvictable(e *Evictable) string {
	threshold := "none"
	if e.PriorityThreshold != nil {
		b, _ := json.Marshal(e.PriorityThreshold)
		threshold = string(b)
	}
	selector := "every pod"
	if !e.Matches(map[string]string{}) {
		selector = "movable=yes"
		if !e.Matches(map[string]string{"movable": "yes"}) {
			selector = "something else"
		}
	}
	return strings.Join([]string{
		"minPodAge " + e.MinPodAge.Duration.String(),
		"localStorage " + boolString(*e.LocalStorage),
		"barePods " + boolString(*e.BarePods),
		"systemCritical " + boolString(*e.SystemCritical),
		"threshold " + threshold,
		"label selector " + selector,
	}, ", ")
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// What a strategy's evictable cannot mean is refused with its path.
func TestStrategyEvictableErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{
			name: "namespaceSelector chooses where rebalancer works, for every strategy",
			yaml: `
strategies:
  RemoveDuplicates: {}
  PodLifeTime:
    maxPodLifeTimeSeconds: 60
    evictable: {namespaceSelector: {matchLabels: {team: a}}}
overrides:
- namespaces: [web]
  strategies:
    RemoveDuplicates:
      evictable: {namespaceSelector: {matchLabels: {team: b}}}
`,
			want: []string{
				"p.yaml: strategies.PodLifeTime.evictable.namespaceSelector: chooses the namespaces rebalancer works in at all, for every strategy: " +
					"set it in the global evictable; a strategy keeps to some namespaces with its namespaces",
				"p.yaml: overrides[0].strategies.RemoveDuplicates.evictable.namespaceSelector: chooses the namespaces rebalancer works in at all, for every strategy: " +
					"set it in the global evictable; a strategy keeps to some namespaces with its namespaces",
			},
		},
		{
			name: "a threshold where the settings it overlays allow every priority",
			yaml: `
evictable: {systemCritical: true}
strategies:
  RemoveDuplicates:
    evictable: {priorityThreshold: {value: 1000}}
  PodLifeTime:
    maxPodLifeTimeSeconds: 60
    evictable: {systemCritical: false, priorityThreshold: {value: 1000}}
`,
			want: []string{"p.yaml: strategies.RemoveDuplicates.evictable.priorityThreshold: has no effect when systemCritical is true, " +
				"as the evictable settings this strategy overlays say: set systemCritical: false here too"},
		},
		{
			name: "the same in an override, and the evictable's own rules",
			yaml: `
strategies:
  RemoveDuplicates: {}
overrides:
- namespaces: [ops]
  evictable: {systemCritical: true}
  strategies:
    RemoveDuplicates:
      evictable: {priorityThreshold: {value: 1000}, minPodAge: -1m, minReplicas: -2}
`,
			want: []string{
				`p.yaml: overrides[0].strategies.RemoveDuplicates.evictable.minPodAge: "-1m0s" is negative`,
				"p.yaml: overrides[0].strategies.RemoveDuplicates.evictable.minReplicas: -2 is negative (0 keeps no pod for its replica count)",
				"p.yaml: overrides[0].strategies.RemoveDuplicates.evictable.priorityThreshold: has no effect when systemCritical is true, " +
					"as the evictable settings this strategy overlays say: set systemCritical: false here too",
			},
		},
		{
			name: "an unknown field",
			yaml: `
strategies:
  RemoveDuplicates:
    evictable: {localstorage: true}
`,
			want: []string{"p.yaml: strategies.RemoveDuplicates.evictable.localstorage: unknown field"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(header+tt.yaml), "p.yaml")
			if err == nil {
				t.Fatal("Load() = nil error")
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Load() error:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
