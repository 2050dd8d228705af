package synthetic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Format is how WriteList prints a dump: as `kubectl get … -o yaml` or
// `-o json` prints one.
type Format string

const (
	YAML Format = "yaml"
	JSON Format = "json"
)

// DumpOptions say how close to a real API server's objects a dump is.
type DumpOptions struct {
	// Format is YAML unless set.
	Format Format
	// Served adds what the API server and the kubelet fill in on a real
	// cluster (defaults, service account volumes, container statuses, node
	// conditions): a dump of a real cluster is mostly that, and decoding
	// costs what the dump weighs.
	Served bool
	// ManagedFields adds a managedFields entry per writer, as
	// `kubectl get --show-managed-fields` prints them.
	ManagedFields bool
	// LastApplied adds the annotation `kubectl apply` leaves on what it
	// applies, the object as applied in JSON, to the kinds a user applies
	// rather than a controller creates: namespaces, priority classes,
	// StatefulSets, Jobs, PodDisruptionBudgets and storage classes.
	LastApplied bool
}

// WriteList writes objs as one v1 List, item by item, so that a dump of
// any size is written in the memory of one object.
func WriteList(w io.Writer, objs cluster.Objects, opts DumpOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	lw := listWriter{w: bw, format: opts.Format}
	if lw.format == "" {
		lw.format = YAML
	}
	lw.begin()
	applied := opts.LastApplied
	writeItems(&lw, objs.Namespaces, applied)
	writeItems(&lw, objs.PriorityClasses, applied)
	for i := range objs.Nodes {
		n := objs.Nodes[i]
		if opts.Served {
			n = servedNode(n)
		}
		if opts.ManagedFields {
			n.ManagedFields = managedFields(n.CreationTimestamp, "kubelet", "Update", "status")
		}
		lw.item(&n)
	}
	writeItems(&lw, objs.ReplicaSets, false)
	writeItems(&lw, objs.StatefulSets, applied)
	writeItems(&lw, objs.Jobs, applied)
	writeItems(&lw, objs.PDBs, applied)
	// Without its volumes' objects, a dump would leave every pod with a
	// claim where it is: the plan would not be the generated cluster's.
	writeItems(&lw, objs.StorageClasses, applied)
	writeItems(&lw, objs.CSINodes, false)
	writeItems(&lw, objs.PersistentVolumes, false)
	writeItems(&lw, objs.PersistentVolumeClaims, false)
	for i := range objs.Pods {
		p := objs.Pods[i]
		if opts.Served {
			p = servedPod(p, i)
		}
		if opts.ManagedFields {
			p.ManagedFields = append(managedFields(p.CreationTimestamp, "kube-controller-manager", "Update", ""),
				managedFields(p.CreationTimestamp, "kubelet", "Update", "status")...)
		}
		lw.item(&p)
	}
	lw.end()
	if lw.err != nil {
		return lw.err
	}
	return bw.Flush()
}

// writeItems writes each object of one kind as an item of the List; with
// lastApplied, as `kubectl apply` left it.
func writeItems[T any, P interface {
	*T
	metav1.Object
}](lw *listWriter, objs []T, lastApplied bool) {
	for i := range objs {
		if !lastApplied {
			lw.item(&objs[i])
			continue
		}
		obj := objs[i]
		applied, err := json.Marshal(&obj)
		if err != nil {
			lw.err = err
			return
		}
		annotations := maps.Clone(P(&obj).GetAnnotations())
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[corev1.LastAppliedConfigAnnotation] = string(applied) + "\n"
		P(&obj).SetAnnotations(annotations)
		lw.item(&obj)
	}
}

type listWriter struct {
	w      *bufio.Writer
	format Format
	n      int
	err    error
}

// begin and end frame the items as kubectl does: the List's keys sorted,
// so items come between apiVersion and kind.
func (l *listWriter) begin() {
	if l.format == JSON {
		l.write([]byte("{\n    \"apiVersion\": \"v1\",\n    \"items\": ["))
		return
	}
	l.write([]byte("apiVersion: v1\nitems:\n"))
}

func (l *listWriter) end() {
	if l.format == JSON {
		if l.n > 0 {
			l.write([]byte("\n    "))
		}
		l.write([]byte("],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"))
		return
	}
	l.write([]byte("kind: List\nmetadata:\n  resourceVersion: \"\"\n"))
}

func (l *listWriter) item(obj any) {
	if l.err != nil {
		return
	}
	data, err := json.Marshal(obj)
	if err != nil {
		l.err = err
		return
	}
	if l.format == JSON {
		var buf bytes.Buffer
		if l.n > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n        ")
		if err := json.Indent(&buf, data, "        ", "    "); err != nil {
			l.err = err
			return
		}
		l.write(buf.Bytes())
		l.n++
		return
	}
	y, err := yaml.JSONToYAML(data)
	if err != nil {
		l.err = err
		return
	}
	// The item's lines, the first after "- ", the others indented by two,
	// as kubectl prints a List.
	prefix := []byte("- ")
	for len(y) > 0 {
		line := y
		if i := bytes.IndexByte(y, '\n'); i >= 0 {
			line, y = y[:i+1], y[i+1:]
		} else {
			y = nil
		}
		l.write(prefix)
		l.write(line)
		prefix = []byte("  ")
	}
	l.n++
}

