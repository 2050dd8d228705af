package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
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

// historyKey is the ConfigMap key that holds the evictions, as JSON.
const historyKey = "evictions.json"

// ManagedByLabel, set to ManagedBy, marks the state ConfigMap, so that it
// can be found in a cluster dump.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "rebalancer"
)

// HistoryStore keeps recent evictions in a ConfigMap, the one piece of state
// a CronJob's runs share.
type HistoryStore struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Keep is how long an eviction is remembered.
	Keep time.Duration
}

// Read returns the remembered evictions, oldest first; none when the
// ConfigMap does not exist yet.
func (h *HistoryStore) Read(ctx context.Context) ([]Eviction, error) {
	cm, err := h.Client.CoreV1().ConfigMaps(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", h.Namespace, h.Name, err)
	}
	return decodeHistory(cm)
}

// Append adds evictions and forgets those older than Keep.
func (h *HistoryStore) Append(ctx context.Context, now time.Time, add []Eviction) error {
	return h.update(ctx, now, func(old []Eviction) []Eviction { return append(old, add...) })
}

// Forget removes evictions recorded earlier (matched by pod and time), such
// as intents whose eviction did not happen.
func (h *HistoryStore) Forget(ctx context.Context, now time.Time, gone []Eviction) error {
	drop := make(map[string]bool, len(gone))
	for _, e := range gone {
		drop[e.ID()] = true
	}
	return h.update(ctx, now, func(old []Eviction) []Eviction {
		return slices.DeleteFunc(old, func(e Eviction) bool { return drop[e.ID()] })
	})
}

// ID identifies a recorded eviction: its pod and when it was recorded.
func (e Eviction) ID() string { return e.Pod + "@" + e.At.UTC().Format(time.RFC3339Nano) }

// update rewrites the recorded evictions with change, forgetting those older
// than Keep, and retries when a concurrent writer got there first.
func (h *HistoryStore) update(ctx context.Context, now time.Time, change func([]Eviction) []Eviction) error {
	// Two writers may both find no ConfigMap and race to create it.
	lostRace := func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }
	err := retry.OnError(retry.DefaultRetry, lostRace, func() error {
		cms := h.Client.CoreV1().ConfigMaps(h.Namespace)
		cm, err := cms.Get(ctx, h.Name, metav1.GetOptions{})
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return err
		}
		var old []Eviction
		if create {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.Namespace, Name: h.Name,
				Labels: map[string]string{ManagedByLabel: ManagedBy}}}
		} else if old, err = decodeHistory(cm); err != nil {
			// A corrupt record must not stop rebalancing forever.
			old = nil
		}
		kept := slices.DeleteFunc(change(old), func(e Eviction) bool { return now.Sub(e.At) > h.Keep })
		body, err := json.Marshal(kept)
		if err != nil {
			return err
		}
		cm.Data = map[string]string{historyKey: string(body)}
		if create {
			_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		} else {
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing ConfigMap %s/%s: %w", h.Namespace, h.Name, err)
	}
	return nil
}

// Evictions returns the eviction history held by the state ConfigMaps of a
// dump, oldest first.
func (o *Objects) Evictions() ([]Eviction, error) {
	var all []Eviction
	for i := range o.StateConfigMaps {
		evs, err := decodeHistory(&o.StateConfigMaps[i])
		if err != nil {
			return nil, err
		}
		all = append(all, evs...)
	}
	slices.SortStableFunc(all, func(a, b Eviction) int { return a.At.Compare(b.At) })
	return all, nil
}

func decodeHistory(cm *corev1.ConfigMap) ([]Eviction, error) {
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
