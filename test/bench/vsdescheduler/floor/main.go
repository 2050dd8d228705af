// Command floor reads the cluster as `rebalancer run` does and does nothing
// else: the same kinds, LISTed in protobuf and in pages of the same sizes,
// each page decoded into its typed list and let go. What it takes is the
// least a read of the cluster can take from that API server with client-go;
// `make bench-read` and `make bench-vs-descheduler` set run's time against
// it. With -concurrent the kinds are read at once, as run reads them;
// without, one after another.
//
// -way names how each kind is read: "pages" (the default) as run reads
// it; "stream", the streaming list of the WatchList feature (a watch that
// sends the kind's objects first and ends them with a bookmark annotated
// k8s.io/initial-events-end); "rv0", one LIST at resourceVersion "0",
// which the API server serves from its watch cache whole, ignoring the
// limit. The last two are what an API server offers besides the paginated
// LIST, measured against it.
//
//	go run ./test/bench/vsdescheduler/floor -kubeconfig admin.kubeconfig -concurrent
//	go run ./test/bench/vsdescheduler/floor -kubeconfig admin.kubeconfig -concurrent -way stream
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

func main() {
	// The line goes to stderr, where the benchmark reads the tools' logs.
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the kubeconfig of the cluster to read")
	concurrent := fs.Bool("concurrent", false, "read the kinds at once, as run does, instead of one after another")
	way := fs.String("way", wayPages, "how each kind is read: pages (run's paginated LIST), stream (the WatchList feature's streaming list) or rv0 (one LIST from the watch cache)")
	// run's defaults: the floor waits for the same limiter.
	qps := fs.Float64("qps", 20, "API requests per second")
	burst := fs.Int("burst", 30, "API requests allowed in a burst above -qps")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *way != wayPages && *way != wayStream && *way != wayRV0 {
		return fmt.Errorf("-way %q: want %s, %s or %s", *way, wayPages, wayStream, wayRV0)
	}
	start := time.Now()
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(*qps), *burst
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	counts, err := read(ctx, client, *concurrent, *way)
	if err != nil {
		return err
	}
	objects := 0
	for _, n := range counts {
		objects += n
	}
	fmt.Fprintf(out, "floor nodes=%d pods=%d objects=%d concurrent=%t way=%s took=%s\n",
		counts["nodes"], counts["pods"], objects, *concurrent, *way, time.Since(start).Round(time.Millisecond))
	return nil
}

// The ways a kind is read.
const (
	wayPages  = "pages"
	wayStream = "stream"
	wayRV0    = "rv0"
)

// kind is one kind run reads: its resource, its page size, its LIST and
// its WATCH.
type kind struct {
	resource string
	limit    int64
	list     func(context.Context, metav1.ListOptions) (runtime.Object, error)
	watch    func(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// lister turns a typed LIST into one kind's.
func lister[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error)) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) { return list(ctx, opts) }
}

// kinds are those kube.ReadObjects reads by default, with its page sizes.
// run reads the state ConfigMap only with --state-configmap or in a pod,
// which the benchmarks do not give it.
func kinds(client kubernetes.Interface) []kind {
	core, apps, storage := client.CoreV1(), client.AppsV1(), client.StorageV1()
	all := metav1.NamespaceAll
	p := kube.PageSizes
	return []kind{
		{"nodes", p.Nodes, lister(core.Nodes().List), core.Nodes().Watch},
		{"pods", p.Pods, lister(core.Pods(all).List), core.Pods(all).Watch},
		{"poddisruptionbudgets", p.Others, lister(client.PolicyV1().PodDisruptionBudgets(all).List), client.PolicyV1().PodDisruptionBudgets(all).Watch},
		{"namespaces", p.Others, lister(core.Namespaces().List), core.Namespaces().Watch},
		{"priorityclasses", p.Others, lister(client.SchedulingV1().PriorityClasses().List), client.SchedulingV1().PriorityClasses().Watch},
		{"replicasets", p.Pods, lister(apps.ReplicaSets(all).List), apps.ReplicaSets(all).Watch},
		{"statefulsets", p.Others, lister(apps.StatefulSets(all).List), apps.StatefulSets(all).Watch},
		{"deployments", p.Others, lister(apps.Deployments(all).List), apps.Deployments(all).Watch},
		{"jobs", p.Others, lister(client.BatchV1().Jobs(all).List), client.BatchV1().Jobs(all).Watch},
		{"persistentvolumes", p.Others, lister(core.PersistentVolumes().List), core.PersistentVolumes().Watch},
		{"persistentvolumeclaims", p.Others, lister(core.PersistentVolumeClaims(all).List), core.PersistentVolumeClaims(all).Watch},
		{"storageclasses", p.Others, lister(storage.StorageClasses().List), storage.StorageClasses().Watch},
		{"csinodes", p.Nodes, lister(storage.CSINodes().List), storage.CSINodes().Watch},
	}
}

