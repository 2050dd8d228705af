package cluster

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/component-helpers/storage/ephemeral"
	storagehelpers "k8s.io/component-helpers/storage/volume"
)

// Annotations of claims that the volume plugins read: the PV controller
// marks a finished binding with the first, and kube-scheduler names the
// node a WaitForFirstConsumer claim is provisioned for with the second.
const (
	AnnBindCompleted = "pv.kubernetes.io/bind-completed"
	AnnSelectedNode  = "volume.kubernetes.io/selected-node"
	// annBetaStorageClass is the storage class annotation that predates
	// spec.storageClassName and still wins over it.
	annBetaStorageClass = "volume.beta.kubernetes.io/storage-class"
)

// volumes are the snapshot's PersistentVolumes, claims, StorageClasses and
// CSINodes, indexed as the volume plugins look them up.
type volumes struct {
	// known is true when the snapshot was given volume objects at all: a
	// snapshot built without them (the live scheduler's, a dump without
	// pv,pvc) cannot tell a missing claim from one it was not told about.
	known bool

	claims   map[claimKey]*corev1.PersistentVolumeClaim
	pvs      map[string]*corev1.PersistentVolume
	pvsByCls map[string][]*corev1.PersistentVolume // by class, sorted by name
	classes  map[string]*storagev1.StorageClass
	csiNodes map[string]*storagev1.CSINode
	// csiByIndex is each node's CSINode by the node's index, for the
	// filter that reads one per node; nil when there are none.
	csiByIndex []*storagev1.CSINode
	// claimUsers are the pods whose volumes name each claim: who holds a
	// ReadWriteOncePod claim is asked of them.
	claimUsers map[claimKey][]*Pod
}

// claimKey is a claim's namespace and name: looked up per node and pod by
// the filters, it is a key that costs no allocation to build.
type claimKey struct{ namespace, name string }

func newVolumes(objs *Objects) volumes {
	v := volumes{
		known: objs.VolumesListed || len(objs.PersistentVolumes) > 0 || len(objs.PersistentVolumeClaims) > 0 ||
			len(objs.StorageClasses) > 0 || len(objs.CSINodes) > 0,
		claims:     make(map[claimKey]*corev1.PersistentVolumeClaim, len(objs.PersistentVolumeClaims)),
		pvs:        make(map[string]*corev1.PersistentVolume, len(objs.PersistentVolumes)),
		pvsByCls:   make(map[string][]*corev1.PersistentVolume),
		classes:    make(map[string]*storagev1.StorageClass, len(objs.StorageClasses)),
		csiNodes:   make(map[string]*storagev1.CSINode, len(objs.CSINodes)),
		claimUsers: make(map[claimKey][]*Pod),
	}
	for i := range objs.PersistentVolumeClaims {
		c := &objs.PersistentVolumeClaims[i]
		trimClaim(c)
		v.claims[claimKey{c.Namespace, c.Name}] = c
	}
	for i := range objs.PersistentVolumes {
		pv := &objs.PersistentVolumes[i]
		trimVolume(pv)
		v.pvs[pv.Name] = pv
		cls := storagehelpers.GetPersistentVolumeClass(pv)
		v.pvsByCls[cls] = append(v.pvsByCls[cls], pv)
	}
	for _, list := range v.pvsByCls {
		slices.SortFunc(list, func(a, b *corev1.PersistentVolume) int { return strings.Compare(a.Name, b.Name) })
	}
	for i := range objs.StorageClasses {
		sc := &objs.StorageClasses[i]
		sc.Parameters, sc.MountOptions, sc.Annotations, sc.Labels = nil, nil, nil, nil
		v.classes[sc.Name] = sc
	}
	for i := range objs.CSINodes {
		n := &objs.CSINodes[i]
		trimCSINode(n)
		v.csiNodes[n.Name] = n
	}
	return v
}

// trimClaim keeps what scheduling reads of a claim: a snapshot of a large
// cluster holds tens of thousands, most with a last-applied annotation.
func trimClaim(c *corev1.PersistentVolumeClaim) {
	c.Annotations = keepAnnotations(c.Annotations, AnnBindCompleted, AnnSelectedNode, annBetaStorageClass)
	c.Labels = nil
	c.Finalizers = nil
	c.Status.Conditions = nil
	c.Status.AllocatedResources = nil
	c.Status.AllocatedResourceStatuses = nil
	c.Status.ModifyVolumeStatus = nil
	c.Spec.DataSource, c.Spec.DataSourceRef = nil, nil
}

// trimVolume keeps a PersistentVolume's labels (the zone labels, and what
// a claim's selector matches), its class, claim, capacity, modes, node
// affinity and the source that names its CSI driver.
func trimVolume(pv *corev1.PersistentVolume) {
	pv.Annotations = keepAnnotations(pv.Annotations, annBetaStorageClass)
	pv.Finalizers = nil
	pv.Spec.MountOptions = nil
	if csi := pv.Spec.CSI; csi != nil {
		pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: csi.Driver, VolumeHandle: csi.VolumeHandle}
	}
	pv.Status.Message, pv.Status.Reason = "", ""
}

