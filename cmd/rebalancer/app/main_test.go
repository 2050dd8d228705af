package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// execute runs the CLI in-process and returns its output and exit code.
func execute(t *testing.T, args ...string) (stdout string, code int, err error) {
	t.Helper()
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), exitCode(err), err
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const example = "../../../examples/cluster.yaml"

func TestExitCodes(t *testing.T) {
	badPolicy := writeFile(t, "policy.yaml", "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nstrategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 120}\n")
	badSnapshot := writeFile(t, "dump.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\nkind: [\n")
	noCluster := writeFile(t, "kubeconfig", "apiVersion: v1\nkind: Config\n")
	// A cluster that is configured but answers nothing: what reaches it is
	// a runtime failure (exit 1), what is refused before it bad usage.
	unreachable := writeFile(t, "unreachable", "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n"+
		"contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n")
	shadow := writeFile(t, "shadow", "root:$6$salt$secrethash:19000:0:99999:7:::\n")
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"plan the example", []string{"plan", "--snapshot", example}, exitOK, ""},
		{"validate the example policy", []string{"validate", "../../../examples/policy.yaml"}, exitOK, ""},
		{"invalid policy names the field", []string{"plan", "--snapshot", example, "--policy", badPolicy}, exitUsage,
			"strategies.LowNodeUtilization.targetThresholds.cpu: 120 is above 100"},
		{"validate an invalid policy", []string{"validate", badPolicy}, exitUsage, "120 is above 100"},
		{"a scheduler configuration that cannot be read names its field", []string{"validate", writeFile(t, "sched.yaml",
			"apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nscheduler: {configFile: /nonexistent.yaml}\n")}, exitUsage,
			"sched.yaml: scheduler.configFile: open /nonexistent.yaml: no such file"},
		{"malformed snapshot names the document", []string{"plan", "--snapshot", badSnapshot}, exitUsage, "document 2:"},
		{"missing snapshot file names the flag", []string{"plan", "--snapshot", "/nonexistent.yaml"}, exitUsage, "--snapshot /nonexistent.yaml: no such file"},
		{"missing policy file names the flag", []string{"plan", "--snapshot", example, "--policy", "/nonexistent.yaml"}, exitUsage, "--policy /nonexistent.yaml: no such file"},
		{"missing scheduler configuration names the flag", []string{"schedule", "--config", "/nonexistent.yaml"}, exitUsage, "--config /nonexistent.yaml: no such file"},
		{"a policy given as the snapshot", []string{"plan", "--snapshot", "../../../examples/policy.yaml"}, exitUsage, "no Node in the file (it holds 1 RebalancePolicy): --snapshot wants a cluster dump"},
		{"an empty snapshot", []string{"plan", "--snapshot", writeFile(t, "empty.yaml", "")}, exitUsage, "no Node in the file (it holds nothing)"},
		{"--now in another format says the one it wants", []string{"plan", "--snapshot", example, "--now", "2026-11-20 12:00"}, exitUsage, "not an RFC 3339 time; give one such as 2026-11-20T12:00:00Z"},
		{"plan without --snapshot", []string{"plan"}, exitUsage, "--snapshot is required"},
		{"unknown flag", []string{"plan", "--snapshoot", example}, exitUsage, "unknown flag: --snapshoot"},
		{"unknown command", []string{"rebalance"}, exitUsage, `unknown command "rebalance"`},
		{"bad output format", []string{"plan", "--snapshot", example, "-o", "xml"}, exitUsage, `--output "xml" is not one of table, json, yaml`},
		{"run with an invalid policy evicts nothing: it stops before reaching a cluster", []string{"run", "--policy", badPolicy, "--kubeconfig", noCluster}, exitUsage, "120 is above 100"},
		{"run with no cluster configured", []string{"run", "--no-state", "--kubeconfig", noCluster}, exitUsage, "no cluster to talk to"},
		{"a state ConfigMap name with two slashes", []string{"run", "--dry-run", "--state-configmap", "a/b/c", "--kubeconfig", unreachable}, exitUsage,
			`--state-configmap "a/b/c": want NAMESPACE/NAME, with one slash`},
		{"a state ConfigMap namespace the API server refuses", []string{"run", "--state-configmap", "Shop/state", "--kubeconfig", unreachable}, exitUsage,
			`--state-configmap "Shop/state": namespace "Shop": a lowercase RFC 1123 label`},
		{"the scheduler's state ConfigMap", []string{"schedule", "--state-configmap", "a/b/c", "--kubeconfig", unreachable}, exitUsage, "want NAMESPACE/NAME, with one slash"},
		{"the extender's state ConfigMap", []string{"extender", "--state-configmap", "a/b/c", "--kubeconfig", unreachable}, exitUsage, "want NAMESPACE/NAME, with one slash"},
		{"a policy that is a device", []string{"validate", "/dev/zero"}, exitUsage, "file /dev/zero: is not a regular file (it is a character device)"},
		{"--policy that is a device", []string{"plan", "--snapshot", example, "--policy", "/dev/zero"}, exitUsage, "--policy /dev/zero: is not a regular file"},
		{"--snapshot that is a device", []string{"plan", "--snapshot", "/dev/zero"}, exitUsage, "--snapshot /dev/zero: is not a regular file"},
		{"a scheduler configuration that is a device", []string{"validate", writeFile(t, "zero.yaml",
			"apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nscheduler: {configFile: /dev/zero}\n")}, exitUsage,
			"zero.yaml: scheduler.configFile: file /dev/zero: is not a regular file (it is a character device)"},
		{"--config that is a device", []string{"schedule", "--config", "/dev/zero"}, exitUsage, "--config /dev/zero: is not a regular file"},
		{"a pod file that is a device", []string{"place", "--snapshot", example, "/dev/zero"}, exitUsage, "pod file /dev/zero: is not a regular file"},
		{"a scheduler configuration that is no configuration is not quoted", []string{"validate", writeFile(t, "secret.yaml",
			"apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nscheduler: {configFile: "+shadow+"}\n")}, exitUsage,
			"scheduler.configFile: " + shadow + ": apiVersion: required: the file is no KubeSchedulerConfiguration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, code, err := execute(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d (%v), want %d", code, err, tt.code)
			}
			if tt.message != "" && (err == nil || !strings.Contains(err.Error(), tt.message)) {
				t.Errorf("error %v, want it to contain %q", err, tt.message)
			}
		})
	}
}

