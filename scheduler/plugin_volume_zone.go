package scheduler

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// VolumeZone is the plugin's name in a profile.
const VolumeZone = "VolumeZone"

// ErrReasonVolumeZoneConflict is kube-scheduler's VolumeZone reason.
const ErrReasonVolumeZoneConflict = "node(s) had no available volume zone"

var reasonVolumeZoneConflict = []string{ErrReasonVolumeZoneConflict}

// zoneLabels are the labels of a volume's zone and region, the deprecated
// failure-domain ones first, as kube-scheduler reads them.
var zoneLabels = []string{
	corev1.LabelFailureDomainBetaZone,
	corev1.LabelFailureDomainBetaRegion,
	corev1.LabelTopologyZone,
	corev1.LabelTopologyRegion,
}

// gaZoneLabel is the label that replaced a deprecated one: a volume
// labelled the old way matches a node labelled the new way.
func gaZoneLabel(key string) string {
	switch key {
	case corev1.LabelFailureDomainBetaZone:
		return corev1.LabelTopologyZone
	case corev1.LabelFailureDomainBetaRegion:
		return corev1.LabelTopologyRegion
	}
	return key
}

// volumeZone keeps a pod off nodes outside the zones and regions its bound
// volumes are labelled with. A node without any zone or region label
// passes: a cluster of one zone need not label its nodes.
type volumeZone struct {
	key StateKey
}

var _ FilterPlugin = (*volumeZone)(nil)

func newVolumeZone(_ any, h Handle) (Plugin, error) { return &volumeZone{key: h.StateKey()}, nil }

// volumeTopology is one zone label of a volume: its key and the zones
// (a value may list several, separated by "__").
type volumeTopology struct {
	key    string
	values []string
}

type zoneState struct {
	topologies []volumeTopology
}

func (s *zoneState) Reset() {
	clear(s.topologies)
	s.topologies = s.topologies[:0]
}

func (*volumeZone) Name() string { return VolumeZone }

func (p *volumeZone) PreFilter(c *Cycle) PreFilterResult {
	snap, pod := c.snap, c.pod.Pod
	if !snap.VolumesKnown() || !usesClaimVolume(pod) {
		return PreFilterResult{Skip: true}
	}
	st := State[zoneState](c, p.key)
	for i := range pod.Spec.Volumes {
		v := pod.Spec.Volumes[i].PersistentVolumeClaim
		if v == nil {
			continue
		}
		pv, msg := boundVolumeForZone(snap, pod.Namespace, v.ClaimName)
		if msg != "" {
			return PreFilterResult{Reject: msg}
		}
		if pv == nil {
			continue
		}
		for _, key := range zoneLabels {
			value, ok := pv.Labels[key]
			if !ok {
				continue
			}
			if zones, ok := labelZones(value); ok {
				st.topologies = append(st.topologies, volumeTopology{key: key, values: zones})
			}
		}
	}
	return PreFilterResult{Skip: len(st.topologies) == 0}
}

// usesClaimVolume: the pod has a persistentVolumeClaim volume (the kind
// VolumeZone and VolumeRestrictions look up; a generic ephemeral volume is
// VolumeBinding's).
func usesClaimVolume(pod *corev1.Pod) bool {
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// boundVolumeForZone returns the volume of the claim, nil for a claim that
// waits for its first consumer, or kube-scheduler's message for a claim it
// cannot place.
func boundVolumeForZone(snap *cluster.Snapshot, namespace, name string) (*corev1.PersistentVolume, string) {
	if name == "" {
		return nil, "PersistentVolumeClaim had no name"
	}
	claim := snap.Claim(namespace, name)
	if claim == nil {
		return nil, claimNotFound(name)
	}
	if claim.Spec.VolumeName == "" {
		className := cluster.ClaimClass(claim)
		if className == "" {
			return nil, "PersistentVolumeClaim had no pv name and storageClass name"
		}
		class := snap.StorageClass(className)
		switch {
		case class == nil:
			return nil, fmt.Sprintf("storageclass.storage.k8s.io %q not found", className)
		case class.VolumeBindingMode == nil:
			return nil, fmt.Sprintf("VolumeBindingMode not set for StorageClass %q", className)
		case *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer:
			return nil, ""
		}
		return nil, "PersistentVolume had no name"
	}
	pv := snap.PersistentVolume(claim.Spec.VolumeName)
	if pv == nil {
		return nil, fmt.Sprintf("persistentvolume %q not found", claim.Spec.VolumeName)
	}
	return pv, ""
}

// labelZones splits a zone label's value into its zones; a value with an
// empty zone is ignored, as kube-scheduler ignores what it cannot parse.
func labelZones(value string) ([]string, bool) {
	zones := strings.Split(value, "__")
	for i, z := range zones {
		z = strings.TrimSpace(z)
		if z == "" {
			return nil, false
		}
		zones[i] = z
	}
	return zones, true
}

func (p *volumeZone) Filter(c *Cycle, i int) []string {
	nodeLabels := c.nodes[i].Labels
	constrained := false
	for _, key := range zoneLabels {
		if _, ok := nodeLabels[key]; ok {
			constrained = true
			break
		}
	}
	if !constrained {
		return nil
	}
	for _, t := range State[zoneState](c, p.key).topologies {
		v, ok := nodeLabels[t.key]
		if !ok {
			v, ok = nodeLabels[gaZoneLabel(t.key)]
		}
		if !ok || !slices.Contains(t.values, v) {
			return reasonVolumeZoneConflict
		}
	}
	return nil
}
