package app

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
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

// leaseNamespace is the namespace of the election's Lease.
func (e *electionFlags) leaseNamespace() string {
	switch {
	case e.namespace != "":
		return e.namespace
	case os.Getenv("POD_NAMESPACE") != "":
		return os.Getenv("POD_NAMESPACE")
	}
	return metav1.NamespaceSystem
}

// run calls work while this process holds the Lease, and returns when ctx
// ends or the Lease is lost.
func (e *electionFlags) run(ctx context.Context, client kubernetes.Interface, work func(context.Context) error) error {
	ns := e.leaseNamespace()
	// Without them the election retries for ever, and never leads.
	lease := permissions{Namespace: []rbacv1.PolicyRule{
		rule("coordination.k8s.io", []string{"leases"}, "create"),
		named(rule("coordination.k8s.io", []string{"leases"}, "get", "update"), e.name),
	}}
	if err := requirePermissions(ctx, client, "", lease, scope{namespaces: map[string]string{"leases": ns}}); err != nil {
		return runtimeErr(fmt.Errorf("leader election: %w", err))
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
	var l leadership
	leaderelection.RunOrDie(lctx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		ReleaseOnCancel: true,
		Name:            e.name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				// The work's context ends with leading, and says why: a
				// signal, or this replica no longer leads.
				wctx, cancelWork := context.WithCancelCause(ctx)
				defer cancelWork(nil)
				stop := context.AfterFunc(leading, func() {
					if ctx.Err() == nil {
						cancelWork(fmt.Errorf("lost the Lease %s/%s: another replica may lead now", ns, e.name))
					}
				})
				defer stop()
				l.lead(wctx, work)
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
	done, workErr := l.end()
	switch {
	case done || workErr != nil:
		return workErr
	case ctx.Err() != nil:
		return nil // stopped by a signal
	}
	return runtimeErr(fmt.Errorf("lost the Lease %s/%s: another replica may lead now", ns, e.name))
}

// leadership is the work done while leading. RunOrDie starts it in a
// goroutine of its own and returns when the Lease is lost or ctx ends,
// without waiting for it: the work, told to stop by its context, may still
// be evicting, and its result is written after RunOrDie returned.
type leadership struct {
	mu      sync.Mutex
	over    bool // RunOrDie returned: too late to start
	started bool
	ended   chan struct{}
	// Written before ended is closed, read after.
	err  error
	done bool // the work ended on its own, not because its context did
}

// lead runs work unless the election is already over.
func (l *leadership) lead(ctx context.Context, work func(context.Context) error) {
	l.mu.Lock()
	if l.over {
		l.mu.Unlock()
		return
	}
	l.started = true
	l.ended = make(chan struct{})
	l.mu.Unlock()
	defer close(l.ended)
	l.err = work(ctx)
	l.done = ctx.Err() == nil
}

// end keeps work from starting any more, waits for the work that started
// to return, and returns how it ended.
func (l *leadership) end() (done bool, err error) {
	l.mu.Lock()
	l.over = true
	started, ended := l.started, l.ended
	l.mu.Unlock()
	if !started {
		return false, nil
	}
	<-ended
	return l.done, l.err
}
