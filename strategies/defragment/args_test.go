package defragment_test

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/internal/strategytest"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{name: "defaults", yaml: "{}"},
		{name: "every argument", yaml: "{minPendingAge: 5m, minPriority: 100, maxMovesPerPod: 5, namespaces: {include: [shop]}, labelSelector: {matchLabels: {tier: batch}}}"},
		{
			name: "bounds",
			yaml: "{minPendingAge: -1m, maxMovesPerPod: 6}",
			want: []string{
				`policy.yaml: strategies.DefragmentForPendingPods.minPendingAge: "-1m0s" is negative`,
				`policy.yaml: strategies.DefragmentForPendingPods.maxMovesPerPod: 6 is not between 1 and 5 (each move more multiplies the sets of pods the search tries)`,
			},
		},
		{
			name: "maxMovesPerPod: 0 would move nothing",
			yaml: "{maxMovesPerPod: 0}",
			want: []string{`policy.yaml: strategies.DefragmentForPendingPods.maxMovesPerPod: 0 is not between 1 and 5 (each move more multiplies the sets of pods the search tries)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Load([]byte(strategytest.Header+"strategies:\n  DefragmentForPendingPods: "+tt.yaml+"\n"), "policy.yaml")
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant a line %s", err, w)
				}
			}
		})
	}
}
