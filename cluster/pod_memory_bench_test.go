package cluster_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

// BenchmarkPodMemory reports what a pod costs the heap once read: pods as
// an API server serves them (defaults, service account volume, container
// statuses, managedFields), read as `run` reads them (protobuf pages,
// managedFields dropped, trimmed and shared as each page arrives) and as
// `plan --snapshot` reads a JSON dump; started=together are the same pods
// started as in a cluster filled at once. objects-B/pod is what the decoded
// objects retain after a garbage collection, snapshot-B/pod that and what
// cluster.New adds.
//
//	go test ./cluster -run '^$' -bench PodMemory -benchmem
func BenchmarkPodMemory(b *testing.B) {
	objs, dump, served, filled := servedPods(b)
	rest := objs
	rest.Pods = nil

	b.Run("read=protobuf", func(b *testing.B) {
		measurePods(b, len(served), func() cluster.Objects {
			o := rest
			o.Pods = readPodPages(b, served)
			return o
		})
	})
	b.Run("read=protobuf/started=together", func(b *testing.B) {
		measurePods(b, len(filled), func() cluster.Objects {
			o := rest
			o.Pods = readPodPages(b, filled)
			return o
		})
	})
	b.Run("read=json-dump", func(b *testing.B) {
		measurePods(b, len(objs.Pods), func() cluster.Objects {
			o, _, err := cluster.Decode(bytes.NewReader(dump))
			if err != nil {
				b.Fatal(err)
			}
			return o
		})
	})
}

// servedPods generates a cluster of 300 nodes and 10,000 pods and returns
// it, its JSON dump with what an API server adds, and each pod's protobuf
// encoding as an API server serves it: as generated, and started as in a
// cluster filled at once.
func servedPods(b *testing.B) (objs cluster.Objects, dump []byte, served, filled [][]byte) {
	objs = synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: 300, Pods: 10000})
	var buf bytes.Buffer
	if err := synthetic.WriteList(&buf, objs, synthetic.DumpOptions{Format: synthetic.JSON, Served: true, ManagedFields: true}); err != nil {
		b.Fatal(err)
	}
	dump = buf.Bytes()
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(dump, &list); err != nil {
		b.Fatal(err)
	}
	// The generated pods were created over a month, each at a minute of
	// its own; those of a cluster filled at once (make
	// bench-vs-descheduler's: 40,000 pods in about 7 minutes) went
	// through their conditions and started their containers within the
	// same few seconds as many others.
	const startedPerSecond = 90
	for _, raw := range list.Items {
		var p corev1.Pod
		if err := json.Unmarshal(raw, &p); err != nil || p.Kind != "Pod" {
			continue
		}
		served = append(served, marshalPod(b, &p))
		at := metav1.NewTime(synthetic.Spec{}.Now.Add(time.Duration(len(filled)/startedPerSecond) * time.Second))
		p.CreationTimestamp, p.Status.StartTime = at, &at
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].LastTransitionTime = at
		}
		for i := range p.Status.ContainerStatuses {
			if r := p.Status.ContainerStatuses[i].State.Running; r != nil {
				r.StartedAt = at
			}
		}
		filled = append(filled, marshalPod(b, &p))
	}
	return objs, dump, served, filled
}

// BenchmarkReadPodPages is the CPU of reading pods as `run` reads them,
// decoded from protobuf a page at a time, trimmed and shared: by their
// bytes (as run shares them) and by their values, in the same run.
//
//	go test ./cluster -run '^$' -bench ReadPodPages -benchmem
func BenchmarkReadPodPages(b *testing.B) {
	_, _, served, _ := servedPods(b)
	for _, way := range []struct {
		name  string
		share func(s *cluster.PodSharer, p *corev1.Pod, encoded []byte)
	}{
		{"share=encoded", (*cluster.PodSharer).ShareEncoded},
		{"share=values", func(s *cluster.PodSharer, p *corev1.Pod, _ []byte) { s.Share(p) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				readPodPagesWith(b, served, way.share)
			}
		})
	}
}

func marshalPod(b *testing.B, p *corev1.Pod) []byte {
	data, err := p.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// readPodPages decodes pods as the API server's reader does: a page of 1,000
// at a time, each pod trimmed and shared, then copied out of its page.
func readPodPages(b *testing.B, served [][]byte) []corev1.Pod {
	return readPodPagesWith(b, served, (*cluster.PodSharer).ShareEncoded)
}

func readPodPagesWith(b *testing.B, served [][]byte, share func(*cluster.PodSharer, *corev1.Pod, []byte)) []corev1.Pod {
	const pageSize = 1000
	pods := make([]corev1.Pod, 0, len(served))
	sharer := cluster.NewPodSharer()
	for start := 0; start < len(served); start += pageSize {
		page := make([]corev1.Pod, min(pageSize, len(served)-start))
		for i := range page {
			if err := page[i].Unmarshal(served[start+i]); err != nil {
				b.Fatal(err)
			}
			page[i].SetManagedFields(nil)
			cluster.Trim(&page[i])
			share(sharer, &page[i], served[start+i])
		}
		pods = append(pods, page...)
	}
	return pods
}

// measurePods reports the heap that read's objects, and a snapshot of
// them, hold after a garbage collection, a pod.
func measurePods(b *testing.B, pods int, read func() cluster.Objects) {
	b.ReportAllocs()
	var objects, snapshot uint64
	for b.Loop() {
		before := heapAfterGC()
		objs := read()
		objects = heapAfterGC() - before
		snap, err := cluster.New(objs, synthetic.Spec{}.Now)
		if err != nil {
			b.Fatal(err)
		}
		snapshot = heapAfterGC() - before
		runtime.KeepAlive(snap)
	}
	b.ReportMetric(float64(objects)/float64(pods), "objects-B/pod")
	b.ReportMetric(float64(snapshot)/float64(pods), "snapshot-B/pod")
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
