package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodename"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// drainingArgs are the arguments of the out-of-tree plugin below.
type drainingArgs struct {
	Label string `json:"label"`
}

// draining is an out-of-tree plugin as a program outside the package would
// write it: it keeps pods off nodes that carry a label and prefers nodes
// without a "slow" label.
type draining struct {
	label string
	key   framework.StateKey
}

type drainingState struct{ checked int }

func (*draining) Name() string { return "Draining" }

func (d *draining) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	framework.State[drainingState](c, d.key).checked = 0
	return framework.PreFilterResult{}
}

func (d *draining) Filter(c *framework.Cycle, i int) []string {
	framework.State[drainingState](c, d.key).checked++
	if _, ok := c.Nodes()[i].Labels[d.label]; ok {
		return []string{"node(s) were draining"}
	}
	return nil
}

func (d *draining) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	for k, i := range feasible {
		if c.Nodes()[i].Labels["slow"] == "" {
			out[k] = 100
		}
	}
	return true
}

func newDraining(args any, h framework.Handle) (framework.Plugin, error) {
	a := drainingArgs{Label: "rebalancer.dev/draining"}
	if raw, _ := args.([]byte); raw != nil {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("args: %w", err)
		}
	}
	return &draining{label: a.Label, key: h.StateKey()}, nil
}

var drainingRegistry = framework.Registry{"Draining": {Points: framework.PointFilter | framework.PointScore, New: newDraining}}

func TestOutOfTreePlugin(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Draining\n        weight: 50\n"
	nodes := []corev1.Node{ct.Node("a").Label("gone", "yes").Obj(), ct.Node("b").Label("slow", "yes").Obj(), ct.Node("c").Obj(), ct.Node("d").Label("rebalancer.dev/draining", "").Obj()}
	pods := []corev1.Pod{incomingPod().Obj()}
	tests := []struct {
		name, yaml   string
		feasible     []string
		chosen       string
		loadErr, err string
	}{
		{name: "default args", yaml: head, feasible: []string{"a", "b", "c"}, chosen: "a"},
		{name: "args from pluginConfig", yaml: head + "  pluginConfig:\n  - name: Draining\n    args:\n      label: gone\n", feasible: []string{"b", "c", "d"}, chosen: "c"},
		{name: "bad args", yaml: head + "  pluginConfig:\n  - name: Draining\n    args:\n      lable: gone\n", err: `Draining: args: json: unknown field "lable"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			profiles, err := profile.LoadProfiles([]byte(tc.yaml), "sched.yaml", drainingRegistry)
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(profiles[0], drainingRegistry)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := newSnapshot(t, nodes, pods)
			if got := feasibleNodes(t, e, s); !slices.Equal(got, tc.feasible) {
				t.Errorf("feasible %v, want %v", got, tc.feasible)
			}
			if got := e.Schedule(s, incoming(t, s), Options{}).Node; got != tc.chosen {
				t.Errorf("chose %q, want %q", got, tc.chosen)
			}
		})
	}

	// Without the registry the name is unknown, as for kube-scheduler.
	if _, err := profile.LoadProfiles([]byte(head), "sched.yaml"); err == nil || !strings.Contains(err.Error(), `profiles[0].plugins.multiPoint.enabled[0].name: "Draining" is not a known plugin`) {
		t.Errorf("error %v", err)
	}
	if _, err := New(profile.DefaultProfile(), framework.Registry{nodename.Name: {Points: framework.PointFilter, New: newDraining}}); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("an out-of-tree plugin under an in-tree name: error %v", err)
	}
}
