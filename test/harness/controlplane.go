package harness

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Environment variables read by the harness (see README.md).
const (
	// EnvKeepLogs, when "1" or "true", keeps the control plane's directory
	// (logs, kubeconfigs, etcd data) even when the tests pass.
	EnvKeepLogs = "REBALANCER_KEEP_LOGS"
	// EnvVerbosity sets the components' klog -v level (default 0).
	EnvVerbosity = "REBALANCER_COMPONENT_V"
)

// Fixed addressing of the fake cluster. Pod IPs come from kwok's CIDR, which
// is a /16 because kwok's default /24 runs out after 254 pods.
const (
	ServiceCIDR = "10.96.0.0/16"
	PodCIDR     = "10.0.0.1/16"

	// KwokNodeAnnotation marks the nodes kwok manages.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"

	serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"
)

// Controllers run by kube-controller-manager. Beyond the workload controllers
// the product depends on, podgc removes pods of deleted nodes (nothing else
// would, without kubelets), clusterrole-aggregation fills the admin/edit/view
// roles tests may bind, and root-ca-certificate-publisher creates the
// kube-root-ca.crt ConfigMap every pod's token volume refers to.
// persistentvolume-binder-controller binds claims to the volumes made for
// them, which a pod with volumes waits for.
// taint-eviction-controller is deliberately absent: tests taint nodes
// NoExecute and must decide themselves what happens to the pods.
var controllers = []string{
	"replicaset-controller",
	"replicationcontroller-controller",
	"deployment-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"disruption-controller",
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"node-lifecycle-controller",
	"pod-garbage-collector-controller",
	"clusterrole-aggregation-controller",
	"root-ca-certificate-publisher-controller",
	"persistentvolume-binder-controller",
}

// Options configures Start. The zero value is a control plane without a
// scheduler.
type Options struct {
	// Scheduler starts kube-scheduler. Without it pods stay Pending until a
	// test binds them (BindPod, BindPendingPods); DaemonSet pods too, since
	// the DaemonSet controller leaves their placement to the scheduler.
	Scheduler bool

	// SchedulerConfig is appended to kube-scheduler's
	// KubeSchedulerConfiguration: more top-level fields, such as
	// extenders or profiles.
	SchedulerConfig string

	// KeepLogs keeps the control plane's directory after a successful run.
	// REBALANCER_KEEP_LOGS=1 does the same without code changes.
	KeepLogs bool

	// Verbosity is the components' klog level; REBALANCER_COMPONENT_V
	// overrides it.
	Verbosity int

	// ResourceMetrics makes kwok serve each node's resource metrics, as a
	// kubelet's /metrics/resource does, with the usage the pods' annotations
	// give (UsageCPUAnnotation, UsageMemoryAnnotation): metrics-server
	// (StartMetricsServer) scrapes them. See resourcemetrics.go.
	ResourceMetrics bool

	// StartTimeout bounds the wait for all components to become ready,
	// after the binaries exist. Default 3 minutes.
	StartTimeout time.Duration

	// Extra flags appended to each component's command line; a repeated
	// flag overrides the harness's value.
	ExtraAPIServerArgs         []string
	ExtraControllerManagerArgs []string
	ExtraSchedulerArgs         []string
	ExtraKwokArgs              []string

	// Logf receives progress and failure reports. Default: t.Logf when
	// Start has a testing.TB, otherwise stderr.
	Logf func(format string, args ...any)
}

