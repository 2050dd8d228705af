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
	"github.com/kube-rebalancer/rebalancer/examples/custom-strategy/maxage"
)

// withMaxAge is this program's command line.
var withMaxAge = []app.Option{app.WithStrategy(maxage.Registration)}

const (
	cluster = "testdata/cluster.yaml"
	now     = "2026-11-20T12:00:00Z"
	head    = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"
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

type plan struct {
	Moves []struct{ Pod, From, To, Strategy, Reason string } `json:"moves"`
	Notes []struct{ Strategy, Node, Text string }            `json:"notes"`
}

func planJSON(t *testing.T, policy string) plan {
	t.Helper()
	out, stderr, code := run(t, withMaxAge, "plan", "--snapshot", cluster, "--policy", policy, "--now", now, "-o", "json")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var p plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The pods past the age their annotation asks for move, the furthest past
// first: web-0 (48h past 24h), web-1 (24h past), then cache-0, whose 10m is
// raised to minMaxAge. web-2 is younger than 24h, the api pods ask for
// nothing, and queue-0's value is no duration.
func TestPodsPastTheirMaxAgeMove(t *testing.T) {
	lowFloor := writeFile(t, "low-floor.yaml", head+"strategies:\n  PodMaxAge: {minMaxAge: 2h}\n")
	oneOnly := writeFile(t, "one.yaml", head+"limits: {total: 1}\nstrategies:\n  PodMaxAge: {}\n")
	override := writeFile(t, "override.yaml", head+"strategies:\n  PodMaxAge: {}\noverrides:\n- namespaces: [shop]\n  strategies:\n    PodMaxAge: {minMaxAge: 2h}\n")
	otherKey := writeFile(t, "other-key.yaml", head+"strategies:\n  PodMaxAge: {annotation: example.com/max-age}\n")
	tests := []struct {
		name   string
		policy string
		pods   []string
	}{
		{"policy.yaml", "policy.yaml", []string{"shop/web-5d8f-0", "shop/web-5d8f-1", "shop/cache-7c9b-0"}},
		{"a floor of 2h keeps cache-0, 1h30m old", lowFloor, []string{"shop/web-5d8f-0", "shop/web-5d8f-1"}},
		{"an override raises the floor for shop", override, []string{"shop/web-5d8f-0", "shop/web-5d8f-1"}},
		{"one eviction goes to the pod furthest past", oneOnly, []string{"shop/web-5d8f-0"}},
		{"an annotation no pod carries", otherKey, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planJSON(t, tt.policy)
			var pods []string
			for _, m := range p.Moves {
				pods = append(pods, m.Pod)
				if m.Strategy != maxage.Name || m.To == "" || m.To == m.From {
					t.Errorf("move %+v: want a move of %s to another node", m, maxage.Name)
				}
			}
			if !slices.Equal(pods, tt.pods) {
				t.Errorf("moves %v, want %v", pods, tt.pods)
			}
		})
	}
}

// The reasons say the age, the annotation and the floor when it applied,
// and the pod whose annotation is no duration is named in a note.
func TestReasonsAndNotes(t *testing.T) {
	p := planJSON(t, "policy.yaml")
	want := map[string]string{
		"shop/web-5d8f-0":   "age 72h is past its rebalancer.dev/max-age 24h",
		"shop/web-5d8f-1":   "age 48h is past its rebalancer.dev/max-age 24h",
		"shop/cache-7c9b-0": "age 1h30m is past its rebalancer.dev/max-age 1h (10m raised to minMaxAge)",
	}
	for _, m := range p.Moves {
		if m.Reason != want[m.Pod] {
			t.Errorf("%s: reason %q, want %q", m.Pod, m.Reason, want[m.Pod])
		}
	}
	if len(p.Notes) != 1 || p.Notes[0].Strategy != maxage.Name || !strings.Contains(p.Notes[0].Text, `shop/queue-4f2a-0: rebalancer.dev/max-age "a week" is not a positive duration`) {
		t.Errorf("notes %+v, want one of %s naming shop/queue-4f2a-0 and its value", p.Notes, maxage.Name)
	}
}

// A policy the program cannot honour is bad input (exit code 2) whose
// message names the field: a misspelt argument and values out of range.
// (rebalancer's own binary refuses the strategy's key, but strategies are
// registered for the whole process, so a test of this program cannot
// show it.)
func TestPolicyErrorsNameTheField(t *testing.T) {
	misspelt := writeFile(t, "misspelt.yaml", head+"strategies:\n  PodMaxAge: {anotation: x}\n")
	bad := writeFile(t, "bad.yaml", head+"strategies:\n  PodMaxAge: {annotation: \"max age\", minMaxAge: -1h}\n")
	both := writeFile(t, "both.yaml", head+"strategies:\n  PodMaxAge: {namespaces: {include: [shop], exclude: [batch]}}\n")
	tests := []struct {
		name     string
		policy   string
		messages []string
	}{
		{"a misspelt argument", misspelt, []string{"misspelt.yaml: strategies.PodMaxAge.anotation: unknown field"}},
		{"values out of range", bad, []string{
			`bad.yaml: strategies.PodMaxAge.annotation: "max age" name part must consist of`,
			`bad.yaml: strategies.PodMaxAge.minMaxAge: "-1h0m0s" must be positive`,
		}},
		{"the arguments every strategy takes", both, []string{"both.yaml: strategies.PodMaxAge.namespaces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, withMaxAge, "validate", tt.policy)
			if code != 2 {
				t.Errorf("exit code %d, want 2; stderr:\n%s", code, stderr)
			}
			for _, msg := range tt.messages {
				if !strings.Contains(stderr, msg) {
					t.Errorf("stderr:\n%s\nwant %q", stderr, msg)
				}
			}
		})
	}
}