// The same snapshot and policy give byte-identical JSON, and the JSON has the
// fields DESIGN.md promises.
func TestPlanJSONIsDeterministic(t *testing.T) {
	args := []string{"plan", "--snapshot", example, "--policy", "../../../examples/policy.yaml", "-o", "json", "--now", "2026-11-20T12:00:00Z"}
	first, code, err := execute(t, args...)
	if code != exitOK {
		t.Fatalf("plan: %v", err)
	}
	for range 3 {
		again, _, _ := execute(t, args...)
		if again != first {
			t.Fatal("two plans of the same snapshot and policy differ")
		}
	}
	var doc struct {
		Moves []map[string]any `json:"moves"`
		Skip  []map[string]any `json:"skipped"`
		Nodes []map[string]any `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(first), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Moves) == 0 || len(doc.Nodes) != 6 {
		t.Fatalf("plan has %d moves and %d nodes; want some moves and the 6 nodes", len(doc.Moves), len(doc.Nodes))
	}
	for _, m := range doc.Moves {
		for _, k := range []string{"pod", "from", "to", "strategy", "reason"} {
			if _, ok := m[k].(string); !ok {
				t.Errorf("move %v has no string %q", m, k)
			}
		}
	}
	for _, s := range doc.Skip {
		for _, k := range []string{"pod", "strategy", "reason"} {
			if _, ok := s[k].(string); !ok {
				t.Errorf("skipped %v has no string %q", s, k)
			}
		}
	}
	for _, n := range doc.Nodes {
		if _, ok := n["before"].(map[string]any); !ok {
			t.Errorf("node %v has no before", n)
		}
	}
}

func TestVersion(t *testing.T) {
	out, code, _ := execute(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "rebalancer dev (commit unknown, go") {
		t.Errorf("version printed %q", out)
	}
}

// pflag takes a back-quoted word of a flag's usage as the name of its value,
// which garbles --help; no usage may have one.
func TestFlagUsagesReadAsWritten(t *testing.T) {
	root := NewCommand()
	for _, c := range append(root.Commands(), root) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage has a back quote: %q", c.Name(), f.Name, f.Usage)
			}
		})
	}
}
