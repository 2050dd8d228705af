// Package volumezone is kube-scheduler's VolumeZone plugin: a bound
// volume's zone and region labels against the node's.
package volumezone

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "VolumeZone"

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
	key framework.StateKey
}

var _ framework.FilterPlugin = (*volumeZone)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &volumeZone{key: h.StateKey()}, nil
}

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

func (*volumeZone) Name() string { return Name }

func (p *volumeZone) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	snap, pod := c.Snapshot(), c.Pod().Pod
	if !snap.VolumesKnown() || !framework.UsesClaimVolume(pod) {
		return framework.PreFilterResult{Skip: true}
	}
	st := framework.State[zoneState](c, p.key)
	for i := range pod.Spec.Volumes {
		v := pod.Spec.Volumes[i].PersistentVolumeClaim
		if v == nil {
			continue
		}
		pv, msg := boundVolumeForZone(snap, pod.Namespace, v.ClaimName)
		if msg != "" {
			return framework.PreFilterResult{Reject: msg}
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
	return framework.PreFilterResult{Skip: len(st.topologies) == 0}
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
		return nil, framework.ClaimNotFound(name)
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

func (p *volumeZone) Filter(c *framework.Cycle, i int) []string {
	nodeLabels := c.Nodes()[i].Labels
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
	for _, t := range framework.State[zoneState](c, p.key).topologies {
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

// Unresolvable: a volume's zone is the node's label's business.
func (p *volumeZone) Unresolvable(*framework.Cycle, int, []string) bool { return true }
