// Command floor reads the cluster as `rebalancer run` does and does nothing
// else: the same kinds, LISTed in protobuf and in pages of the same sizes,
// each page decoded into its typed list and let go. What it takes is the
// least a read of the cluster can take from that API server with client-go;
// `make bench-read` and `make bench-vs-descheduler` set run's time against
// it. With -concurrent the kinds are read at once, as run reads them;
// without, one after another.
//
//	go run ./test/bench/vsdescheduler/floor -kubeconfig admin.kubeconfig -concurrent
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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

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
	// run's defaults: the floor waits for the same limiter.
	qps := fs.Float64("qps", 20, "API requests per second")
	burst := fs.Int("burst", 30, "API requests allowed in a burst above -qps")
	if err := fs.Parse(args); err != nil {
		return err
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
	counts, err := read(ctx, client, *concurrent)
	if err != nil {
		return err
	}
	objects := 0
	for _, n := range counts {
		objects += n
	}
	fmt.Fprintf(out, "floor nodes=%d pods=%d objects=%d concurrent=%t took=%s\n",
		counts["nodes"], counts["pods"], objects, *concurrent, time.Since(start).Round(time.Millisecond))
	return nil
}

// kind is one kind run reads: its resource, its page size and its LIST.
type kind struct {
	resource string
	limit    int64
	list     func(context.Context, metav1.ListOptions) (runtime.Object, error)
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
		{"nodes", p.Nodes, lister(core.Nodes().List)},
		{"pods", p.Pods, lister(core.Pods(all).List)},
		{"poddisruptionbudgets", p.Others, lister(client.PolicyV1().PodDisruptionBudgets(all).List)},
		{"namespaces", p.Others, lister(core.Namespaces().List)},
		{"priorityclasses", p.Others, lister(client.SchedulingV1().PriorityClasses().List)},
		{"replicasets", p.Pods, lister(apps.ReplicaSets(all).List)},
		{"statefulsets", p.Others, lister(apps.StatefulSets(all).List)},
		{"deployments", p.Others, lister(apps.Deployments(all).List)},
		{"jobs", p.Others, lister(client.BatchV1().Jobs(all).List)},
		{"persistentvolumes", p.Others, lister(core.PersistentVolumes().List)},
		{"persistentvolumeclaims", p.Others, lister(core.PersistentVolumeClaims(all).List)},
		{"storageclasses", p.Others, lister(storage.StorageClasses().List)},
		{"csinodes", p.Nodes, lister(storage.CSINodes().List)},
	}
}

// read lists every kind and returns how many objects of each it read.
func read(ctx context.Context, client kubernetes.Interface, concurrent bool) (map[string]int, error) {
	ks := kinds(client)
	counts := make([]int, len(ks))
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for i, k := range ks {
		if !concurrent {
			counts[i], errs[i] = pages(ctx, k)
			continue
		}
		wg.Go(func() { counts[i], errs[i] = pages(ctx, k) })
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
