package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

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
	// Heal makes Read replace a state it cannot use (content that does not
	// decode, a format it does not know) and say so in an event on the
	// ConfigMap. Runs that evict set it; readers that must not write (a dry
	// run, the scheduler) only log.
	Heal bool
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// KeepObservations makes Read also keep the counts of consecutive
	// observations the state holds (Observations); the runs read them, the
	// scheduler has no use for them.
	KeepObservations bool

	mu sync.Mutex
	// firstSeen holds, by recorded ID, when Read first found each eviction
	// dated ahead of the clock and did not rewrite it: it counts from then.
	firstSeen map[string]time.Time
	// observations are those the last Read found.
	observations []cluster.Observation
	// holds are those the last Read found.
	holds []cluster.Hold
}

// ReasonStateReplaced is the event reason on a state ConfigMap that was
// replaced because it could not be used.
const ReasonStateReplaced = "RebalancerStateReplaced"

func (h *HistoryStore) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Read returns the remembered evictions, oldest first; none when the
// ConfigMap does not exist yet. A state it cannot use is no error: it is
// reported, replaced when Heal is set, and read as empty, so that it
// costs one cooldown and never every later run.
//
// No eviction reads as dated after the clock: one recorded ahead of it
// (another machine's clock, a hand edit) reads as made when this store
// first saw it, so that its cooldown and hand-off end. With Heal, a state
// holding such evictions, or expired or invalid ones, is rewritten at once,
// even by a run that evicts nothing: every later reader then sees the date
// the first run saw.
func (h *HistoryStore) Read(ctx context.Context) ([]cluster.Eviction, error) {
	h.keepObservations(nil)
	h.keepHolds(nil)
	cm, err := h.Client.CoreV1().ConfigMaps(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", h.Namespace, h.Name, err)
	}
	if holds, err := cluster.DecodeHolds(cm); err == nil {
		h.keepHolds(holds)
	} else {
		klog.ErrorS(err, "Ignoring the recorded holds: no node is held for a pending pod until a run records them again")
	}
	if h.KeepObservations {
		if obs, err := cluster.DecodeObservations(cm); err == nil {
			h.keepObservations(obs)
		} else {
			klog.ErrorS(err, "Ignoring the recorded observations: every node's count of consecutive observations starts again")
		}
	}
	evs, err := cluster.DecodeEvictions(cm)
	var bad *cluster.StateError
	if errors.As(err, &bad) {
		klog.ErrorS(err, "Ignoring the recorded evictions: the cooldown and the scheduler's hand-off start afresh")
		if h.Heal {
			h.replace(ctx, cm, bad)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	now := h.now()
	if _, healing := cluster.HealEvictions(evs, now, h.Keep); healing.Any() && h.Heal {
		healed, err := h.update(ctx, now, func(old []cluster.Eviction) []cluster.Eviction { return old })
		if err == nil {
			return healed, nil
		}
		klog.ErrorS(err, "Could not rewrite the recorded evictions that needed healing; this run reads them as made no later than now")
	}
	return h.asSeen(evs, now), nil
}

func (h *HistoryStore) keepObservations(obs []cluster.Observation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observations = obs
}

func (h *HistoryStore) keepHolds(holds []cluster.Hold) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holds = holds
}

// Holds returns the nodes held for pending pods that the last Read found
// in the state.
func (h *HistoryStore) Holds() []cluster.Hold {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.holds
}

// Observations returns the counts of consecutive observations that the
// last Read found in the state, with KeepObservations.
func (h *HistoryStore) Observations() []cluster.Observation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.observations
}

// RecordObservations replaces the counts of consecutive observations the
// state holds; none removes them.
func (h *HistoryStore) RecordObservations(ctx context.Context, obs []cluster.Observation) error {
	return h.modify(ctx, func(cm *corev1.ConfigMap) error {
		dropped, err := cluster.EncodeObservations(cm, obs)
		if dropped > 0 {
			klog.InfoS("The state ConfigMap keeps only the highest counts of consecutive observations that fit in it; the other nodes count again",
				"configMap", h.Namespace+"/"+h.Name, "dropped", dropped, "kept", len(obs)-dropped)
		}
		return err
	})
}

