package strategies

import "testing"

// What fitsSomewhere found no room for holds only for the same list of
// under-utilized nodes and until the next change of the cycle.
func TestNoRoomHoldsUntilTheCycleChanges(t *testing.T) {
	pl := &placement{}
	key := roomKey{pl: pl, cpu: 500, memory: 1 << 30}
	under := []int32{3, 7, 9}
	tests := []struct {
		name  string
		then  func(in *Input) ([]int32, roomKey)
		holds bool
	}{
		{name: "the same pod and list, nothing changed", holds: true,
			then: func(*Input) ([]int32, roomKey) { return under, key }},
		{name: "a pod that asks for more cpu",
			then: func(*Input) ([]int32, roomKey) { k := key; k.cpu = 600; return under, k }},
		{name: "a pod of another placement",
			then: func(*Input) ([]int32, roomKey) { k := key; k.pl = &placement{}; return under, k }},
		{name: "a move planned since",
			then: func(in *Input) ([]int32, roomKey) { in.changes++; return under, key }},
		{name: "another list with the same nodes",
			then: func(*Input) ([]int32, roomKey) { return []int32{3, 7, 9}, key }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &Input{}
			var r noRoom
			r.add(in, under, key)
			list, k := tc.then(in)
			if got := r.holds(in, list, k); got != tc.holds {
				t.Errorf("holds: %v, want %v", got, tc.holds)
			}
		})
	}
}