// ControlPlane is a running set of components. Its exported fields are set
// by Start and must not be changed.
type ControlPlane struct {
	// Kubeconfig is the path of a kubeconfig with the cluster-admin token.
	Kubeconfig string
	// RestConfig authenticates as cluster admin (group system:masters), with
	// a high client-side rate limit so that tests can create objects fast.
	RestConfig *rest.Config
	// Client is a clientset for RestConfig.
	Client kubernetes.Interface
	// APIServerURL is https://127.0.0.1:<port>.
	APIServerURL string
	// CACert is the PEM of the CA that signed the API server's certificate.
	CACert []byte
	// Dir holds logs (Dir/logs), kubeconfigs, certificates and etcd data.
	Dir string
	// BinDir holds the component binaries.
	BinDir string

	opts  Options
	logf  func(format string, args ...any)
	pki   *pki
	ports componentPorts
	env   []string

	mu        sync.Mutex
	procs     map[string]*process
	apiArgs   []string
	failed    bool
	stopped   bool
	startedAt time.Time
}

type componentPorts struct {
	etcdClient, etcdPeer, apiServer, controllerManager, scheduler, kwok int
}

const (
	nameEtcd       = "etcd"
	nameAPIServer  = "kube-apiserver"
	nameController = "kube-controller-manager"
	nameScheduler  = "kube-scheduler"
	nameKwok       = "kwok"
	// nameMetricsServer runs only when a test starts it (StartMetricsServer).
	nameMetricsServer = "metrics-server"
)

// stopOrder is the reverse of start order: clients first, etcd last, so that
// no component logs a storm of errors about a dependency that went away.
var stopOrder = []string{nameMetricsServer, nameKwok, nameScheduler, nameController, nameAPIServer, nameEtcd}

// Start builds the binaries if needed (EnsureBinaries), then starts etcd,
// kube-apiserver, kube-controller-manager, kwok and, if opts.Scheduler,
// kube-scheduler on free loopback ports, and waits until all are ready.
//
// If t is not nil, the control plane is stopped by t.Cleanup and its logs are
// kept and summarized when t failed. With a nil t (TestMain), the caller must
// call Shutdown or Stop.
func Start(ctx context.Context, t testing.TB, opts Options) (*ControlPlane, error) {
	logf := opts.Logf
	if logf == nil {
		if t != nil {
			logf = t.Logf
		} else {
			logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "harness: "+format+"\n", args...) }
		}
	}
	if v := os.Getenv(EnvVerbosity); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", EnvVerbosity, v, err)
		}
		opts.Verbosity = n
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 3 * time.Minute
	}
	if t != nil {
		t.Helper()
	}

	binDir, err := EnsureBinaries(ctx)
	if err != nil {
		return nil, err
	}

	// Free ports are found by binding to port 0 and closing, so another
	// process can take one before the component binds it. That is rare, and
	// shows as "address already in use"; a fresh set of ports fixes it.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		cp, err := startOnce(ctx, binDir, opts, logf)
		if err == nil {
			if t != nil {
				t.Cleanup(func() { cp.Shutdown(t.Failed()) })
			}
			return cp, nil
		}
		if attempt < attempts && errors.Is(err, errPortTaken) && ctx.Err() == nil {
			logf("port collision, retrying start: %v", err)
			continue
		}
		return nil, err
	}
}

var errPortTaken = errors.New("a port was taken by another process")

