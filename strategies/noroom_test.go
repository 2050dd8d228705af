package strategies

import "testing"

// What fitsSomewhere found no room for holds until the next change of the
// cycle; each list of under-utilized nodes keeps its own (see balance).
func TestNoRoomHoldsUntilTheCycleChanges(t *testing.T) {
	pl := &placement{}
	key := roomKey{pl: pl, cpu: 500, memory: 1 << 30}
	tests := []struct {
		name  string
		then  func(in *Input) roomKey
		holds bool
	}{
		{name: "the same pod, nothing changed", holds: true,
			then: func(*Input) roomKey { return key }},
		{name: "a pod that asks for more cpu",
			then: func(*Input) roomKey { k := key; k.cpu = 600; return k }},
		{name: "a pod of another placement",
			then: func(*Input) roomKey { k := key; k.pl = &placement{}; return k }},
		{name: "a move planned since",
			then: func(in *Input) roomKey { in.changes++; return key }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{}
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
	first := roomKey{pl: &placement{}, cpu: 500}
	second := roomKey{pl: first.pl, cpu: 700}
	in := &Input{}
	var r noRoom
	r.add(in, first)
	in.changes++
	r.add(in, second)
	if r.holds(in, first) {
		t.Error("the pod remembered before the change still holds")
	}
	if !r.holds(in, second) {
		t.Error("the pod remembered after the change does not hold")
	}
}
