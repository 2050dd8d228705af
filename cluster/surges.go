package cluster

import (
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Surge is a make-before-break move under way: a Deployment raised by one
// replica so that the pod's replacement runs before the pod goes. A run
// records it in the state ConfigMap before it changes anything and removes
// it once the Deployment is back to Replicas, so that a run that was
// stopped half-way leaves the next run what to finish or undo.
type Surge struct {
	// Deployment is "namespace/name"; DeploymentUID tells it from a later
	// Deployment of the same name.
	Deployment    string    `json:"deployment"`
	DeploymentUID types.UID `json:"deploymentUID"`
	// Replicas is the Deployment's spec.replicas before the surge, which
	// raised it to Replicas+1.
	Replicas int32 `json:"replicas"`
	// Pod is the pod that moves ("namespace/name"), under its UID.
	Pod string    `json:"pod"`
	UID types.UID `json:"uid"`
	// From is the pod's node; To is where its replacement is planned.
	From     string `json:"from"`
	To       string `json:"to"`
	Strategy string `json:"strategy"`
	// ReplicaSet is the name of the pod's ReplicaSet, and Before the UIDs
	// of its pods when the surge started: a pod not among them is one the
	// surge made.
	ReplicaSet string      `json:"replicaSet"`
	Before     []types.UID `json:"before"`
	// Cost is the pod's controller.kubernetes.io/pod-deletion-cost before
	// the surge changed it; nil when it had none.
	Cost *string `json:"cost,omitempty"`
	// At is when the surge was recorded.
	At time.Time `json:"at"`
}

// The state ConfigMap's key for the surges under way: few, so plain JSON.
const surgesKey = "surges.json"

// DecodeSurges returns the surges under way that a state ConfigMap holds;
// none when it holds none. What it cannot use is a *StateError.
func DecodeSurges(cm *corev1.ConfigMap) ([]Surge, error) {
	return decodeStateList[Surge](cm, surgesKey, "")
}

// EncodeSurges replaces the surges under way a state ConfigMap holds and
// keeps its other keys; none removes the key.
func EncodeSurges(cm *corev1.ConfigMap, surges []Surge) error {
	if len(surges) == 0 {
		delete(cm.Data, surgesKey)
		return nil
	}
	body, err := json.Marshal(surges)
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[formatKey] = stateFormat
	cm.Data[surgesKey] = string(body)
	return nil
}