func startOnce(ctx context.Context, binDir string, opts Options, logf func(string, ...any)) (_ *ControlPlane, err error) {
	dir, err := os.MkdirTemp("", "rebalancer-cp-")
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{
		Dir:       dir,
		BinDir:    binDir,
		opts:      opts,
		logf:      logf,
		procs:     map[string]*process{},
		startedAt: time.Now(),
	}
	defer func() {
		if err != nil {
			cp.Shutdown(true)
			if portTakenInLogs(cp) {
				err = fmt.Errorf("%w: %w", errPortTaken, err)
			}
		}
	}()
	for _, sub := range []string{"logs", "pki", "etcd", "home", "certs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	if cp.pki, err = generatePKI(filepath.Join(dir, "pki")); err != nil {
		return nil, fmt.Errorf("generate certificates: %w", err)
	}
	cp.CACert = cp.pki.caCertPEM
	if err := cp.allocatePorts(); err != nil {
		return nil, err
	}
	// Components must not pick up the developer's kubeconfig or ~/.kwok.
	cp.env = append(filterEnv(os.Environ(), "KUBECONFIG", "HOME"), "HOME="+filepath.Join(dir, "home"))

	cp.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", cp.ports.apiServer)
	cp.Kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(cp.Kubeconfig, cp.APIServerURL, cp.CACert, userAdmin, cp.pki.tokens[userAdmin]); err != nil {
		return nil, err
	}
	cp.RestConfig = tokenRestConfig(cp.APIServerURL, cp.CACert, cp.pki.tokens[userAdmin])
	cp.RestConfig.QPS = 1000
	cp.RestConfig.Burst = 2000
	cp.RestConfig.UserAgent = "rebalancer-harness"
	if cp.Client, err = kubernetes.NewForConfig(cp.RestConfig); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	if err := cp.startEtcd(ctx); err != nil {
		return nil, err
	}
	cp.apiArgs = cp.apiServerArgs()
	if err := cp.StartAPIServer(ctx); err != nil {
		return nil, err
	}
	if err := cp.startControllerManager(ctx); err != nil {
		return nil, err
	}
	if opts.Scheduler {
		if err := cp.startScheduler(ctx); err != nil {
			return nil, err
		}
	}
	if err := cp.startKwok(ctx); err != nil {
		return nil, err
	}
	if err := cp.probeNodeLifecycle(ctx); err != nil {
		return nil, err
	}
	// The ServiceAccount admission plugin rejects pods in a namespace until
	// its "default" ServiceAccount exists, so this is the sign that the
	// controllers work and tests can create pods.
	if err := cp.waitForDefaultServiceAccount(ctx, metav1.NamespaceDefault); err != nil {
		return nil, err
	}
	logf("control plane ready in %s: %s (logs in %s)", time.Since(cp.startedAt).Round(time.Millisecond), cp.APIServerURL, cp.LogDir())
	return cp, nil
}

// LogDir is the directory with one log file per component.
func (cp *ControlPlane) LogDir() string { return filepath.Join(cp.Dir, "logs") }

