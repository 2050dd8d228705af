package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// metricsAPIService is the APIService that routes metrics.k8s.io to
// metrics-server, under the name its manifests give it.
const metricsAPIService = "v1beta1.metrics.k8s.io"

// StartMetricsServer builds metrics-server if needed (EnsureMetricsServer),
// runs it as a process of the control plane and registers it as the
// aggregated metrics.k8s.io API, as its manifests do in a cluster:
// kube-apiserver forwards /apis/metrics.k8s.io to it through the front
// proxy, and it checks the caller's access with a SubjectAccessReview. It
// scrapes the nodes nodeSelector selects (all when empty) every 10 seconds,
// at kwok's resource metrics (Options.ResourceMetrics must be set). It
// returns once kube-apiserver finds the API available; the first samples
// need two scrapes, since cpu usage is a rate.
func (cp *ControlPlane) StartMetricsServer(ctx context.Context, nodeSelector string) error {
	if !cp.opts.ResourceMetrics {
		return fmt.Errorf("metrics-server needs kwok's resource metrics: start the control plane with Options.ResourceMetrics")
	}
	bin, err := EnsureMetricsServer(ctx)
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		// A self-signed serving certificate: the APIService below skips
		// its verification, as metrics-server's own manifests do.
		"--cert-dir=" + filepath.Join(cp.Dir, "certs", "metrics-server"),
		"--kubeconfig=" + cp.Kubeconfig,
		"--authentication-kubeconfig=" + cp.Kubeconfig,
		"--authorization-kubeconfig=" + cp.Kubeconfig,
		// kwok gives its nodes 127.0.0.1 and its own port as their kubelet
		// endpoint, and serves plain HTTP.
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-use-node-status-port",
		"--deprecated-kubelet-completely-insecure",
		"--metric-resolution=10s",
		"--kubelet-request-timeout=5s",
		cp.v(),
	}
	if nodeSelector != "" {
		args = append(args, "--node-selector="+nodeSelector)
	}
	p, err := cp.startProcess(nameMetricsServer, bin, args)
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "metrics-server"},
		// kube-apiserver resolves an ExternalName Service to its name and
		// the APIService's port: here, the local process.
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "localhost",
			Ports:        []corev1.ServicePort{{Name: "https", Port: int32(port), TargetPort: intstr.FromInt32(int32(port))}},
		},
	}
	if _, err := cp.Client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	apiService := map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": metricsAPIService},
		"spec": map[string]any{
			"group":                 "metrics.k8s.io",
			"version":               "v1beta1",
			"groupPriorityMinimum":  100,
			"versionPriority":       100,
			"insecureSkipTLSVerify": true,
			"service":               map[string]any{"namespace": svc.Namespace, "name": svc.Name, "port": port},
		},
	}
	body, err := json.Marshal(apiService)
	if err != nil {
		return err
	}
	rc := cp.Client.Discovery().RESTClient()
	if err := rc.Post().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices").Body(body).
		SetHeader("Content-Type", "application/json").Do(ctx).Error(); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create APIService %s: %w", metricsAPIService, err)
	}
	return cp.waitComponent(ctx, p, "metrics.k8s.io served through kube-apiserver", func(ctx context.Context) (bool, error) {
		return rc.Get().AbsPath("/apis/metrics.k8s.io/v1beta1").Do(ctx).Error() == nil, nil
	})
}

// freePort returns a port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
