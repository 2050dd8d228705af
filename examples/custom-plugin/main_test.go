package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cmd/rebalancer/app"
	"github.com/kube-rebalancer/rebalancer/examples/custom-plugin/draining"
)

// withDraining is this program's command line; none is rebalancer's own.
var (
	withDraining = []app.Option{app.WithPlugin(draining.Name, draining.Registration)}
	none         []app.Option
)

const (
	cluster = "testdata/cluster.yaml"
	pod     = "testdata/pod.yaml"
)

// run runs a command line in-process and returns its output, standard
// error and exit code.
func run(t *testing.T, opts []app.Option, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = app.Run(args, &out, &errOut, opts...)
	return out.String(), errOut.String(), code
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Without the plugin, LowNodeUtilization moves pods off node-hot onto the
// emptiest nodes, draining or not. With it, node-idle (draining) is never
// a target and node-soon (drain-soon) only once node-quiet no longer takes
// pods.
func TestThePluginDecidesWherePodsMove(t *testing.T) {
	tests := []struct {
		name   string
		opts   []app.Option
		policy string
		to     []string
	}{
		{"rebalancer's default profile", none, "testdata/policy-without-plugin.yaml", []string{"node-idle", "node-soon"}},
		{"the same with this program", withDraining, "testdata/policy-without-plugin.yaml", []string{"node-idle", "node-soon"}},
		{"a profile enabling Draining", withDraining, "policy.yaml", []string{"node-quiet", "node-soon"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, tt.opts, "plan", "--snapshot", cluster, "--policy", tt.policy, "--now", "2026-11-20T12:00:00Z", "-o", "json")
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			var plan struct {
				Moves []struct{ Pod, From, To string } `json:"moves"`
			}
			if err := json.Unmarshal([]byte(out), &plan); err != nil {
				t.Fatal(err)
			}
			var to []string
			for _, m := range plan.Moves {
				to = append(to, m.To)
			}
			if !slices.Equal(to, tt.to) {
				t.Errorf("moves go to %v, want %v", to, tt.to)
			}
		})
	}
}

// place explains the decision: the draining node fails the plugin's filter
// with its reason, and the drain-soon node scores 0 with it.
func TestPlaceShowsThePluginsReason(t *testing.T) {
	out, stderr, code := run(t, withDraining, "place", "--snapshot", cluster, "--scheduler-config", "scheduler.yaml", pod, "-o", "json")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var res struct {
		Node  string `json:"node"`
		Nodes []struct {
			Name, Plugin, Reason string
			Feasible             bool
			Scores               map[string]int64
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Node != "node-quiet" {
		t.Errorf("placed on %q, want node-quiet", res.Node)
	}
	for _, n := range res.Nodes {
		switch n.Name {
		case "node-idle":
			if n.Feasible || n.Plugin != draining.Name || n.Reason != draining.ErrReasonDraining {
				t.Errorf("node-idle: feasible %v, plugin %q, reason %q; want turned down by %s: %s", n.Feasible, n.Plugin, n.Reason, draining.Name, draining.ErrReasonDraining)
			}
		case "node-soon":
			if s, ok := n.Scores[draining.Name]; !n.Feasible || !ok || s != 0 {
				t.Errorf("node-soon: feasible %v, scores %v; want feasible with a %s score of 0", n.Feasible, n.Scores, draining.Name)
			}
		default:
			if s := n.Scores[draining.Name]; !n.Feasible || s != 100 {
				t.Errorf("%s: feasible %v, scores %v; want feasible with a %s score of 100", n.Name, n.Feasible, n.Scores, draining.Name)
			}
		}
	}
}

// A configuration the program cannot honour is bad input (exit code 2)
// whose message names the field: the plugin unknown to rebalancer's own
// binary, misspelt args, a label that is no label key, and an extender that
// prioritizes without a weight.
func TestConfigurationErrorsNameTheField(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins: {multiPoint: {enabled: [{name: Draining}]}}\n"
	misspelt := writeFile(t, "misspelt.yaml", head+"  pluginConfig:\n  - name: Draining\n    args: {drainingLable: x}\n")
	badLabel := writeFile(t, "bad-label.yaml", head+"  pluginConfig:\n  - name: Draining\n    args: {drainSoonLabel: \"soon!\"}\n")
	extender := writeFile(t, "extender.yaml", head+"extenders:\n- urlPrefix: http://extender:8888\n  prioritizeVerb: prioritize\n")
	tests := []struct {
		name    string
		opts    []app.Option
		args    []string
		message string
	}{
		{"plan with rebalancer's binary", none, []string{"plan", "--snapshot", cluster, "--policy", "policy.yaml"},
			`scheduler.yaml: profiles[0].plugins.multiPoint.enabled[0].name: "Draining" is not a known plugin`},
		{"validate with rebalancer's binary", none, []string{"validate", "policy.yaml"},
			`scheduler.yaml: profiles[0].plugins.multiPoint.enabled[0].name: "Draining" is not a known plugin`},
		{"place with rebalancer's binary", none, []string{"place", "--snapshot", cluster, "--scheduler-config", "scheduler.yaml", pod},
			`scheduler.yaml: profiles[0].plugins.multiPoint.enabled[0].name: "Draining" is not a known plugin`},
		{"misspelt args", withDraining, []string{"schedule", "--config", misspelt},
			`misspelt.yaml: profiles[0].pluginConfig[0].args: unknown field "drainingLable"`},
		{"a label that is no label key", withDraining, []string{"place", "--snapshot", cluster, "--scheduler-config", badLabel, pod},
			`bad-label.yaml: profiles[0].pluginConfig[0].args.drainSoonLabel: "soon!" is not a label key`},
		{"extenders", withDraining, []string{"place", "--snapshot", cluster, "--scheduler-config", extender, pod},
			`extender.yaml: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, tt.opts, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.message) {
				t.Errorf("exit code %d, stderr:\n%s\nwant 2 and %q", code, stderr, tt.message)
			}
		})
	}
}
