package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/extender"
	"github.com/kube-rebalancer/rebalancer/report"
)

func newExtenderCommand(s *settings) *cobra.Command {
	var (
		kube       = kubeFlags{qps: 20, burst: 30}
		listen     string
		certFile   string
		keyFile    string
		state      string
		handoffTTL time.Duration
	)
	c := &cobra.Command{
		Use:   "extender",
		Short: "Serve a kube-scheduler extender that places replacements where the plan said",
		Long: `Serve the filter and prioritize verbs of a kube-scheduler extender. For a
pending pod that replaces one 'rebalancer run' evicted (the same workload,
within --handoff-ttl of the eviction), filter keeps only the node the plan
chose for it when kube-scheduler found that node feasible, and prioritize
scores it highest; every other pod passes unchanged with equal scores, so the
extender never changes how kube-scheduler places pods rebalancer did not move.

The planned nodes come from the state ConfigMap that 'rebalancer run' writes
before its first eviction, kept in memory from a watch: requests are answered
without an API call. An eviction steers only once its pod has left (gone,
or terminating, under the UID the run recorded), which a watch of the pods
tells: a run killed between recording an eviction and making it steers no
new pod. --handoff-ttl bounds every decision, whatever the eviction's date:
one dated in the future counts from when the extender first read it. Configure kube-scheduler with this extender (urlPrefix
pointing at --listen, filterVerb: filter, prioritizeVerb: prioritize,
nodeCacheCapable: true, ignorable: true, so that kube-scheduler schedules on
its own while the extender is down); docs/extender.md has the stanza.

Also serves /healthz, /readyz (ready once the state has been read) and
/metrics. With --tls-cert-file and --tls-private-key-file it serves HTTPS.
Without a permission 'rebalancer rbac extender' lists, it exits 1 at the
first refused list or watch, naming it.`,
		Example: `  rebalancer extender --listen :8443 --tls-cert-file tls.crt --tls-private-key-file tls.key`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkStateFlag(state); err != nil {
				return err
			}
			if (certFile == "") != (keyFile == "") {
				return fmt.Errorf("--tls-cert-file and --tls-private-key-file go together")
			}
			if handoffTTL <= 0 {
				return fmt.Errorf("--handoff-ttl must be positive")
			}
			client, _, err := kube.client(s.userAgent("rebalancer-extender"))
			if err != nil {
				return err
			}
			store, err := historyStore(state, client)
			if err != nil {
				return err
			}
			if store == nil {
				return fmt.Errorf("--state-configmap is required outside a pod: the extender steers what the runs that write that ConfigMap planned")
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			intents := extender.NewIntents(handoffTTL)
			src := &extender.Source{Client: client, Namespace: store.Namespace, Name: store.Name, Intents: intents}
			metrics := extender.NewMetrics()
			metrics.Registry.MustRegister(report.NewBuildInfo(s.version, s.commit))
			srv := &extender.Server{Intents: intents, Workload: src.Workload, Departed: src.Departed, CatchUp: src.CatchUp, HoldOver: src.HoldOver,
				Metrics: metrics}
			return runtimeErr(serveExtender(ctx, src, srv, listen, certFile, keyFile))
		},
	}
	f := c.Flags()
	f.StringVar(&kube.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration)")
	f.StringVar(&kube.context, "context", "", "kubeconfig context to use (default: the current context)")
	f.StringVar(&listen, "listen", ":8443", "address to serve the extender, /healthz, /readyz and /metrics on")
	f.StringVar(&certFile, "tls-cert-file", "", "serve HTTPS with this certificate (PEM)")
	f.StringVar(&keyFile, "tls-private-key-file", "", "the private key of --tls-cert-file (PEM)")
	f.StringVar(&state, "state-configmap", "", "NAMESPACE/NAME of the ConfigMap where rebalancer run records its evictions (default: $POD_NAMESPACE/rebalancer-state inside a pod)")
	f.DurationVar(&handoffTTL, "handoff-ttl", 10*time.Minute, "how long after an eviction its replacement is steered to the planned node (from when the extender first read the eviction, if that is earlier than its date), and after a run recorded a node held for a pending pod that the node is held")
	return c
}

// serveExtender starts the watches, serves until ctx ends, then shuts the
// server down.
func serveExtender(ctx context.Context, src *extender.Source, srv *extender.Server, addr, certFile, keyFile string) error {
	hs := &http.Server{Addr: addr, Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second}
	errs := make(chan error, 1)
	go func() {
		var err error
		if certFile != "" {
			err = hs.ListenAndServeTLS(certFile, keyFile)
		} else {
			err = hs.ListenAndServe()
		}
		if !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
		close(errs)
	}()
	// Until the state is read every pod passes through, and /readyz says
	// so: kube-scheduler is never kept waiting.
	if err := src.Start(ctx); err != nil {
		_ = hs.Close()
		if apierrors.IsForbidden(err) {
			err = fmt.Errorf("%w; `rebalancer rbac extender` lists the permissions the extender needs", err)
		}
		return err
	}
	klog.InfoS("Extender ready", "addr", addr, "state", src.Namespace+"/"+src.Name, "tls", certFile != "")
	select {
	case err := <-errs:
		return fmt.Errorf("serving on %s: %w", addr, err)
	case err := <-src.Denied():
		// A watch that may not list or watch keeps nothing current.
		_ = hs.Close()
		return fmt.Errorf("%w; `rebalancer rbac extender` lists the permissions the extender needs", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