func (cp *ControlPlane) allocatePorts() error {
	ports := make([]int, 6)
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	// All listeners stay open until every port is chosen, so the six are
	// distinct.
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("find a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	cp.ports = componentPorts{ports[0], ports[1], ports[2], ports[3], ports[4], ports[5]}
	return nil
}

func (cp *ControlPlane) v() string { return fmt.Sprintf("--v=%d", cp.opts.Verbosity) }

func (cp *ControlPlane) startProcess(name, bin string, args []string) (*process, error) {
	if !filepath.IsAbs(bin) {
		bin = filepath.Join(cp.BinDir, bin)
	}
	p, err := startProcess(name, bin, args, cp.env, filepath.Join(cp.LogDir(), name+".log"))
	if err != nil {
		return nil, err
	}
	cp.mu.Lock()
	if cp.stopped {
		// Shutdown ran meanwhile and would never stop this one.
		cp.mu.Unlock()
		p.stop(0, nil)
		return nil, errors.New("control plane already shut down")
	}
	cp.procs[name] = p
	cp.mu.Unlock()
	return p, nil
}

func (cp *ControlPlane) startEtcd(ctx context.Context) error {
	peer := fmt.Sprintf("http://127.0.0.1:%d", cp.ports.etcdPeer)
	client := fmt.Sprintf("http://127.0.0.1:%d", cp.ports.etcdClient)
	args := []string{
		"--name=harness",
		"--data-dir=" + filepath.Join(cp.Dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=harness=" + peer,
		// The data is thrown away after the test; fsync on a shared CI disk
		// would dominate every write the API server makes.
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	p, err := cp.startProcess(nameEtcd, binEtcd, args)
	if err != nil {
		return err
	}
	return cp.waitComponent(ctx, p, "etcd /health", func(ctx context.Context) (bool, error) {
		body, code, err := httpGet(ctx, insecureHTTP, client+"/health")
		return err == nil && code == http.StatusOK && strings.Contains(body, `"health":"true"`), nil
	})
}

func (cp *ControlPlane) apiServerArgs() []string {
	args := []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", cp.ports.etcdClient),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", cp.ports.apiServer),
		"--tls-cert-file=" + cp.pki.servingCert,
		"--tls-private-key-file=" + cp.pki.servingKey,
		"--client-ca-file=" + cp.pki.caCert,
		// Only written to when no serving certificate is given; set so the
		// default (/var/run/kubernetes) is never touched.
		"--cert-dir=" + filepath.Join(cp.Dir, "certs"),
		"--token-auth-file=" + cp.pki.tokenAuthFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=" + serviceAccountIssuer,
		"--service-account-key-file=" + cp.pki.saPublicKey,
		"--service-account-signing-key-file=" + cp.pki.saPrivateKey,
		"--service-cluster-ip-range=" + ServiceCIDR,
		// The endpoint reconciler would publish 127.0.0.1 as the address of
		// the "kubernetes" Service, which Endpoints validation rejects, and
		// retry forever; nothing in the tests dials that Service.
		"--endpoint-reconciler-type=none",
		// The front proxy, so that aggregated API servers
		// (metrics-server) can be registered: kube-apiserver forwards
		// their requests with this client certificate and the caller's
		// identity in these headers.
		"--requestheader-client-ca-file=" + cp.pki.frontProxyCA,
		"--requestheader-allowed-names=" + frontProxyClient,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + cp.pki.proxyClientCert,
		"--proxy-client-key-file=" + cp.pki.proxyClientKey,
		// Room for a test creating thousands of pods while kwok and the
		// controllers update them.
		"--max-requests-inflight=1000",
		"--max-mutating-requests-inflight=500",
		"--profiling=false",
		cp.v(),
	}
	return append(args, cp.opts.ExtraAPIServerArgs...)
}

// StartAPIServer starts kube-apiserver, with the same port and flags as
// before, if it is not running, and waits until /readyz passes. Start calls
// it; tests call it after StopAPIServer or KillAPIServer.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	cp.mu.Lock()
	if cp.stopped {
		cp.mu.Unlock()
		return errors.New("control plane already shut down")
	}
	if p := cp.procs[nameAPIServer]; p != nil {
		if exited, _ := p.exitErr(); !exited {
			cp.mu.Unlock()
			return nil
		}
	}
	cp.mu.Unlock()
	p, err := cp.startProcess(nameAPIServer, binAPIServer, cp.apiArgs)
	if err != nil {
		return err
	}
	return cp.waitComponent(ctx, p, "kube-apiserver /readyz", func(ctx context.Context) (bool, error) {
		body, err := cp.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && strings.TrimSpace(string(body)) == "ok", nil
	})
}

// StopAPIServer shuts kube-apiserver down as on SIGTERM: it stops accepting
// requests and finishes those in flight, then exits (SIGKILL if that takes
// over 30s). It returns once the process is gone. The other components keep
// running, fail their requests meanwhile, and reconnect after
// StartAPIServer.
func (cp *ControlPlane) StopAPIServer() error {
	return cp.stopComponent(nameAPIServer, 30*time.Second)
}

// KillAPIServer kills kube-apiserver with SIGKILL, as in a crash: in-flight
// requests fail without a response.
func (cp *ControlPlane) KillAPIServer() error {
	return cp.stopComponent(nameAPIServer, 0)
}

func (cp *ControlPlane) stopComponent(name string, grace time.Duration) error {
	cp.mu.Lock()
	p := cp.procs[name]
	cp.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s was never started", name)
	}
	p.stop(grace, cp.drainedFunc(name))
	return nil
}

// drainedFunc is the stop hook for a component (see process.stop): the API
// server has finished its graceful work once its port refuses connections.
func (cp *ControlPlane) drainedFunc(name string) func() bool {
	if name != nameAPIServer {
		return nil
	}
	addr := fmt.Sprintf("127.0.0.1:%d", cp.ports.apiServer)
	return func() bool {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return true
		}
		conn.Close()
		return false
	}
}

