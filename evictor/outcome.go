package evictor

import "github.com/kube-rebalancer/rebalancer/planner"

// Result is what happened to one planned move.
type Result string

// The results of a move.
const (
	// Evicted: the API server accepted the eviction.
	Evicted Result = "evicted"
	// Refused: the API server refused the eviction because of a
	// PodDisruptionBudget (429). Not retried this cycle.
	Refused Result = "refused"
	// Denied: the API server refused the eviction of this pod for a
	// reason other than a PodDisruptionBudget or a missing permission: an
	// admission webhook or ValidatingAdmissionPolicy, a namespace being
	// deleted, its own checks. Not retried this cycle; the run goes on.
	Denied Result = "denied"
	// Gone: the pod no longer exists, or a new pod now has its name.
	Gone Result = "gone"
	// Failed: the eviction failed for another reason, after retries.
	Failed Result = "failed"
	// Surged: a move made by surge (evictable.makeBeforeBreak) is done:
	// the replacement was Ready before the Deployment went back to its
	// replicas and its ReplicaSet removed the pod.
	Surged Result = "surged"
	// RolledBack: a surge was not started or was undone (its replacement
	// not Ready within --step-timeout, the extra pod refused by a quota or
	// a LimitRange, the Deployment changed): the pod stays where it was
	// and the Deployment is at its replicas. Reported, not a failure.
	RolledBack Result = "rolled-back"
	// NotAttempted: the run stopped (a signal, the run Lease lost,
	// --max-duration, or a fatal error) before this move.
	NotAttempted Result = "not-attempted"
)

// Outcome is a planned move and what became of it.
type Outcome struct {
	planner.Move
	Result  Result `json:"result"`
	Message string `json:"message,omitempty"`
}
