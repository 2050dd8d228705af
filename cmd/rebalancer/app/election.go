package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// electionFlags configure leader election, so that only one of several
// replicas evicts (or schedules) at a time.
type electionFlags struct {
	enabled   bool
	namespace string
	name      string
}

func (e *electionFlags) addFlags(c *cobra.Command) {
	c.Flags().BoolVar(&e.enabled, "leader-elect", false, "take a Lease before working, for Deployments with more than one replica")
	c.Flags().StringVar(&e.namespace, "leader-elect-namespace", "", "namespace of the Lease (default: the pod's namespace from $POD_NAMESPACE, else kube-system)")
	c.Flags().StringVar(&e.name, "leader-elect-name", electionLease(c.Name()), "name of the Lease")
}

// electionLease is the default name of a command's leader-election Lease.
func electionLease(command string) string { return "rebalancer-" + command }

// run calls work while this process holds the Lease, and returns when ctx
// ends or the Lease is lost.
func (e *electionFlags) run(ctx context.Context, client kubernetes.Interface, work func(context.Context) error) error {
	ns := e.namespace
	if ns == "" {
		ns = os.Getenv("POD_NAMESPACE")
	}
	if ns == "" {
		ns = metav1.NamespaceSystem
	}
	id, err := os.Hostname()
	if err != nil {
		return runtimeErr(err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: e.name},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	// The work may end on its own (one cycle, --interval 0): then give the
	// Lease back and return, instead of leading an idle process forever.
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		workErr error
		done    bool
	)
	leaderelection.RunOrDie(lctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		ReleaseOnCancel: true,
		Name:            e.name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				workErr = work(ctx)
				done = ctx.Err() == nil
				cancel()
			},
			OnStoppedLeading: func() { klog.InfoS("Leader election: not leading", "lease", ns+"/"+e.name) },
			OnNewLeader: func(identity string) {
				if identity != id {
					klog.InfoS("Leader election: another replica leads", "leader", identity)
				}
			},
		},
	})
	switch {
	case done || workErr != nil:
		return workErr
	case ctx.Err() != nil:
		return nil // stopped by a signal
	}
	return runtimeErr(fmt.Errorf("lost the Lease %s/%s", ns, e.name))
}