func (l *listWriter) write(b []byte) {
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

// servedPod adds to a generated pod what the API server's defaulting, the
// service account admission and the kubelet write into a running pod.
func servedPod(p corev1.Pod, i int) corev1.Pod {
	p.Spec = *p.Spec.DeepCopy()
	p.ResourceVersion = fmt.Sprint(100000 + i)
	if len(p.OwnerReferences) > 0 {
		p.GenerateName = p.OwnerReferences[0].Name + "-"
	}
	tokenVolume := fmt.Sprintf("kube-api-access-%05x", i%0xfffff)
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptrTo(int32(420)),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptrTo(int64(3607)), Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}})
	p.Spec.DNSPolicy = corev1.DNSClusterFirst
	p.Spec.RestartPolicy = corev1.RestartPolicyAlways
	p.Spec.EnableServiceLinks = ptrTo(true)
	p.Spec.PreemptionPolicy = ptrTo(corev1.PreemptLowerPriority)
	p.Spec.ServiceAccountName = "default"
	p.Spec.DeprecatedServiceAccount = "default"
	p.Spec.SecurityContext = &corev1.PodSecurityContext{}
	p.Spec.TerminationGracePeriodSeconds = ptrTo(int64(30))
	if p.Spec.SchedulerName == "" {
		p.Spec.SchedulerName = corev1.DefaultSchedulerName
	}
	if p.Spec.Priority == nil {
		p.Spec.Priority = ptrTo(int32(0))
	}
	p.Spec.Tolerations = append(p.Spec.Tolerations,
		corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
		corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))})
	for c := range p.Spec.Containers {
		ct := &p.Spec.Containers[c]
		ct.ImagePullPolicy = corev1.PullIfNotPresent
		ct.TerminationMessagePath = corev1.TerminationMessagePathDefault
		ct.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		ct.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
		ct.Env = []corev1.EnvVar{
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
			{Name: "LOG_LEVEL", Value: "info"},
		}
		ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: tokenVolume, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"})
		ct.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
			PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	}
	if p.Spec.NodeName == "" {
		return p
	}
	p.Status.HostIP = fmt.Sprintf("10.0.%d.%d", i/65536%256, i/256%256)
	p.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
	p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", 64+i/65536%64, i/256%256, i%256)
	p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
	started := p.CreationTimestamp.Add(5 * time.Second)
	p.Status.Conditions = []corev1.PodCondition{
		{Type: "PodReadyToStartContainers", Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(started)},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: p.CreationTimestamp},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(started)},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(started)},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: p.CreationTimestamp},
	}
	for c := range p.Spec.Containers {
		ct := &p.Spec.Containers[c]
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: ct.Name, Image: ct.Image, ImageID: ct.Image + "@sha256:4f5e0b6c2d8a9e1f3b7c5d2a8e6f0b1c3d5e7f9a2b4c6d8e0f1a3b5c7d9e1f3a",
			ContainerID: fmt.Sprintf("containerd://%064x", i*8+c), Ready: true, Started: ptrTo(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}},
			VolumeMounts: []corev1.VolumeMountStatus{{Name: tokenVolume, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true,
				RecursiveReadOnly: ptrTo(corev1.RecursiveReadOnlyDisabled)}},
		})
	}
	return p
}

// servedNode adds what the kubelet and the node controllers report.
func servedNode(n corev1.Node) corev1.Node {
	n.Status = *n.Status.DeepCopy()
	n.Annotations = map[string]string{
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
	}
	n.Spec.ProviderID = "example://" + n.Name
	n.Spec.PodCIDR = "10.64.0.0/24"
	n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	at := n.CreationTimestamp
	n.Status.Conditions = []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available", LastHeartbeatTime: at, LastTransitionTime: at},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure", LastHeartbeatTime: at, LastTransitionTime: at},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available", LastHeartbeatTime: at, LastTransitionTime: at},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: at, LastTransitionTime: at},
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: n.Name}}
	n.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}}
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID: "ec2a0f3b9c8d4e5f", SystemUUID: "ec2a0f3b-9c8d-4e5f-a1b2-c3d4e5f60718", BootID: "5b1d9c3e-7f2a-4b6c-8d0e-1f3a5b7c9d2e",
		KernelVersion: "6.8.0-1019-aws", OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://2.0.2",
		KubeletVersion: "v1.36.0", OperatingSystem: "linux", Architecture: "amd64",
	}
	return n
}

// managedFields is one entry of a writer, with a representative set of
// fields: kubectl --show-managed-fields prints one per manager.
func managedFields(at metav1.Time, manager, operation, subresource string) []metav1.ManagedFieldsEntry {
	fields := `{"f:metadata":{"f:labels":{".":{},"f:app":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"0\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`
	if subresource == "status" {
		fields = `{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.64.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
	}
	return []metav1.ManagedFieldsEntry{{Manager: manager, Operation: metav1.ManagedFieldsOperationType(operation), APIVersion: "v1",
		Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields), Subresource: subresource}}
}
