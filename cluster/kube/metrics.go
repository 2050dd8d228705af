package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// ReadUsage lists the nodes' and pods' usage from the resource metrics API
// (metrics.k8s.io/v1beta1, served by metrics-server), as
// `kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes` and `/pods` do.
// The API is read raw: its Go types are not among the module's
// dependencies, and a snapshot decodes the same JSON from a dump.
func ReadUsage(ctx context.Context, client kubernetes.Interface) ([]cluster.NodeMetrics, []cluster.PodMetrics, error) {
	rc := client.Discovery().RESTClient()
	if rc == nil {
		return nil, nil, fmt.Errorf("no REST client to read %s", cluster.MetricsGroupVersion)
	}
	base := "/apis/" + cluster.MetricsGroupVersion.String()
	// Both, whatever the first answers: each error says what to mend.
	var nodes cluster.NodeMetricsList
	var pods cluster.PodMetricsList
	if err := errors.Join(getJSON(ctx, client, base+"/nodes", &nodes), getJSON(ctx, client, base+"/pods", &pods)); err != nil {
		return nil, nil, err
	}
	return nodes.Items, pods.Items, nil
}

func getJSON(ctx context.Context, client kubernetes.Interface, path string, into any) error {
	// In JSON, whatever the client prefers for the built-in kinds: an
	// aggregated API such as metrics-server may answer protobuf otherwise.
	raw, err := client.Discovery().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", runtime.ContentTypeJSON).DoRaw(ctx)
	if err != nil {
		// The discovery client cannot decode the API server's Status, and
		// says "unknown": a refusal must name the permission it lacks.
		var status metav1.Status
		if json.Unmarshal(raw, &status) == nil && status.Kind == "Status" && status.Message != "" {
			err = &apierrors.StatusError{ErrStatus: status}
		}
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		return fmt.Errorf("reading %s (is metrics-server installed?): %w", path, err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
