package kube

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// RunRecordKey is the state ConfigMap's key that holds the record of the
// last run (report.RunRecord, as JSON), so that `kubectl get` shows when
// rebalancer last ran and how that went.
const RunRecordKey = "last-run.json"

// HistoryStore keeps recent evictions and the record of the last run in a
// ConfigMap, the one piece of state a CronJob's runs share.
type HistoryStore struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Keep is how long an eviction is remembered.
	Keep time.Duration
}

// Read returns the remembered evictions, oldest first; none when the
// ConfigMap does not exist yet.
func (h *HistoryStore) Read(ctx context.Context) ([]cluster.Eviction, error) {
	cm, err := h.Client.CoreV1().ConfigMaps(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", h.Namespace, h.Name, err)
	}
	return cluster.DecodeEvictions(cm)
}

// Append adds evictions and forgets those older than Keep.
func (h *HistoryStore) Append(ctx context.Context, now time.Time, add []cluster.Eviction) error {
	return h.update(ctx, now, func(old []cluster.Eviction) []cluster.Eviction { return append(old, add...) })
}

// Forget removes evictions recorded earlier (matched by pod and time), such
// as intents whose eviction did not happen.
func (h *HistoryStore) Forget(ctx context.Context, now time.Time, gone []cluster.Eviction) error {
	drop := make(map[string]bool, len(gone))
	for _, e := range gone {
		drop[e.ID()] = true
	}
	return h.update(ctx, now, func(old []cluster.Eviction) []cluster.Eviction {
		return slices.DeleteFunc(old, func(e cluster.Eviction) bool { return drop[e.ID()] })
	})
}

// update rewrites the recorded evictions with change, forgetting those older
// than Keep.
func (h *HistoryStore) update(ctx context.Context, now time.Time, change func([]cluster.Eviction) []cluster.Eviction) error {
	return h.modify(ctx, func(cm *corev1.ConfigMap) error {
		old, err := cluster.DecodeEvictions(cm)
		if err != nil {
			// A corrupt record must not stop rebalancing forever.
			old = nil
		}
		kept := slices.DeleteFunc(change(old), func(e cluster.Eviction) bool { return now.Sub(e.At) > h.Keep })
		return cluster.EncodeEvictions(cm, kept)
	})
}

// RecordRun replaces the last-run record with what change makes of the
// previous one (empty when there is none).
func (h *HistoryStore) RecordRun(ctx context.Context, change func(prev []byte) ([]byte, error)) error {
	return h.modify(ctx, func(cm *corev1.ConfigMap) error {
		rec, err := change([]byte(cm.Data[RunRecordKey]))
		if err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[RunRecordKey] = string(rec)
		return nil
	})
}

// modify applies change to the state ConfigMap, creating it when it does
// not exist, and retries when a concurrent writer got there first.
func (h *HistoryStore) modify(ctx context.Context, change func(*corev1.ConfigMap) error) error {
	// Two writers may both find no ConfigMap and race to create it.
	lostRace := func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }
	err := retry.OnError(retry.DefaultRetry, lostRace, func() error {
		cms := h.Client.CoreV1().ConfigMaps(h.Namespace)
		cm, err := cms.Get(ctx, h.Name, metav1.GetOptions{})
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return err
		}
		if create {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.Namespace, Name: h.Name,
				Labels: map[string]string{cluster.ManagedByLabel: cluster.ManagedBy}}}
		}
		if err := change(cm); err != nil {
			return err
		}
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
