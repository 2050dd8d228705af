package lownodeutilization

import (
	"testing"

	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// What fitsSomewhere found no room for holds until the next change of the
// cycle; each list of under-utilized nodes keeps its own (see balance).
func TestNoRoomHoldsUntilTheCycleChanges(t *testing.T) {
	pl := &framework.Placement{}
	key := roomKey{pl: pl, cpu: 500, memory: 1 << 30}
	tests := []struct {
		name  string
		then  func(in *framework.Cycle) roomKey
		holds bool
	}{
		{name: "the same pod, nothing changed", holds: true,
			then: func(*framework.Cycle) roomKey { return key }},
		{name: "a pod that asks for more cpu",
			then: func(*framework.Cycle) roomKey { k := key; k.cpu = 600; return k }},
		{name: "a pod of another placement",
			then: func(*framework.Cycle) roomKey { k := key; k.pl = &framework.Placement{}; return k }},
		{name: "a move planned since",
			then: func(in *framework.Cycle) roomKey { in.Changed(); return key }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &framework.Cycle{}
			var r noRoom
			r.add(in, key)
			k := tc.then(in)
			if got := r.holds(in, k); got != tc.holds {
				t.Errorf("holds: %v, want %v", got, tc.holds)
			}
		})
	}
}

// A move planned since the first pod was remembered clears what was kept,
// so that a pod remembered after the move holds and the first no longer.
func TestNoRoomForgetsAtAChange(t *testing.T) {
	first := roomKey{pl: &framework.Placement{}, cpu: 500}
	second := roomKey{pl: first.pl, cpu: 700}
	in := &framework.Cycle{}
	var r noRoom
	r.add(in, first)
	in.Changed()
	r.add(in, second)
	if r.holds(in, first) {
		t.Error("the pod remembered before the change still holds")
	}
	if !r.holds(in, second) {
		t.Error("the pod remembered after the change does not hold")
	}
}