func (cp *ControlPlane) componentKubeconfig(user string) (string, error) {
	path := filepath.Join(cp.Dir, user+".kubeconfig")
	path = strings.ReplaceAll(path, "system:", "")
	return path, writeKubeconfig(path, cp.APIServerURL, cp.CACert, user, cp.pki.tokens[user])
}

func (cp *ControlPlane) startControllerManager(ctx context.Context) error {
	kubeconfig, err := cp.componentKubeconfig(userController)
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		// Delegated authentication for its own /healthz endpoint; without
		// these it logs warnings about every request. Nothing reaches it
		// through the front proxy: skipping the lookup of its settings
		// saves a request.
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--authentication-skip-lookup",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", cp.ports.controllerManager),
		"--cert-dir=" + filepath.Join(cp.Dir, "certs"),
		"--leader-elect=false",
		"--controllers=" + strings.Join(controllers, ","),
		"--service-account-private-key-file=" + cp.pki.saPrivateKey,
		"--root-ca-file=" + cp.pki.caCert,
		// kwok nodes start with the not-ready taint, which only this
		// controller removes: check nodes every second instead of every 5s.
		"--node-monitor-period=1s",
		// kwok renews node leases every 10s (a quarter of the 40s lease);
		// 40s tolerates a few missed renewals on a loaded CI machine before
		// nodes would turn NotReady in the middle of a test.
		"--node-monitor-grace-period=40s",
		"--node-startup-grace-period=60s",
		// The default client limits (20 QPS) would take minutes to create
		// the pods of a few thousand replicas.
		"--kube-api-qps=500",
		"--kube-api-burst=1000",
		"--concurrent-replicaset-syncs=10",
		"--concurrent-deployment-syncs=10",
		"--concurrent-statefulset-syncs=10",
		"--profiling=false",
		cp.v(),
	}
	args = append(args, cp.opts.ExtraControllerManagerArgs...)
	p, err := cp.startProcess(nameController, binController, args)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/healthz", cp.ports.controllerManager)
	return cp.waitComponent(ctx, p, "kube-controller-manager /healthz", healthzOK(url))
}

