package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A dump carries Prometheus samples as the HTTP API's answer to an instant
// query, the document that
//
//	curl -s "$PROMETHEUS/api/v1/query" --data-urlencode "query=$QUERY"
//
// prints: {"status":"success","data":{"resultType":"vector","result":[…]}}.
// It has no kind, and is told from a Kubernetes object by its status and
// data.
type prometheusResponse struct {
	Status    string          `json:"status"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Data      *prometheusData `json:"data"`
}

type prometheusData struct {
	ResultType string            `json:"resultType"`
	Result     []json.RawMessage `json:"result"`
}

type prometheusSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// isPrometheusResponse reports whether raw is the answer of Prometheus'
// HTTP API rather than a Kubernetes object.
func isPrometheusResponse(raw json.RawMessage) bool {
	var r prometheusResponse
	return json.Unmarshal(raw, &r) == nil && r.Status != "" && (r.Data != nil || r.ErrorType != "")
}

// ParsePrometheusVector reads the answer to an instant query that rates each
// node's utilization between 0 and 1: one sample per node, named by its
// instance label, as the descheduler's metricsUtilization with source
// Prometheus reads it. Anything else is an error, never a sample of 0.
func ParsePrometheusVector(raw []byte) ([]NodeScore, error) {
	var r prometheusResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("not a Prometheus query response: %w", err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("the Prometheus query failed: %s: %s", r.ErrorType, r.Error)
	}
	if r.Data == nil || r.Data.ResultType != "vector" {
		t := ""
		if r.Data != nil {
			t = r.Data.ResultType
		}
		return nil, fmt.Errorf("the Prometheus query returned a %q, not a vector of one sample per node", t)
	}
	out := make([]NodeScore, 0, len(r.Data.Result))
	for _, item := range r.Data.Result {
		var s prometheusSample
		if err := json.Unmarshal(item, &s); err != nil {
			return nil, fmt.Errorf("a sample of the Prometheus query: %w", err)
		}
		sc, err := nodeScore(s.Metric["instance"], s.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

func nodeScore(node string, v [2]any) (NodeScore, error) {
	if node == "" {
		return NodeScore{}, errors.New("a sample of the Prometheus query has no instance label to name its node")
	}
	at, ok := v[0].(float64)
	text, ok2 := v[1].(string)
	if !ok || !ok2 {
		return NodeScore{}, fmt.Errorf("the Prometheus sample of %s is not a [time, \"value\"] pair", node)
	}
	value, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return NodeScore{}, fmt.Errorf("the Prometheus sample of %s: %q is not a number", node, text)
	}
	return NewNodeScore(node, value, time.Unix(0, int64(at*1e9)))
}

// NewNodeScore checks that a Prometheus sample is between 0 and 1, as the
// query must rate nodes.
func NewNodeScore(node string, value float64, at time.Time) (NodeScore, error) {
	if math.IsNaN(value) || value < 0 || value > 1 {
		return NodeScore{}, fmt.Errorf("the Prometheus sample of %s is %v, outside of [0, 1]", node, value)
	}
	return NodeScore{Node: node, Value: value, Timestamp: metav1.NewTime(at.UTC().Truncate(time.Millisecond))}, nil
}
