package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The examples of the Kubernetes docs on topology spread constraints: a
// Deployment's pods spread with labelSelector app=foo and matchLabelKeys
// [pod-template-hash] count only the pods of their own revision.
func TestCompileSpreadConstraintSelector(t *testing.T) {
	appFoo := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}
	revision1 := labels.Set{"app": "foo", "pod-template-hash": "rev1"}
	revision2 := labels.Set{"app": "foo", "pod-template-hash": "rev2"}
	other := labels.Set{"app": "bar", "pod-template-hash": "rev1"}
	tests := []struct {
		name      string
		selector  *metav1.LabelSelector
		keys      []string
		podLabels map[string]string
		// selects says which of revision1, revision2 and other the
		// compiled constraint counts.
		selects [3]bool
	}{
		{
			name:      "labelSelector alone counts every revision",
			selector:  appFoo,
			podLabels: revision1,
			selects:   [3]bool{true, true, false},
		},
		{
			name:      "matchLabelKeys narrow the selector to the pod's own revision",
			selector:  appFoo,
			keys:      []string{"pod-template-hash"},
			podLabels: revision1,
			selects:   [3]bool{true, false, false},
		},
		{
			name:      "a key the pod has no label for is ignored",
			selector:  appFoo,
			keys:      []string{"pod-template-hash"},
			podLabels: map[string]string{"app": "foo"},
			selects:   [3]bool{true, true, false},
		},
		{
			name: "a selector the API server already merged the keys into selects the same pods",
			selector: &metav1.LabelSelector{
				MatchLabels:      map[string]string{"app": "foo"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "pod-template-hash", Operator: metav1.LabelSelectorOpIn, Values: []string{"rev1"}}},
			},
			keys:      []string{"pod-template-hash"},
			podLabels: revision1,
			selects:   [3]bool{true, false, false},
		},
		{
			name:      "without a labelSelector no pod counts, matchLabelKeys or not",
			keys:      []string{"pod-template-hash"},
			podLabels: revision1,
			selects:   [3]bool{false, false, false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: tt.selector, MatchLabelKeys: tt.keys,
			}
			c, err := CompileSpreadConstraint(&tc, tt.podLabels)
			if err != nil {
				t.Fatal(err)
			}
			for i, set := range []labels.Set{revision1, revision2, other} {
				if got := c.Selector.Matches(set); got != tt.selects[i] {
					t.Errorf("selects %v: %v, want %v (selector %q)", set, got, tt.selects[i], c.Selector)
				}
			}
		})
	}
}

func TestCompileSpreadConstraintRejectsBadSelector(t *testing.T) {
	tc := corev1.TopologySpreadConstraint{
		MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}},
	}
	if _, err := CompileSpreadConstraint(&tc, nil); err == nil {
		t.Error("a selector with an unknown operator compiled")
	}
}