func (cp *ControlPlane) startScheduler(ctx context.Context) error {
	kubeconfig, err := cp.componentKubeconfig(userScheduler)
	if err != nil {
		return err
	}
	// Client QPS and leader election are only settable in the configuration
	// file; the matching flags are deprecated and ignored with --config.
	config := filepath.Join(cp.Dir, "kube-scheduler.yaml")
	err = os.WriteFile(config, fmt.Appendf(nil, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 500
  burst: 1000
leaderElection:
  leaderElect: false
%s`, kubeconfig, cp.opts.SchedulerConfig), 0o600)
	if err != nil {
		return err
	}
	args := []string{
		"--config=" + config,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--authentication-skip-lookup",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", cp.ports.scheduler),
		"--cert-dir=" + filepath.Join(cp.Dir, "certs"),
		cp.v(),
	}
	args = append(args, cp.opts.ExtraSchedulerArgs...)
	p, err := cp.startProcess(nameScheduler, binScheduler, args)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/healthz", cp.ports.scheduler)
	return cp.waitComponent(ctx, p, "kube-scheduler /healthz", healthzOK(url))
}

func (cp *ControlPlane) startKwok(ctx context.Context) error {
	kubeconfig, err := cp.componentKubeconfig(userKwok)
	if err != nil {
		return err
	}
	// Parallelism is only settable in the configuration file. The defaults
	// (4 workers) fall behind when thousands of pods are bound at once.
	config := filepath.Join(cp.Dir, "kwok.yaml")
	err = os.WriteFile(config, []byte(`apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  podPlayStageParallelism: 32
  nodePlayStageParallelism: 16
  nodeLeaseParallelism: 16
  podsOnNodeSyncParallelism: 8
`), 0o600)
	if err != nil {
		return err
	}
	args := []string{
		"--config=" + config,
		"--kubeconfig=" + kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=fake",
		// With a lease duration of 0, kwok v0.7 neither renews leases nor
		// posts node status more than every ~10 minutes, and the node
		// lifecycle controller marks its nodes NotReady after the grace
		// period. With leases it renews every 10s and heartbeats status.
		"--node-lease-duration-seconds=40",
		"--cidr=" + PodCIDR,
		"--server-address=" + fmt.Sprintf("127.0.0.1:%d", cp.ports.kwok),
	}
	if cp.opts.ResourceMetrics {
		more, err := cp.kwokResourceMetrics()
		if err != nil {
			return err
		}
		args = append(args, more...)
	}
	if cp.opts.Verbosity >= 4 {
		args = append(args, "--v=DEBUG")
	}
	args = append(args, cp.opts.ExtraKwokArgs...)
	p, err := cp.startProcess(nameKwok, binKwok, args)
	if err != nil {
		return err
	}
	// kwok serves /healthz only after its controllers have started watching
	// nodes and pods, so this is the readiness of the fake kubelet.
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", cp.ports.kwok)
	return cp.waitComponent(ctx, p, "kwok /healthz", healthzOK(url))
}

// probeNodeLifecycle creates a throw-away kwok node and waits until kwok has
// made it Ready and the node lifecycle controller has lifted its not-ready
// taint, then deletes it. kwok's /healthz answers as soon as its HTTP server
// runs, so this is what shows that the fake kubelet and the controller
// manager actually work together before any test depends on it.
func (cp *ControlPlane) probeNodeLifecycle(ctx context.Context) error {
	start := time.Now()
	const probe = "harness-probe"
	if _, err := cp.CreateNodes(ctx, 1, NodeSpec{NamePrefix: probe}); err != nil {
		return fmt.Errorf("probe node: %w", err)
	}
	name := probe + "-0"
	if err := cp.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete probe node: %w", err)
	}
	err := WaitFor(ctx, 0, "probe node "+name+" deleted", func(ctx context.Context) (bool, error) {
		_, err := cp.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return err
	}
	cp.logf("kwok and node lifecycle controller work (probe node Ready and untainted after %s)", time.Since(start).Round(time.Millisecond))
	return nil
}

func (cp *ControlPlane) waitForDefaultServiceAccount(ctx context.Context, namespace string) error {
	return WaitFor(ctx, 0, fmt.Sprintf("ServiceAccount %s/default", namespace), func(ctx context.Context) (bool, error) {
		if err := cp.checkProcesses(); err != nil {
			return false, err
		}
		_, err := cp.Client.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, nil
	})
}

// waitComponent polls ready until it passes, failing early with the
// component's last log lines if it exits.
func (cp *ControlPlane) waitComponent(ctx context.Context, p *process, what string, ready func(context.Context) (bool, error)) error {
	start := time.Now()
	err := WaitFor(ctx, 0, what, func(ctx context.Context) (bool, error) {
		if exited, exitErr := p.exitErr(); exited {
			return false, fmt.Errorf("%s exited (%v); last lines of %s:\n%s", p.name, exitErr, p.logPath, tailFile(p.logPath, 30))
		}
		return ready(ctx)
	})
	if err != nil {
		return err
	}
	cp.logf("%s ready after %s", p.name, time.Since(start).Round(time.Millisecond))
	return nil
}

// checkProcesses reports the first component that is no longer running
// (other than the API server, which tests may stop on purpose).
func (cp *ControlPlane) checkProcesses() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for _, name := range stopOrder {
		p := cp.procs[name]
		if p == nil || name == nameAPIServer {
			continue
		}
		if exited, err := p.exitErr(); exited {
			return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", name, err, p.logPath, tailFile(p.logPath, 30))
		}
	}
	return nil
}

// Healthy reports an error if a component has exited.
func (cp *ControlPlane) Healthy() error {
	if err := cp.checkProcesses(); err != nil {
		return err
	}
	cp.mu.Lock()
	p := cp.procs[nameAPIServer]
	cp.mu.Unlock()
	if p == nil {
		return errors.New("kube-apiserver was never started")
	}
	if exited, err := p.exitErr(); exited {
		return fmt.Errorf("kube-apiserver exited: %v", err)
	}
	return nil
}

// Stop stops every component; the directory is kept only if KeepLogs or
// REBALANCER_KEEP_LOGS ask for it. Safe to call more than once.
func (cp *ControlPlane) Stop() { cp.Shutdown(false) }

// Shutdown stops every component by PID (SIGTERM, then SIGKILL after a
// grace period) and reaps it. If failed, or logs are to be kept, the
// directory is kept and the last lines of each component's log are
// reported; otherwise it is deleted. Safe to call more than once; a later
// call with failed=true still reports.
func (cp *ControlPlane) Shutdown(failed bool) {
	cp.mu.Lock()
	alreadyStopped := cp.stopped
	cp.stopped = true
	if failed {
		cp.failed = true
	}
	procs := make([]*process, 0, len(cp.procs))
	for _, name := range stopOrder {
		if p := cp.procs[name]; p != nil {
			procs = append(procs, p)
		}
	}
	cp.mu.Unlock()

	if !alreadyStopped {
		for _, p := range procs {
			p.stop(10*time.Second, cp.drainedFunc(p.name))
		}
	}
	keep := cp.failed || cp.opts.KeepLogs || envTrue(EnvKeepLogs)
	switch {
	case failed:
		var b strings.Builder
		fmt.Fprintf(&b, "control plane logs kept in %s", cp.LogDir())
		for _, p := range procs {
			fmt.Fprintf(&b, "\n--- last lines of %s ---\n%s", p.logPath, tailFile(p.logPath, 20))
		}
		cp.logf("%s", b.String())
	case keep && !alreadyStopped:
		cp.logf("control plane logs kept in %s", cp.LogDir())
	case !keep:
		if err := os.RemoveAll(cp.Dir); err != nil {
			cp.logf("remove %s: %v", cp.Dir, err)
		}
	}
}

// ReportOnFailure makes a test that shares a control plane started without
// it (in TestMain) print where the component logs are if that test fails.
func (cp *ControlPlane) ReportOnFailure(t testing.TB) {
	t.Cleanup(func() {
		if t.Failed() {
			cp.mu.Lock()
			cp.failed = true
			cp.mu.Unlock()
			t.Logf("control plane logs: %s (kept because a test failed)", cp.LogDir())
		}
	})
}

var insecureHTTP = &http.Client{
	Timeout: 5 * time.Second,
	Transport: &http.Transport{
		// The controller-manager and scheduler serve /healthz with
		// self-signed certificates generated at start; only their liveness
		// on loopback is checked here.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health check
	},
}

func httpGet(ctx context.Context, c *http.Client, url string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return string(body), resp.StatusCode, err
}

func healthzOK(url string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		body, code, err := httpGet(ctx, insecureHTTP, url)
		return err == nil && code == http.StatusOK && strings.TrimSpace(body) == "ok", nil
	}
}

func portTakenInLogs(cp *ControlPlane) bool {
	entries, err := os.ReadDir(cp.LogDir())
	if err != nil {
		return false
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cp.LogDir(), e.Name()))
		if err == nil && strings.Contains(string(data), "address already in use") {
			return true
		}
	}
	return false
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	return lastLines(string(data), n)
}

func filterEnv(env []string, drop ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, d := range drop {
			if strings.HasPrefix(kv, d+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

func envTrue(name string) bool {
	v, _ := strconv.ParseBool(os.Getenv(name))
	return v
}