func trimCSINode(n *storagev1.CSINode) {
	n.Annotations = keepAnnotations(n.Annotations, corev1.MigratedPluginsAnnotationKey)
	n.Labels = nil
	n.OwnerReferences = nil
	for i := range n.Spec.Drivers {
		n.Spec.Drivers[i].NodeID = ""
		n.Spec.Drivers[i].TopologyKeys = nil
	}
}

func keepAnnotations(a map[string]string, keys ...string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := a[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// indexCSINodes lines the CSINodes up with the snapshot's nodes.
func (v *volumes) indexCSINodes(nodes []*Node) {
	if len(v.csiNodes) == 0 {
		return
	}
	v.csiByIndex = make([]*storagev1.CSINode, len(nodes))
	for i, n := range nodes {
		v.csiByIndex[i] = v.csiNodes[n.Name]
	}
}

// indexClaimUsers records which pods name which claim.
func (v *volumes) indexClaimUsers(pods []*Pod) {
	for _, p := range pods {
		for i := range p.Spec.Volumes {
			if name := ClaimName(p.Pod, &p.Spec.Volumes[i]); name != "" {
				key := claimKey{p.Namespace, name}
				v.claimUsers[key] = append(v.claimUsers[key], p)
			}
		}
	}
}

// ClaimName returns the name of the PersistentVolumeClaim a volume of pod
// uses: the claim it names, or the one the ephemeral volume controller
// creates for a generic ephemeral volume; "" for other volumes.
func ClaimName(pod *corev1.Pod, vol *corev1.Volume) string {
	switch {
	case vol.PersistentVolumeClaim != nil:
		return vol.PersistentVolumeClaim.ClaimName
	case vol.Ephemeral != nil:
		return ephemeral.VolumeClaimName(pod, vol)
	}
	return ""
}

// UsesClaims reports whether any volume of the pod is a PersistentVolumeClaim
// or a generic ephemeral volume, which is one too.
func UsesClaims(p *corev1.Pod) bool {
	for i := range p.Spec.Volumes {
		if v := &p.Spec.Volumes[i]; v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return true
		}
	}
	return false
}

// AttachesVolumes reports whether a volume of the pod may be one a CSI
// driver attaches to its node: a claim, a generic ephemeral volume, or an
// inline volume of an in-tree plugin migrated to CSI.
func AttachesVolumes(p *corev1.Pod) bool {
	for i := range p.Spec.Volumes {
		v := &p.Spec.Volumes[i]
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil || v.AWSElasticBlockStore != nil ||
			v.GCEPersistentDisk != nil || v.AzureDisk != nil || v.Cinder != nil || v.PortworxVolume != nil {
			return true
		}
	}
	return false
}

// ClaimClass returns the storage class a claim asks for: the beta
// annotation, which still wins, or spec.storageClassName.
func ClaimClass(c *corev1.PersistentVolumeClaim) string {
	return storagehelpers.GetPersistentVolumeClaimClass(c)
}

// VolumesKnown reports whether the snapshot holds the cluster's volumes:
// without them (a dump that leaves pv,pvc out, the live scheduler's view)
// the volume plugins have nothing to check, and a claim that is not there
// was not looked for.
func (s *Snapshot) VolumesKnown() bool { return s.vol.known }

// Claim returns the PersistentVolumeClaim namespace/name, or nil.
func (s *Snapshot) Claim(namespace, name string) *corev1.PersistentVolumeClaim {
	return s.vol.claims[claimKey{namespace, name}]
}

// ClaimFullyBound reports that the PV controller has finished binding the
// claim: it names its volume and carries the bind-completed annotation.
func ClaimFullyBound(c *corev1.PersistentVolumeClaim) bool {
	_, done := c.Annotations[AnnBindCompleted]
	return c.Spec.VolumeName != "" && done
}

// PersistentVolume returns the PersistentVolume of that name, or nil.
func (s *Snapshot) PersistentVolume(name string) *corev1.PersistentVolume { return s.vol.pvs[name] }

// PersistentVolumesOfClass returns the PersistentVolumes of a storage class
// ("" for those of none), sorted by name. Do not modify the slice.
func (s *Snapshot) PersistentVolumesOfClass(class string) []*corev1.PersistentVolume {
	return s.vol.pvsByCls[class]
}

// StorageClass returns the StorageClass of that name, or nil.
func (s *Snapshot) StorageClass(name string) *storagev1.StorageClass { return s.vol.classes[name] }

// CSINode returns the CSINode of the node of that name, or nil.
func (s *Snapshot) CSINode(node string) *storagev1.CSINode { return s.vol.csiNodes[node] }

// CSINodeAt returns the CSINode of the i-th node of Nodes(), or nil.
func (s *Snapshot) CSINodeAt(i int) *storagev1.CSINode {
	if s.vol.csiByIndex == nil {
		return nil
	}
	return s.vol.csiByIndex[i]
}

// ClaimInUse reports whether a pod other than except, on a node of the
// snapshot as edited, uses the claim namespace/name: kube-scheduler's count
// of the pods that hold a ReadWriteOncePod claim.
func (s *Snapshot) ClaimInUse(namespace, name string, except *Pod) bool {
	for _, p := range s.vol.claimUsers[claimKey{namespace, name}] {
		if p != except && s.NodeOf(p) != nil {
			return true
		}
	}
	return false
}