// nodeAffinityPolicy and nodeTaintsPolicy, as the docs describe them: with
// nodeAffinityPolicy Honor (the default) only the nodes matching the pod's
// nodeSelector and required node affinity count; with nodeTaintsPolicy
// Ignore (the default) nodes count whatever their taints.
func TestSpreadConstraintNodeInclusionPolicies(t *testing.T) {
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	tests := []struct {
		name           string
		affinityPolicy *corev1.NodeInclusionPolicy
		taintsPolicy   *corev1.NodeInclusionPolicy
		// includes[a][t]: whether a node counts that matches the pod's
		// node affinity (a) and whose hard taints the pod tolerates (t).
		includes [2][2]bool
	}{
		{
			name:     "defaults: affinity honoured, taints ignored",
			includes: [2][2]bool{{false, false}, {true, true}},
		},
		{
			name:           "nodeAffinityPolicy Ignore: every node counts",
			affinityPolicy: &ignore,
			includes:       [2][2]bool{{true, true}, {true, true}},
		},
		{
			name:         "nodeTaintsPolicy Honor: tainted nodes the pod does not tolerate are left out too",
			taintsPolicy: &honor,
			includes:     [2][2]bool{{false, false}, {false, true}},
		},
		{
			name:           "nodeAffinityPolicy Ignore, nodeTaintsPolicy Honor: only taints decide",
			affinityPolicy: &ignore,
			taintsPolicy:   &honor,
			includes:       [2][2]bool{{false, true}, {false, true}},
		},
		{
			name:           "both given explicitly as the defaults",
			affinityPolicy: &honor,
			taintsPolicy:   &ignore,
			includes:       [2][2]bool{{false, false}, {true, true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector:      &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
				NodeAffinityPolicy: tt.affinityPolicy, NodeTaintsPolicy: tt.taintsPolicy,
			}
			c, err := CompileSpreadConstraint(&tc, nil)
			if err != nil {
				t.Fatal(err)
			}
			for a, matches := range []bool{false, true} {
				for tl, tolerates := range []bool{false, true} {
					if got := c.IncludesNode(matches, tolerates); got != tt.includes[a][tl] {
						t.Errorf("node matching affinity %v, taints tolerated %v: included %v, want %v", matches, tolerates, got, tt.includes[a][tl])
					}
				}
			}
		})
	}
}

// minDomains, as the docs describe it: when fewer eligible domains than
// minDomains exist the global minimum is 0; unset, it is 1, so that the
// real minimum always counts.
func TestSpreadConstraintMinDomains(t *testing.T) {
	three := int32(3)
	tests := []struct {
		name       string
		minDomains *int32
		domains    int32
		below      bool
	}{
		{name: "unset, one domain: the real minimum counts", domains: 1, below: false},
		{name: "unset, no domain", domains: 0, below: true},
		{name: "minDomains 3 over 2 zones: the minimum is 0", minDomains: &three, domains: 2, below: true},
		{name: "minDomains 3 over 3 zones: the real minimum counts", minDomains: &three, domains: 3, below: false},
		{name: "minDomains 3 over 4 zones", minDomains: &three, domains: 4, below: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}},
				MinDomains:    tt.minDomains,
			}
			c, err := CompileSpreadConstraint(&tc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.BelowMinDomains(tt.domains); got != tt.below {
				t.Errorf("%d domains below minDomains %d: %v, want %v", tt.domains, c.MinDomains, got, tt.below)
			}
		})
	}
}

// A node counts for a pod's constraints of one kind only when it has the
// topology key of every one of them: the docs' example of a node without a
// zone label, which spreading over zone and hostname leaves out of both.
func TestHasAllTopologyKeys(t *testing.T) {
	nodes := []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "node1", Labels: map[string]string{corev1.LabelHostname: "node1", corev1.LabelTopologyZone: "zoneA"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node2", Labels: map[string]string{corev1.LabelHostname: "node2"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node3", Labels: map[string]string{corev1.LabelTopologyZone: "zoneB"}}},
	}
	compile := func(keys ...string) []SpreadConstraint {
		var out []SpreadConstraint
		for _, key := range keys {
			c, err := CompileSpreadConstraint(&corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Domains = NewTopologyDomains(nodes, key)
			out = append(out, c)
		}
		return out
	}
	tests := []struct {
		name   string
		keys   []string
		counts [3]bool
	}{
		{name: "zone and hostname: only the node with both", keys: []string{corev1.LabelTopologyZone, corev1.LabelHostname}, counts: [3]bool{true, false, false}},
		{name: "zone alone", keys: []string{corev1.LabelTopologyZone}, counts: [3]bool{true, false, true}},
		{name: "hostname alone", keys: []string{corev1.LabelHostname}, counts: [3]bool{true, true, false}},
		{name: "no constraint", counts: [3]bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cons := compile(tt.keys...)
			for i := range nodes {
				if got := HasAllTopologyKeys(cons, i); got != tt.counts[i] {
					t.Errorf("%s counts: %v, want %v", nodes[i].Name, got, tt.counts[i])
				}
			}
		})
	}
}
