package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/lownodeutilization"
	"github.com/kube-rebalancer/rebalancer/strategies/removeduplicates"
)

// The tests of this file read the arguments of built-in strategies, which
// the strategies' packages define.

const header = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"

func TestDefaultPolicy(t *testing.T) {
	p := policy.Default()
	lnu := p.Global().Strategies.Get("LowNodeUtilization").(*lownodeutilization.Args)
	if lnu == nil || lnu.Thresholds["cpu"] != 20 || lnu.TargetThresholds["memory"] != 50 {
		t.Fatalf("default LowNodeUtilization = %+v, want thresholds 20 and targets 50", lnu)
	}
	if got := p.Enabled(); strings.Join(got, ",") != "RemoveDuplicates,LowNodeUtilization" {
		t.Errorf("Enabled() = %v, want RemoveDuplicates then LowNodeUtilization", got)
	}
	if b := p.Limits.Step().Node; b.Max == nil || *b.Max != 5 || b.Field != "limits.perStep.node" || p.Limits.Total == nil || *p.Limits.Total != 50 {
		t.Errorf("default limits = %+v, want perStep.node 5 and total 50", p.Limits)
	}
}

// An example from the README: the batch namespaces may lose pods younger
// than the global minimum age and pods with local storage, the payments
// namespace keeps its pods out of RemoveDuplicates and allows one eviction
// per cycle, and everyone else gets the global settings.
func TestOverridesTuneNamespaces(t *testing.T) {
	p, err := policy.Load([]byte(header+`
limits: {perNamespace: 10}
evictable:
  minPodAge: 1h
strategies:
  RemoveDuplicates: {excludeOwnerKinds: [Job]}
  LowNodeUtilization:
    thresholds: {cpu: 20}
    targetThresholds: {cpu: 50}
overrides:
- namespaceSelector:
    matchLabels: {team: batch}
  evictable: {minPodAge: 0s, localStorage: true}
- namespaces: [payments]
  limits: {perNamespace: 1}
  strategies:
    RemoveDuplicates: {enabled: false}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		namespace    string
		labels       map[string]string
		minPodAge    time.Duration
		localStorage bool
		perNamespace int32
		duplicates   bool
	}{
		{"etl", map[string]string{"team": "batch"}, 0, true, 10, true},
		{"payments", nil, time.Hour, false, 1, false},
		{"web", map[string]string{"team": "frontend"}, time.Hour, false, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.namespace, func(t *testing.T) {
			s := p.For(tt.namespace, tt.labels)
			if got := s.Evictable.MinPodAge.Duration; got != tt.minPodAge {
				t.Errorf("minPodAge = %v, want %v", got, tt.minPodAge)
			}
			if got := *s.Evictable.LocalStorage; got != tt.localStorage {
				t.Errorf("localStorage = %v, want %v", got, tt.localStorage)
			}
			if got := *s.PerNamespaceLimit; got != tt.perNamespace {
				t.Errorf("perNamespace limit = %d, want %d", got, tt.perNamespace)
			}
			if got := s.Args("RemoveDuplicates") != nil; got != tt.duplicates {
				t.Errorf("RemoveDuplicates enabled = %v, want %v", got, tt.duplicates)
			}
			if got := s.Args("LowNodeUtilization") != nil; !got {
				t.Error("LowNodeUtilization is off; overrides did not touch it")
			}
		})
	}
	// The override kept the global excludeOwnerKinds it did not mention.
	if got := p.For("etl", map[string]string{"team": "batch"}).Strategies.Get("RemoveDuplicates").(*removeduplicates.Args).ExcludeOwnerKinds; len(got) != 1 || got[0] != "Job" {
		t.Errorf("inherited excludeOwnerKinds = %v, want [Job]", got)
	}
}

func TestSelectors(t *testing.T) {
	p, err := policy.Load([]byte(header+`
nodeSelector: {matchLabels: {pool: general}}
namespaces: {exclude: [kube-system]}
strategies:
  RemoveDuplicates:
    namespaces: {include: [web]}
    labelSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [db]}]}
`), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !p.SelectsNode(map[string]string{"pool": "general"}) || p.SelectsNode(map[string]string{"pool": "gpu"}) {
		t.Error("nodeSelector pool=general does not select as expected")
	}
	if p.AllowsNamespace("kube-system") || !p.AllowsNamespace("web") {
		t.Error("namespaces.exclude [kube-system] does not filter as expected")
	}
	rd := p.Global().Strategies.Get("RemoveDuplicates").(*removeduplicates.Args)
	tests := []struct {
		ns     string
		labels map[string]string
		want   bool
	}{
		{"web", map[string]string{"tier": "frontend"}, true},
		{"web", map[string]string{"tier": "db"}, false},
		{"web", nil, true},
		{"api", map[string]string{"tier": "frontend"}, false},
	}
	for _, tt := range tests {
		if got := rd.Selects(tt.ns, tt.labels); got != tt.want {
			t.Errorf("Selects(%s, %v) = %v, want %v", tt.ns, tt.labels, got, tt.want)
		}
	}
}
