package app

import (
	"strings"
	"testing"
)

// A priorityThreshold that names no PriorityClass would protect nothing the
// user meant to protect: plan refuses it with the field path, as run does
// (test/e2e), and validate, which reads no cluster, refuses the names no
// cluster can have and says which classes plan and run look up.
func TestPriorityThresholdNamingNoClass(t *testing.T) {
	policyWith := func(body string) string {
		return writeFile(t, "policy.yaml", "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"+body)
	}
	gold := policyWith("evictable:\n  priorityThreshold: {name: gold}\n")
	inOverride := policyWith("overrides:\n- namespaces: [shop]\n  evictable:\n    priorityThreshold: {name: business-critical}\n")
	reserved := policyWith("evictable:\n  priorityThreshold: {name: system-important}\n")
	builtin := policyWith("evictable:\n  priorityThreshold: {name: system-node-critical}\n")
	tests := []struct {
		name string
		args []string
		code int
		// want is the error, or with exit 0 a line of the output; unwanted
		// must not be in the output.
		want, unwanted string
	}{
		{
			name: "plan: a class the dump does not hold",
			args: []string{"plan", "--snapshot", example, "--policy", gold},
			code: exitUsage,
			want: gold + `: evictable.priorityThreshold.name: "gold" names no PriorityClass in ` + example +
				"; create the class, name another, or give the threshold as value",
		},
		{
			name: "plan: a class named in an override",
			args: []string{"plan", "--snapshot", example, "--policy", inOverride},
			code: exitUsage,
			want: inOverride + `: overrides[0].evictable.priorityThreshold.name: "business-critical" names no PriorityClass in ` + example,
		},
		{
			name: "plan: a built-in class is always there",
			args: []string{"plan", "--snapshot", example, "--policy", builtin},
			code: exitOK,
		},
		{
			name: "validate: a class it cannot look up is named, and passes",
			args: []string{"validate", gold},
			code: exitOK,
			want: gold + ": PriorityClass gold must exist in the cluster: plan and run look it up and refuse the policy without it",
		},
		{
			name: "validate: a system- name the API server never admits",
			args: []string{"validate", reserved},
			code: exitUsage,
			want: reserved + `: evictable.priorityThreshold.name: "system-important" is no PriorityClass: ` +
				"the API server reserves the system- prefix for system-cluster-critical and system-node-critical",
		},
		{
			name:     "validate: a built-in class needs no look-up",
			args:     []string{"validate", builtin},
			code:     exitOK,
			unwanted: "must exist in the cluster",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, err := execute(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			switch {
			case tt.code != exitOK && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("error:\n%v\nwant it to start with:\n%s", err, tt.want)
			case tt.code == exitOK && tt.want != "" && !strings.Contains(out, tt.want+"\n"):
				t.Errorf("output:\n%s\nwant the line:\n%s", out, tt.want)
			}
			if tt.unwanted != "" && strings.Contains(out, tt.unwanted) {
				t.Errorf("output:\n%s\nwant no %q", out, tt.unwanted)
			}
		})
	}
}
