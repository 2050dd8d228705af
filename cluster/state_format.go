package cluster

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The state ConfigMap's keys for the evictions: plain JSON while it is
// small, so that `kubectl get` shows it, and gzipped JSON in binaryData
// beyond that, so that a plan of thousands of moves still fits in one
// object. formatKey names the layout, so that a version of rebalancer that
// does not know it can say so rather than misread it.
const (
	historyKey     = "evictions.json"
	historyGzipKey = "evictions.json.gz"
	formatKey      = "format"
	stateFormat    = "v1"
)

// Size bounds of the evictions in the state ConfigMap, well below the API
// server's 1 MiB limit on an object, which also holds the last-run record.
const (
	plainLimit = 256 << 10
	gzipLimit  = 768 << 10
)

// StateError says that a state ConfigMap holds what this version of
// rebalancer cannot use: content that does not decode, or a format it does
// not know. Such a state is reported and replaced, never a reason to stop
// every later run.
type StateError struct {
	ConfigMap string
	Problem   string
}

func (e *StateError) Error() string {
	return fmt.Sprintf("state ConfigMap %s: %s", e.ConfigMap, e.Problem)
}

// DecodeEvictions returns the evictions a state ConfigMap holds, as
// recorded, oldest first; none when it holds none. What it cannot use is a
// *StateError.
func DecodeEvictions(cm *corev1.ConfigMap) ([]Eviction, error) {
	return decodeStateList[Eviction](cm, historyKey, historyGzipKey)
}

// decodeStateList returns the list a state ConfigMap holds under a key,
// plain in Data or gzipped in BinaryData; none when it holds none.
func decodeStateList[T any](cm *corev1.ConfigMap, plainKey, gzipKey string) ([]T, error) {
	bad := func(format string, args ...any) error {
		return &StateError{ConfigMap: cm.Namespace + "/" + cm.Name, Problem: fmt.Sprintf(format, args...)}
	}
	// Written before the format was recorded: the same layout.
	if f, ok := cm.Data[formatKey]; ok && f != stateFormat {
		return nil, bad("format %q is not one this version of rebalancer knows (%s): a newer version wrote it", f, stateFormat)
	}
	raw := []byte(cm.Data[plainKey])
	key := plainKey
	if gz, ok := cm.BinaryData[gzipKey]; ok && gzipKey != "" {
		key = gzipKey
		r, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, bad("key %s: %v", key, err)
		}
		if raw, err = io.ReadAll(io.LimitReader(r, 64<<20)); err != nil {
			return nil, bad("key %s: %v", key, err)
		}
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var out []T
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, bad("key %s: %v", key, err)
	}
	return out, nil
}

// EncodeEvictions replaces the evictions a state ConfigMap holds, in the
// form DecodeEvictions reads, and keeps its other keys (the last-run
// record). Should even the gzipped form outgrow its bound, the oldest
// evictions are dropped until it fits; it returns how many.
func EncodeEvictions(cm *corev1.ConfigMap, evictions []Eviction) (dropped int, err error) {
	sorted := make([]Eviction, len(evictions))
	copy(sorted, evictions)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].At.Before(sorted[j].At) })

	body, err := json.Marshal(sorted)
	if err != nil {
		return 0, err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[formatKey] = stateFormat
	if len(body) <= plainLimit {
		cm.Data[historyKey] = string(body)
		delete(cm.BinaryData, historyGzipKey)
		return 0, nil
	}
	gz, err := gzipped(body)
	if err != nil {
		return 0, err
	}
	if len(gz) > gzipLimit {
		if dropped, gz, err = newestThatFit(sorted, len(gz), len(body)); err != nil {
			return 0, err
		}
	}
	delete(cm.Data, historyKey)
	if cm.BinaryData == nil {
		cm.BinaryData = map[string][]byte{}
	}
	cm.BinaryData[historyGzipKey] = gz
	return dropped, nil
}

// newestThatFit gzips the newest evictions that fit in gzipLimit, given the
// sizes of all of them gzipped and plain. It estimates how many fit from
// the compression ratio, so that it encodes a few times, not once per
// binary-search step.
func newestThatFit(sorted []Eviction, gzSize, plainSize int) (dropped int, gz []byte, err error) {
	// Each entry's share of the plain JSON, newest first.
	sizes := make([]int, len(sorted))
	for i, e := range sorted {
		b, err := json.Marshal(e)
		if err != nil {
			return 0, nil, err
		}
		sizes[i] = len(b) + 1 // the comma
	}
	keep := len(sorted)
	for gzSize > gzipLimit {
		ratio := float64(gzSize) / float64(plainSize)
		budget := int(float64(gzipLimit) / ratio * 0.97)
		n, total := 0, 0
		for i := len(sorted) - 1; i >= 0 && total+sizes[i] <= budget; i-- {
			total += sizes[i]
			n++
		}
		if n >= keep { // the estimate did not shrink it: shrink anyway
			n = keep * 9 / 10
		}
		keep = n
		body, err := json.Marshal(sorted[len(sorted)-keep:])
		if err != nil {
			return 0, nil, err
		}
		if gz, err = gzipped(body); err != nil {
			return 0, nil, err
		}
		gzSize, plainSize = len(gz), len(body)
	}
	return len(sorted) - keep, gz, nil
}

func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Healing counts what HealEvictions changed in a state's evictions.
type Healing struct {
	// Ahead were dated after now: re-dated at now.
	Ahead int
	// Expired were older than the state keeps evictions: dropped.
	Expired int
	// Invalid named no pod as namespace/name, or no date: dropped.
	Invalid int
}

// Any tells whether the evictions needed healing.
func (h Healing) Any() bool { return h.Ahead+h.Expired+h.Invalid > 0 }

// HealEvictions returns the evictions as a state written at now keeps
// them, and what it changed. One dated after now (a clock ahead, a hand
// edit, a restored backup) is dated at now: its cooldown then runs from the
// moment a run first saw it, not until that future. One older than keep,
// or that names no pod or date, can steer nothing and is dropped.
func HealEvictions(evictions []Eviction, now time.Time, keep time.Duration) ([]Eviction, Healing) {
	var h Healing
	out := make([]Eviction, 0, len(evictions))
	for _, e := range evictions {
		ns, name, ok := strings.Cut(e.Pod, "/")
		switch {
		case !ok || ns == "" || name == "" || e.At.IsZero():
			h.Invalid++
			continue
		case e.At.After(now):
			e.At = now
			h.Ahead++
		case now.Sub(e.At) > keep:
			h.Expired++
			continue
		}
		out = append(out, e)
	}
	return out, h
}

// NotCarriedOut returns the recorded evictions that did not happen: their
// pod is still on the node it was to leave, under the same UID, and not
// being deleted. A run records its evictions before it makes them; one
// that was killed, or lost the API server, leaves such intents behind,
// which must cause neither a cooldown nor a hand-off. Entries without a
// UID cannot be told apart and are kept.
func NotCarriedOut(evictions []Eviction, snap *Snapshot) []Eviction {
	var out []Eviction
	for _, e := range evictions {
		if e.UID == "" {
			continue
		}
		p := snap.Pod(e.Pod)
		if p == nil || p.UID != e.UID || p.IsTerminating() {
			continue
		}
		if n := snap.NodeOf(p); n != nil && n.Name == e.From {
			out = append(out, e)
		}
	}
	return out
}
