package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// A refusal to read metrics.k8s.io names the permission missing, in the
// API server's words, not "unknown"; an API that is not served points at
// metrics-server. Nodes and pods are both asked, so that each refusal is
// named at once.
func TestReadUsageSaysWhyItCouldNotRead(t *testing.T) {
	tests := []struct {
		name string
		code int
		body string
		want []string
	}{
		{name: "forbidden", code: http.StatusForbidden,
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,` +
				`"message":"nodes.metrics.k8s.io is forbidden: User \"system:serviceaccount:rebalancer:rebalancer\" cannot list resource \"nodes\" in API group \"metrics.k8s.io\" at the cluster scope"}`,
			want: []string{`cannot list resource "nodes" in API group "metrics.k8s.io"`, "reading /apis/metrics.k8s.io/v1beta1/pods"}},
		{name: "not served", code: http.StatusNotFound,
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"the server could not find the requested resource"}`,
			want: []string{"is metrics-server installed?", "could not find the requested resource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.code)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = ReadUsage(context.Background(), client)
			if err == nil {
				t.Fatal("ReadUsage() = nil error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
