package kubetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	fakerest "k8s.io/client-go/rest/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// WithMetrics returns client serving, as metrics-server does,
// /apis/metrics.k8s.io/v1beta1/nodes and /pods with these samples. client-go's
// fake has no REST client to read them through; each read is recorded among
// client's actions as a list of metrics.k8s.io nodes or pods, which is what
// the API server's authorizer sees.
func WithMetrics(client *fake.Clientset, nodes []cluster.NodeMetrics, pods []cluster.PodMetrics) kubernetes.Interface {
	base := "/apis/" + cluster.MetricsGroupVersion.String()
	serve := func(req *http.Request) (*http.Response, error) {
		var body any
		var resource string
		switch req.URL.Path {
		case base + "/nodes":
			resource, body = "nodes", cluster.NodeMetricsList{TypeMeta: metav1.TypeMeta{APIVersion: cluster.MetricsGroupVersion.String(), Kind: "NodeMetricsList"}, Items: nodes}
		case base + "/pods":
			resource, body = "pods", cluster.PodMetricsList{TypeMeta: metav1.TypeMeta{APIVersion: cluster.MetricsGroupVersion.String(), Kind: "PodMetricsList"}, Items: pods}
		default:
			return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(nil))}, nil
		}
		// The tracker cannot list a kind its scheme lacks: only the record
		// of the call is wanted from it.
		_, _ = client.Invokes(k8stesting.NewRootListAction(
			cluster.MetricsGroupVersion.WithResource(resource), cluster.MetricsGroupVersion.WithKind(""), metav1.ListOptions{}), nil)
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": []string{"application/json"}},
			Body: io.NopCloser(bytes.NewReader(raw))}, nil
	}
	rc := &fakerest.RESTClient{Client: fakerest.CreateHTTPClient(serve), NegotiatedSerializer: scheme.Codecs.WithoutConversion()}
	return metricsClient{Clientset: client, discovery: metricsDiscovery{FakeDiscovery: client.Discovery().(*fakediscovery.FakeDiscovery), rc: rc}}
}

type metricsClient struct {
	*fake.Clientset
	discovery metricsDiscovery
}

func (c metricsClient) Discovery() discovery.DiscoveryInterface { return c.discovery }

type metricsDiscovery struct {
	*fakediscovery.FakeDiscovery
	rc rest.Interface
}

func (d metricsDiscovery) RESTClient() rest.Interface { return d.rc }