// asSeen dates each eviction recorded after now at the moment this store
// first read it.
func (h *HistoryStore) asSeen(evs []cluster.Eviction, now time.Time) []cluster.Eviction {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, e := range evs {
		if !e.At.After(now) {
			continue
		}
		if h.firstSeen == nil {
			h.firstSeen = map[string]time.Time{}
		}
		first, ok := h.firstSeen[e.ID()]
		if !ok {
			first = now
			h.firstSeen[e.ID()] = now
			klog.InfoS("A recorded eviction is dated in the future; it counts as made now. Is a clock ahead?",
				"configMap", h.Namespace+"/"+h.Name, "pod", e.Pod, "recordedAt", e.At)
		}
		evs[i].At = first
	}
	return evs
}

// seenIDs returns the IDs under which Read may have returned an eviction:
// its own, and the one of the date it was first seen at.
func (h *HistoryStore) seenIDs(e cluster.Eviction) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := []string{e.ID()}
	if first, ok := h.firstSeen[e.ID()]; ok {
		e.At = first
		ids = append(ids, e.ID())
	}
	return ids
}

// replace writes an empty state over one that cannot be used, and records
// a Warning event on the ConfigMap saying what was wrong with it.
func (h *HistoryStore) replace(ctx context.Context, cm *corev1.ConfigMap, bad *cluster.StateError) {
	if _, err := h.update(ctx, h.now(), func([]cluster.Eviction) []cluster.Eviction { return nil }); err != nil {
		klog.ErrorS(err, "Could not replace the state ConfigMap")
		return
	}
	now := metav1.NewTime(h.now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.Namespace, GenerateName: h.Name + "."},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", APIVersion: "v1", Namespace: cm.Namespace, Name: cm.Name,
			UID: cm.UID, ResourceVersion: cm.ResourceVersion},
		Reason:  ReasonStateReplaced,
		Message: fmt.Sprintf("%s; replaced with an empty state: the cooldown and the scheduler's hand-off start afresh", bad.Problem),
		Type:    corev1.EventTypeWarning,
		Source:  corev1.EventSource{Component: "rebalancer"},
		Count:   1, FirstTimestamp: now, LastTimestamp: now,
	}
	if _, err := h.Client.CoreV1().Events(h.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		klog.ErrorS(err, "Could not record the event on the replaced state ConfigMap")
	}
}

// Append adds evictions and forgets those older than Keep.
func (h *HistoryStore) Append(ctx context.Context, now time.Time, add []cluster.Eviction) error {
	_, err := h.update(ctx, now, func(old []cluster.Eviction) []cluster.Eviction { return append(old, add...) })
	return err
}

// Forget removes evictions recorded earlier (matched by pod and time, as
// Read returned them), such as intents whose eviction did not happen.
func (h *HistoryStore) Forget(ctx context.Context, now time.Time, gone []cluster.Eviction) error {
	drop := make(map[string]bool, len(gone))
	for _, e := range gone {
		drop[e.ID()] = true
	}
	_, err := h.update(ctx, now, func(old []cluster.Eviction) []cluster.Eviction {
		return slices.DeleteFunc(old, func(e cluster.Eviction) bool {
			return slices.ContainsFunc(h.seenIDs(e), func(id string) bool { return drop[id] })
		})
	})
	return err
}

