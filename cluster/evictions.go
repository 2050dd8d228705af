package cluster

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Eviction is what rebalancer remembers of one of its evictions between
// cycles: enough for the planner's cooldown and for the live scheduler to
// place the replacement where the plan said, and never back where the pod
// came from.
type Eviction struct {
	Pod      string    `json:"pod"`
	Workload Workload  `json:"workload"`
	From     string    `json:"from"`
	To       string    `json:"to,omitempty"`
	Strategy string    `json:"strategy"`
	At       time.Time `json:"at"`
}

// ID identifies a recorded eviction: its pod and when it was recorded.
func (e Eviction) ID() string { return e.Pod + "@" + e.At.UTC().Format(time.RFC3339Nano) }

// historyKey is the state ConfigMap's key that holds the evictions, as JSON.
const historyKey = "evictions.json"

// ManagedByLabel, set to ManagedBy, marks the state ConfigMap, so that it
// can be found in a cluster dump.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "rebalancer"
)

// Evictions returns the eviction history held by the state ConfigMaps of a
// dump, oldest first.
func (o *Objects) Evictions() ([]Eviction, error) {
	var all []Eviction
	for i := range o.StateConfigMaps {
		evs, err := DecodeEvictions(&o.StateConfigMaps[i])
		if err != nil {
			return nil, err
		}
		all = append(all, evs...)
	}
	slices.SortStableFunc(all, func(a, b Eviction) int { return a.At.Compare(b.At) })
	return all, nil
}

// DecodeEvictions returns the evictions a state ConfigMap holds, as
// recorded; none when it holds none.
func DecodeEvictions(cm *corev1.ConfigMap) ([]Eviction, error) {
	raw, ok := cm.Data[historyKey]
	if !ok || raw == "" {
		return nil, nil
	}
	var out []Eviction
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: key %s: %w", cm.Namespace, cm.Name, historyKey, err)
	}
	return out, nil
}

// EncodeEvictions replaces the evictions a state ConfigMap holds, in the
// form DecodeEvictions reads, and keeps its other keys (the last-run record).
func EncodeEvictions(cm *corev1.ConfigMap, evictions []Eviction) error {
	body, err := json.Marshal(evictions)
	if err != nil {
		return err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[historyKey] = string(body)
	return nil
}
