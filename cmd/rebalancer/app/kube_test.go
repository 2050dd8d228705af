package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

// The built-in kinds are read in protobuf, which the API server serves
// for them, and metrics.k8s.io, an aggregated API read raw as JSON, in
// JSON: each request says so in its Accept header.
func TestClientAsksForProtobufButMetricsInJSON(t *testing.T) {
	var (
		mu     sync.Mutex
		accept = map[string]string{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept[r.URL.Path] = r.Header.Get("Accept")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/nodes":
			_, _ = w.Write([]byte(`{"kind":"NodeList","apiVersion":"v1","items":[]}`))
		default:
			_, _ = w.Write([]byte(`{"items":[]}`))
		}
	}))
	defer srv.Close()
	kubeconfig := writeFile(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "`+srv.URL+`"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
	k := kubeFlags{kubeconfig: kubeconfig, qps: 20, burst: 30}
	client, _, err := k.client("rebalancer-test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kube.ReadUsage(t.Context(), client); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{"/api/v1/nodes", "application/vnd.kubernetes.protobuf,application/json"},
		{"/apis/metrics.k8s.io/v1beta1/nodes", "application/json"},
		{"/apis/metrics.k8s.io/v1beta1/pods", "application/json"},
	} {
		if got := accept[tt.path]; !strings.EqualFold(got, tt.want) {
			t.Errorf("GET %s with Accept %q, want %q", tt.path, got, tt.want)
		}
	}
}
