package rebalance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/internal/inputfile"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// serviceAccountToken is where a pod finds its service account's token,
// which Prometheus behind kube-rbac-proxy (or the like) accepts.
const serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// readMetrics adds to objs the usage the policy's strategies read, only
// when they read any. A source that cannot be read leaves objs without its
// samples and says why in MetricsError: the strategies then do nothing
// rather than plan on zeros.
func readMetrics(ctx context.Context, client kubernetes.Interface, pol *policy.Policy, objs *cluster.Objects) {
	kubernetesMetrics, queries := pol.MetricsNeeded()
	if !kubernetesMetrics && len(queries) == 0 {
		return
	}
	objs.MetricsReadAt = metav1.NewTime(time.Now())
	var errs []string
	if kubernetesMetrics {
		nodes, pods, err := kube.ReadUsage(ctx, client)
		if err != nil {
			errs = append(errs, err.Error())
		}
		objs.NodeMetrics, objs.PodMetrics = nodes, pods
	}
	for _, q := range queries {
		scores, err := QueryPrometheus(ctx, client, pol.Prometheus(), q, time.Now())
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		objs.NodeScores = append(objs.NodeScores, scores...)
	}
	if len(errs) > 0 {
		objs.MetricsError = strings.Join(errs, "; ")
		klog.ErrorS(nil, "Could not read the metrics the policy balances on: the strategies that need them do nothing this cycle", "err", objs.MetricsError)
		return
	}
	klog.InfoS("Read usage", "nodeSamples", len(objs.NodeMetrics), "podSamples", len(objs.PodMetrics), "prometheusSamples", len(objs.NodeScores))
}

// QueryPrometheus runs an instant query that rates each node between 0 and
// 1 through Prometheus' HTTP API.
func QueryPrometheus(ctx context.Context, client kubernetes.Interface, server *policy.PrometheusServer, query string, at time.Time) ([]cluster.NodeScore, error) {
	if server == nil {
		return nil, errors.New("metricsProviders lists no Prometheus")
	}
	rt, err := prometheusTransport(ctx, client, server)
	if err != nil {
		return nil, err
	}
	c, err := promapi.NewClient(promapi.Config{Address: server.URL, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("prometheus %s: %w", server.URL, err)
	}
	value, warnings, _, err := promv1.NewAPI(c).Query(ctx, query, at)
	if err != nil {
		return nil, fmt.Errorf("prometheus query %q: %w", query, err)
	}
	if len(warnings) > 0 {
		klog.InfoS("Prometheus warned about the query", "query", query, "warnings", warnings)
	}
	return nodeScores(query, value)
}

// nodeScores reads a query's result: a vector of one sample per node,
// named by its instance label, between 0 and 1.
func nodeScores(query string, value model.Value) ([]cluster.NodeScore, error) {
	vector, ok := value.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("prometheus query %q returned a %s, not a vector of one sample per node", query, value.Type())
	}
	out := make([]cluster.NodeScore, 0, len(vector))
	for _, s := range vector {
		node := string(s.Metric["instance"])
		if node == "" {
			return nil, fmt.Errorf("prometheus query %q: a sample has no instance label to name its node: %s", query, s.Metric)
		}
		sc, err := cluster.NewNodeScore(node, float64(s.Value), s.Timestamp.Time())
		if err != nil {
			return nil, fmt.Errorf("prometheus query %q: %w", query, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// prometheusTransport authenticates with the policy's token (a Secret's
// prometheusAuthToken or a file, read on each run so that a rotated token
// is used), or the pod's service account token, and checks the server's
// certificate with the policy's CA.
func prometheusTransport(ctx context.Context, client kubernetes.Interface, s *policy.PrometheusServer) (http.RoundTripper, error) {
	base := http.DefaultTransport.(*http.Transport).Clone()
	if t := s.TLS; t != nil {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // the policy asks for it
		if t.CAFile != "" {
			pem, err := inputfile.Read(t.CAFile, policy.MaxFileSize)
			if err != nil {
				return nil, fmt.Errorf("metricsProviders prometheus tls.caFile: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("metricsProviders prometheus tls.caFile %s: no PEM certificate in it", t.CAFile)
			}
			cfg.RootCAs = pool
		}
		base.TLSClientConfig = cfg
	}
	token, err := prometheusToken(ctx, client, s.AuthToken)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return base, nil
	}
	return bearer{token: token, next: base}, nil
}

func prometheusToken(ctx context.Context, client kubernetes.Interface, a *policy.AuthToken) (string, error) {
	switch {
	case a != nil && a.SecretReference != nil:
		r := a.SecretReference
		sec, err := client.CoreV1().Secrets(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("the Prometheus token, Secret %s/%s: %w", r.Namespace, r.Name, err)
		}
		t, ok := sec.Data[policy.PrometheusTokenKey]
		if !ok {
			return "", fmt.Errorf("the Prometheus token: Secret %s/%s has no key %s", r.Namespace, r.Name, policy.PrometheusTokenKey)
		}
		return strings.TrimSpace(string(t)), nil
	case a != nil && a.File != "":
		t, err := inputfile.Read(a.File, policy.MaxFileSize)
		if err != nil {
			return "", fmt.Errorf("the Prometheus token: %w", err)
		}
		return strings.TrimSpace(string(t)), nil
	}
	// In a cluster, the service account's token; outside, none.
	t, err := os.ReadFile(serviceAccountToken)
	if err != nil {
		return "", nil //nolint:nilerr // not in a cluster: no token to send
	}
	return strings.TrimSpace(string(t)), nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
