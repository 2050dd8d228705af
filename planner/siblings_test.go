package planner

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/test/klogtest"
)

// countingPlacer counts the searches a plan makes, and hides whether its
// engine decides by spec only unless told to pass it on.
type countingPlacer struct {
	engine.Placer
	searches int
}

func (c *countingPlacer) Schedule(snap *cluster.Snapshot, pod *cluster.Pod, opts engine.Options) engine.Result {
	c.searches++
	return c.Placer.Schedule(snap, pod, opts)
}

type specOnlyPlacer struct{ *countingPlacer }

func (s specOnlyPlacer) SpecOnly() bool { return s.Placer.(specPlacer).SpecOnly() }

// Three replicas of web crowd node-a; RemoveDuplicates wants two of them
// elsewhere, but node-b and node-c are too small for any, so each is
// proposed in turn and fits nowhere. Replicas alike to the scheduler are
// searched for once, and the plan is the one that searching for each gives.
func TestSiblingsThatFitNowhereAreSearchedOnce(t *testing.T) {
	web := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("node-a").Requests("3", "1Gi").Deployment("web")
	}
	tests := []struct {
		name     string
		pods     []any
		specOnly bool
		// want is the searches made; every pod is searched for when the
		// placer may read more than the spec.
		want int
	}{
		{
			name:     "alike replicas: one search",
			pods:     []any{web("web-0"), web("web-1"), web("web-2")},
			specOnly: true,
			want:     1,
		},
		{
			name:     "a replica that asks for less: searched for on its own",
			pods:     []any{web("web-0").CreatedAgo(3), web("web-1").Requests("2500m", "1Gi").CreatedAgo(2), web("web-2").CreatedAgo(1)},
			specOnly: true,
			want:     3,
		},
		{
			name:     "a replica with other labels: searched for on its own",
			pods:     []any{web("web-0"), web("web-1"), web("web-2").Label("canary", "true")},
			specOnly: true,
			want:     2,
		},
		{
			// As the API server admits them: each replica has its service
			// account token in a volume of its own name.
			name: "replicas with their own token volumes: one search",
			pods: []any{web("web-0").Volume(tokenVolume("kube-api-access-7xk2p")), web("web-1").Volume(tokenVolume("kube-api-access-q9f4d")),
				web("web-2").Volume(tokenVolume("kube-api-access-m2wzs"))},
			specOnly: true,
			want:     1,
		},
		{
			// An image volume weighs in the scheduler's image locality.
			name: "a replica with another image volume: searched for on its own",
			pods: []any{web("web-0").Volume(imageVolume("models/resnet:1")), web("web-1").Volume(imageVolume("models/resnet:1")),
				web("web-2").Volume(imageVolume("models/resnet:2"))},
			specOnly: true,
			want:     2,
		},
		{
			name: "a placer that may read more than the spec: every replica searched for",
			pods: []any{web("web-0"), web("web-1"), web("web-2")},
			want: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := ct.Objects(append([]any{
				ct.Node("node-a").CPU("16"), ct.Node("node-b").CPU("2"), ct.Node("node-c").CPU("2"),
				ct.DeploymentReplicaSet("shop", "web"),
			}, tc.pods...)...)
			snap, err := cluster.New(objs, ct.Now)
			if err != nil {
				t.Fatal(err)
			}
			pol := loadPolicy(t, "cooldown: 0s\nstrategies:\n  RemoveDuplicates: {}\n")
			counted := &countingPlacer{Placer: newEngine(t)}
			var placer engine.Placer = counted
			if tc.specOnly {
				placer = specOnlyPlacer{counted}
			}
			got := (&Planner{Policy: pol, Placer: placer}).Plan(snap)
			every := &countingPlacer{Placer: newEngine(t)}
			want := (&Planner{Policy: pol, Placer: every}).Plan(snap)
			if counted.searches != tc.want {
				t.Errorf("%d searches, want %d (%d without the sibling's answer)", counted.searches, tc.want, every.searches)
			}
			if g, w := fmt.Sprintf("%+v\n%+v", got.Moves, got.Skipped), fmt.Sprintf("%+v\n%+v", want.Moves, want.Skipped); g != w {
				t.Errorf("plan:\n%s\nsearching for each pod:\n%s", g, w)
			}
			if len(got.Skipped) == 0 {
				t.Errorf("no pod skipped: the replicas were meant to fit nowhere")
			}
		})
	}
}

func tokenVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}
}

func imageVolume(reference string) corev1.Volume {
	return corev1.Volume{Name: "model", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: reference}}}
}

// The log level decides nothing: at -v 4 the replicas of
// TestSiblingsThatFitNowhereAreSearchedOnce are searched for once, as at
// -v 0, the plans are the same, and the log names whose answer each took.
func TestSiblingAnswerWhateverTheLogLevel(t *testing.T) {
	web := func(name string) *ct.PodBuilder {
		return ct.Pod("shop", name).On("node-a").Requests("3", "1Gi").Deployment("web")
	}
	objs := ct.Objects(ct.Node("node-a").CPU("16"), ct.Node("node-b").CPU("2"), ct.Node("node-c").CPU("2"),
		ct.DeploymentReplicaSet("shop", "web"), web("web-0"), web("web-1"), web("web-2"))
	pol := loadPolicy(t, "cooldown: 0s\nstrategies:\n  RemoveDuplicates: {}\n")
	plan := func(t *testing.T, v int) (string, int, string) {
		logs := klogtest.Capture(t, v)
		snap, err := cluster.New(objs, ct.Now)
		if err != nil {
			t.Fatal(err)
		}
		counted := &countingPlacer{Placer: newEngine(t)}
		p := (&Planner{Policy: pol, Placer: specOnlyPlacer{counted}}).Plan(snap)
		klog.Flush()
		return fmt.Sprintf("%+v\n%+v", p.Moves, p.Skipped), counted.searches, logs.String()
	}
	quiet, quietSearches, _ := plan(t, 0)
	loud, loudSearches, logs := plan(t, 4)
	if loud != quiet {
		t.Errorf("plan at -v 4:\n%s\nat -v 0:\n%s", loud, quiet)
	}
	if loudSearches != quietSearches || quietSearches != 1 {
		t.Errorf("%d searches at -v 4, %d at -v 0, want 1 at both", loudSearches, quietSearches)
	}
	for _, want := range []string{`pod="shop/web-1" sibling="shop/web-0"`, `pod="shop/web-2" sibling="shop/web-1"`} {
		if !strings.Contains(logs, "Candidate took its sibling's answer") || !strings.Contains(logs, want) {
			t.Errorf("the -v 4 log does not say %s took its sibling's answer:\n%s", want, logs)
		}
	}
}
