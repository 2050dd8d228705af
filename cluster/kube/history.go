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
// than Keep, and retries when a concurrent writer got there first.
func (h *HistoryStore) update(ctx context.Context, now time.Time, change func([]cluster.Eviction) []cluster.Eviction) error {
	// Two writers may both find no ConfigMap and race to create it.
	lostRace := func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }
	err := retry.OnError(retry.DefaultRetry, lostRace, func() error {
		cms := h.Client.CoreV1().ConfigMaps(h.Namespace)
		cm, err := cms.Get(ctx, h.Name, metav1.GetOptions{})
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return err
		}
		var old []cluster.Eviction
		if create {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.Namespace, Name: h.Name,
				Labels: map[string]string{cluster.ManagedByLabel: cluster.ManagedBy}}}
		} else if old, err = cluster.DecodeEvictions(cm); err != nil {
			// A corrupt record must not stop rebalancing forever.
			old = nil
		}
		kept := slices.DeleteFunc(change(old), func(e cluster.Eviction) bool { return now.Sub(e.At) > h.Keep })
		if err := cluster.EncodeEvictions(cm, kept); err != nil {
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
