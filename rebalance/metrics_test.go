package rebalance

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// A Prometheus query answers through the HTTP API; only a vector of one
// sample per node, named by instance, between 0 and 1, becomes node
// ratings: anything else is an error, never a rating of 0.
func TestQueryPrometheus(t *testing.T) {
	tests := []struct {
		name    string
		result  string // the data of /api/v1/query's answer
		want    string // "node=value" joined by spaces
		wantErr string
	}{
		{
			name:   "one sample per node",
			result: `{"resultType":"vector","result":[{"metric":{"instance":"node-a"},"value":[1790000000,"0.93"]},{"metric":{"instance":"node-b"},"value":[1790000000,"0.1"]}]}`,
			want:   "node-a=0.93 node-b=0.1",
		},
		{
			name:    "a sample outside [0, 1]",
			result:  `{"resultType":"vector","result":[{"metric":{"instance":"node-a"},"value":[1790000000,"1.5"]}]}`,
			wantErr: "the Prometheus sample of node-a is 1.5, outside of [0, 1]",
		},
		{
			name:    "a sample without instance",
			result:  `{"resultType":"vector","result":[{"metric":{"node":"node-a"},"value":[1790000000,"0.5"]}]}`,
			wantErr: "a sample has no instance label to name its node",
		},
		{
			name:    "a scalar, not a vector",
			result:  `{"resultType":"scalar","result":[1790000000,"0.5"]}`,
			wantErr: "returned a scalar, not a vector of one sample per node",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/v1/query" {
					http.NotFound(w, r)
					return
				}
				if got := r.Header.Get("Authorization"); got != "Bearer s3cret" {
					http.Error(w, "unauthorized: "+got, http.StatusUnauthorized)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"status":"success","data":%s}`, tt.result)
			}))
			defer srv.Close()
			token := t.TempDir() + "/token"
			writeFile(t, token, "s3cret\n")
			server := &policy.PrometheusServer{URL: srv.URL, AuthToken: &policy.AuthToken{File: token}}
			scores, err := QueryPrometheus(context.Background(), nil, server, "instance:node_cpu:rate:sum", time.Unix(1790000000, 0))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range scores {
				got = append(got, fmt.Sprintf("%s=%g", s.Node, s.Value))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("scores %v, want %s", got, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The files a policy names for Prometheus are read only when they are
// regular files of at most policy.MaxFileSize: a device would be read
// without end at every run.
func TestPrometheusFilesAreBounded(t *testing.T) {
	fifo := t.TempDir() + "/token"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		server policy.PrometheusServer
		want   string
	}{
		{name: "a CA that is a device", server: policy.PrometheusServer{TLS: &policy.PrometheusTLS{CAFile: "/dev/zero"}},
			want: "metricsProviders prometheus tls.caFile: file /dev/zero: is not a regular file (it is a character device)"},
		{name: "a token that is a device", server: policy.PrometheusServer{AuthToken: &policy.AuthToken{File: "/dev/zero"}},
			want: "the Prometheus token: file /dev/zero: is not a regular file (it is a character device)"},
		{name: "a token that is a pipe, which would wait for a writer", server: policy.PrometheusServer{AuthToken: &policy.AuthToken{File: fifo}},
			want: "the Prometheus token: file " + fifo + ": is not a regular file (it is a named pipe)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := prometheusTransport(context.Background(), nil, &tt.server)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("prometheusTransport() error = %v, want %q", err, tt.want)
			}
		})
	}
}