// read reads every kind the given way and returns how many objects of each
// it read.
func read(ctx context.Context, client kubernetes.Interface, concurrent bool, way string) (map[string]int, error) {
	ks := kinds(client)
	counts := make([]int, len(ks))
	errs := make([]error, len(ks))
	one := pages
	switch way {
	case wayStream:
		one = stream
	case wayRV0:
		one = fromCache
	}
	var wg sync.WaitGroup
	for i, k := range ks {
		if !concurrent {
			counts[i], errs[i] = one(ctx, k)
			continue
		}
		wg.Go(func() { counts[i], errs[i] = one(ctx, k) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	byKind := make(map[string]int, len(ks))
	for i, k := range ks {
		byKind[k.resource] = counts[i]
	}
	return byKind, nil
}

// pages reads one kind page by page, each page dropped once counted.
func pages(ctx context.Context, k kind) (int, error) {
	n, opts := 0, metav1.ListOptions{Limit: k.limit}
	for {
		obj, err := k.list(ctx, opts)
		if err != nil {
			return n, fmt.Errorf("listing %s: %w", k.resource, err)
		}
		n += meta.LenList(obj)
		l, err := meta.ListAccessor(obj)
		if err != nil {
			return n, err
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			return n, nil
		}
	}
}

// fromCache reads one kind with one LIST at resourceVersion "0": served
// from the watch cache, at least as new as any the cache has served, whole.
func fromCache(ctx context.Context, k kind) (int, error) {
	obj, err := k.list(ctx, metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		return 0, fmt.Errorf("listing %s: %w", k.resource, err)
	}
	return meta.LenList(obj), nil
}

// streamAttempts bounds how often a kind's streaming list is started again
// when the API server closes its watch before the initial events end, as
// it may under load; each attempt reads the kind from the start, and its
// time is part of the read.
const streamAttempts = 3

// stream reads one kind by a streaming list: a watch from the current
// revision that first sends every object as an ADDED event, then a
// bookmark annotated k8s.io/initial-events-end; each object is dropped
// once counted.
func stream(ctx context.Context, k kind) (int, error) {
	for attempt := 1; ; attempt++ {
		n, complete, err := streamOnce(ctx, k)
		if err != nil || complete {
			return n, err
		}
		if attempt == streamAttempts {
			return n, fmt.Errorf("streaming %s: the watch ended before the initial events did, %d times", k.resource, attempt)
		}
		fmt.Fprintf(os.Stderr, "floor: streaming %s: the watch ended before the initial events did (attempt %d of %d); streaming it again\n", k.resource, attempt, streamAttempts)
	}
}

// streamOnce reads one kind by one streaming list; complete is false when
// the watch ended before the bookmark that ends the initial events.
func streamOnce(ctx context.Context, k kind) (n int, complete bool, err error) {
	w, err := k.watch(ctx, metav1.ListOptions{
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return 0, false, fmt.Errorf("streaming %s: %w", k.resource, err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Added:
			n++
		case watch.Bookmark:
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				return n, false, err
			}
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				return n, true, nil
			}
		case watch.Error:
			return n, false, fmt.Errorf("streaming %s: %w", k.resource, apierrors.FromObject(ev.Object))
		}
	}
	return n, false, ctx.Err()
}