// update rewrites the recorded evictions with change, then heals them
// (cluster.HealEvictions: dated no later than now, none expired or
// invalid), and returns what it stored. A state it cannot read is
// replaced.
func (h *HistoryStore) update(ctx context.Context, now time.Time, change func([]cluster.Eviction) []cluster.Eviction) ([]cluster.Eviction, error) {
	var stored []cluster.Eviction
	err := h.modify(ctx, func(cm *corev1.ConfigMap) error {
		old, err := cluster.DecodeEvictions(cm)
		if err != nil {
			old = nil
		}
		if _, err := cluster.DecodeObservations(cm); err != nil {
			// Unusable as the evictions are: replaced with none.
			if _, err := cluster.EncodeObservations(cm, nil); err != nil {
				return err
			}
		}
		kept, healing := cluster.HealEvictions(change(old), now, h.Keep)
		if healing.Any() {
			klog.InfoS("Healed the recorded evictions: those dated in the future are stored as made now (is a clock ahead?), expired and invalid ones dropped",
				"configMap", h.Namespace+"/"+h.Name, "datedAhead", healing.Ahead, "expired", healing.Expired, "invalid", healing.Invalid)
		}
		slices.SortStableFunc(kept, func(a, b cluster.Eviction) int { return a.At.Compare(b.At) })
		dropped, err := cluster.EncodeEvictions(cm, kept)
		if dropped > 0 {
			klog.InfoS("The state ConfigMap keeps only the newest evictions that fit in it", "configMap", h.Namespace+"/"+h.Name,
				"dropped", dropped, "kept", len(kept)-dropped)
		}
		stored = kept[min(dropped, len(kept)):]
		return err
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
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

// Surges returns the surges under way that the state records; none when
// the ConfigMap does not exist. A list it cannot use is an error: a run
// must not start surges beside ones it cannot see.
func (h *HistoryStore) Surges(ctx context.Context) ([]cluster.Surge, error) {
	cm, err := h.Client.CoreV1().ConfigMaps(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", h.Namespace, h.Name, err)
	}
	return cluster.DecodeSurges(cm)
}

// RecordSurge adds a surge under way, before it changes anything.
func (h *HistoryStore) RecordSurge(ctx context.Context, s cluster.Surge) error {
	return h.changeSurges(ctx, func(old []cluster.Surge) []cluster.Surge { return append(old, s) })
}

// ForgetSurge removes the record of a surge that is over, finished or
// undone: the one of that pod under its UID.
func (h *HistoryStore) ForgetSurge(ctx context.Context, s cluster.Surge) error {
	return h.changeSurges(ctx, func(old []cluster.Surge) []cluster.Surge {
		return slices.DeleteFunc(old, func(o cluster.Surge) bool { return o.Pod == s.Pod && o.UID == s.UID })
	})
}

func (h *HistoryStore) changeSurges(ctx context.Context, change func([]cluster.Surge) []cluster.Surge) error {
	return h.modify(ctx, func(cm *corev1.ConfigMap) error {
		old, err := cluster.DecodeSurges(cm)
		if err != nil {
			return err
		}
		return cluster.EncodeSurges(cm, change(old))
	})
}

// RecordHolds adds holds, before the moves that free their nodes; a
// hold of the same pod under the same UID is replaced.
func (h *HistoryStore) RecordHolds(ctx context.Context, add []cluster.Hold) error {
	return h.changeHolds(ctx, func(old []cluster.Hold) []cluster.Hold {
		old = slices.DeleteFunc(old, func(o cluster.Hold) bool {
			return slices.ContainsFunc(add, func(a cluster.Hold) bool { return a.Pod == o.Pod && a.UID == o.UID })
		})
		return append(old, add...)
	})
}

// ForgetHolds removes the holds for which over is true.
func (h *HistoryStore) ForgetHolds(ctx context.Context, over func(cluster.Hold) bool) error {
	return h.changeHolds(ctx, func(old []cluster.Hold) []cluster.Hold { return slices.DeleteFunc(old, over) })
}

// changeHolds rewrites the holds; a list it cannot read is replaced, as
// holds are short-lived and a run records its own again.
func (h *HistoryStore) changeHolds(ctx context.Context, change func([]cluster.Hold) []cluster.Hold) error {
	return h.modify(ctx, func(cm *corev1.ConfigMap) error {
		old, err := cluster.DecodeHolds(cm)
		if err != nil {
			old = nil
		}
		return cluster.EncodeHolds(cm, change(old))
	})
}
