package cluster

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// The classes a utilization strategy counts observations of.
const (
	ObservedOver  = "over"
	ObservedUnder = "under"
)

// Observation is how many runs in a row a utilization strategy found a
// node in a class (over- or under-utilized), and the timestamp of the
// node's sample it last counted, so that a run that reads the same sample
// again does not count it twice. A node in no class has none.
type Observation struct {
	Strategy string    `json:"strategy"`
	Node     string    `json:"node"`
	Class    string    `json:"class"`
	Count    int32     `json:"count"`
	At       time.Time `json:"at"`
}

// CompareObservations orders observations by strategy, then node.
func CompareObservations(a, b Observation) int {
	if c := strings.Compare(a.Strategy, b.Strategy); c != 0 {
		return c
	}
	return strings.Compare(a.Node, b.Node)
}

// NextObservation counts a node found in class with a sample taken at at,
// given what the earlier run counted (zero when it counted nothing): a
// newer sample in the same class adds one; the same sample again changes
// nothing; another class starts over.
func NextObservation(prev Observation, class string, at time.Time) Observation {
	next := Observation{Strategy: prev.Strategy, Node: prev.Node, Class: class, Count: 1, At: at}
	if prev.Class != class || prev.Count <= 0 {
		return next
	}
	if at.After(prev.At) {
		next.Count = prev.Count + 1
		return next
	}
	// Read again, or older than the one counted (another replica's
	// metrics-server lagging): it is not a new observation.
	prev.Class = class
	return prev
}

// The state ConfigMap's keys for the observations: plain JSON while small,
// gzipped in binaryData beyond that. A state written before they were kept
// has neither, and reads as no observations; a version of rebalancer that
// does not know them leaves them alone, so that the format stays v1.
const (
	observationsKey     = "observations.json"
	observationsGzipKey = "observations.json.gz"
)

// Size bounds of the observations: with the evictions' bound and the
// last-run record, the object stays under the API server's 1 MiB.
const (
	observationsPlainLimit = 64 << 10
	observationsGzipLimit  = 128 << 10
)

// DecodeObservations returns the observations a state ConfigMap holds;
// none when it holds none. What it cannot use is a *StateError.
func DecodeObservations(cm *corev1.ConfigMap) ([]Observation, error) {
	return decodeStateList[Observation](cm, observationsKey, observationsGzipKey)
}

// EncodeObservations replaces the observations a state ConfigMap holds and
// keeps its other keys; none removes the keys. Should even the gzipped form
// outgrow its bound, the lowest counts are dropped until it fits (those
// nodes start counting again); it returns how many.
func EncodeObservations(cm *corev1.ConfigMap, obs []Observation) (dropped int, err error) {
	if len(obs) == 0 {
		delete(cm.Data, observationsKey)
		delete(cm.BinaryData, observationsGzipKey)
		return 0, nil
	}
	// The highest counts first: they are the nearest to acting.
	sorted := slices.Clone(obs)
	slices.SortStableFunc(sorted, func(a, b Observation) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return CompareObservations(a, b)
	})
	body, err := json.Marshal(sorted)
	if err != nil {
		return 0, err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[formatKey] = stateFormat
	if len(body) <= observationsPlainLimit {
		cm.Data[observationsKey] = string(body)
		delete(cm.BinaryData, observationsGzipKey)
		return 0, nil
	}
	keep := len(sorted)
	gz, err := gzipped(body)
	for err == nil && len(gz) > observationsGzipLimit && keep > 0 {
		keep = keep * 9 / 10
		if body, err = json.Marshal(sorted[:keep]); err == nil {
			gz, err = gzipped(body)
		}
	}
	if err != nil {
		return 0, err
	}
	delete(cm.Data, observationsKey)
	if cm.BinaryData == nil {
		cm.BinaryData = map[string][]byte{}
	}
	cm.BinaryData[observationsGzipKey] = gz
	return len(sorted) - keep, nil
}

// Observations returns the observations held by the state ConfigMaps of a
// dump, ordered by strategy and node. A state that cannot be used is left
// out with a warning, as a run leaves it out.
func (o *Objects) Observations() ([]Observation, error) {
	var all []Observation
	for i := range o.StateConfigMaps {
		obs, err := DecodeObservations(&o.StateConfigMaps[i])
		var bad *StateError
		if errors.As(err, &bad) {
			klog.Warningf("%v; the plan ignores its observations (every node's count starts again)", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		all = append(all, obs...)
	}
	slices.SortStableFunc(all, CompareObservations)
	return all, nil
}
