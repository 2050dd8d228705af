package policy

import (
	"net/url"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The sources of usage, with the descheduler's names: the resource metrics
// API (metrics.k8s.io, served by metrics-server) and a Prometheus query.
const (
	MetricsSourceKubernetes = "KubernetesMetrics"
	MetricsSourcePrometheus = "Prometheus"
)

// MetricResource is the one resource thresholds name when a Prometheus
// query rates the nodes: the query's value, in percent.
const MetricResource = "MetricResource"

// PrometheusTokenKey is the key of a Secret's data that holds the token
// for Prometheus, as in the descheduler.
const PrometheusTokenKey = "prometheusAuthToken"

// MetricsUtilization makes a utilization strategy classify nodes by what
// their pods use instead of what they request, as the descheduler's
// metricsUtilization does.
type MetricsUtilization struct {
	// MetricsServer is the older spelling of source: KubernetesMetrics.
	MetricsServer bool `json:"metricsServer,omitempty"`
	// Source is KubernetesMetrics or Prometheus.
	Source string `json:"source,omitempty"`
	// Prometheus holds the query for source Prometheus.
	Prometheus *PrometheusQuery `json:"prometheus,omitempty"`
	// ConsecutiveObservations is how many observations in a row (samples
	// newer than the last one counted, one run apart) a node must be over-
	// or under-utilized in before the strategy treats it so, as
	// koordinator's anomalyCondition.consecutiveAbnormalities: a short
	// burst then moves nothing. Unset: 1, each run judges on its own
	// sample.
	ConsecutiveObservations *int32 `json:"consecutiveObservations,omitempty"`
}

// Observations returns consecutiveObservations, 1 when unset.
func (m *MetricsUtilization) Observations() int32 {
	if m == nil || m.ConsecutiveObservations == nil {
		return 1
	}
	return *m.ConsecutiveObservations
}

// PrometheusQuery is a PromQL query returning one sample per node, labelled
// with instance: the node's name, and valued between 0 and 1.
type PrometheusQuery struct {
	Query string `json:"query,omitempty"`
}

// Kubernetes reports whether usage comes from the metrics API.
func (m *MetricsUtilization) Kubernetes() bool {
	return m != nil && (m.MetricsServer || m.Source == MetricsSourceKubernetes)
}

// PrometheusQuery returns the query when usage comes from Prometheus, or "".
func (m *MetricsUtilization) PrometheusQuery() string {
	if m == nil || m.Source != MetricsSourcePrometheus || m.Prometheus == nil {
		return ""
	}
	return m.Prometheus.Query
}

// Validate checks the combinations the descheduler refuses.
func (m *MetricsUtilization) Validate(path *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	if c := m.ConsecutiveObservations; c != nil && *c < 1 {
		errs = append(errs, field.Invalid(path.Child("consecutiveObservations"), *c, "must be at least 1 (1: each run judges a node on its latest sample alone)"))
	}
	switch m.Source {
	case "":
		if !m.MetricsServer {
			errs = append(errs, field.Required(path.Child("source"), "KubernetesMetrics or Prometheus"))
		}
	case MetricsSourceKubernetes:
		if m.MetricsServer {
			errs = append(errs, field.Forbidden(path.Child("metricsServer"), "is the older spelling of source: KubernetesMetrics; set one of them"))
		}
	case MetricsSourcePrometheus:
		if m.MetricsServer {
			errs = append(errs, field.Forbidden(path.Child("metricsServer"), "reads metrics-server, and source says Prometheus; set one of them"))
		}
		if m.Prometheus == nil || m.Prometheus.Query == "" {
			errs = append(errs, field.Required(path.Child("prometheus", "query"), "a PromQL query returning one sample per node (label instance: the node's name) between 0 and 1"))
		}
		return errs
	default:
		errs = append(errs, field.NotSupported(path.Child("source"), m.Source, []string{MetricsSourceKubernetes, MetricsSourcePrometheus}))
	}
	if m.Prometheus != nil {
		errs = append(errs, field.Forbidden(path.Child("prometheus"), "is only for source: Prometheus"))
	}
	return errs
}

// ValidateMetricThresholds checks that thresholds name the resources the
// source measures: with Prometheus, exactly MetricResource (the query's
// value); otherwise, never it.
func ValidateMetricThresholds(m *MetricsUtilization, t ResourceThresholds, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	prom := m.PrometheusQuery() != ""
	for _, name := range t.Names() {
		switch {
		case prom && name != MetricResource:
			errs = append(errs, field.Invalid(path.Child(name), t[name], "is set, but with metricsUtilization.source Prometheus thresholds list MetricResource only (the query's value, in percent)"))
		case !prom && name == MetricResource:
			errs = append(errs, field.Invalid(path.Child(name), t[name], "is set, but MetricResource is the value of a Prometheus query: set it only with metricsUtilization.source Prometheus"))
		}
	}
	return errs
}

// MetricsProvider says how to reach a source of usage, in the descheduler's
// shape of metricsProviders.
type MetricsProvider struct {
	// Source is KubernetesMetrics or Prometheus.
	Source string `json:"source,omitempty"`
	// Prometheus is the server for source Prometheus.
	Prometheus *PrometheusServer `json:"prometheus,omitempty"`
}

// PrometheusServer is where Prometheus' HTTP API answers, and how to
// authenticate to it.
type PrometheusServer struct {
	// URL of the server, such as https://prometheus.monitoring.svc:9090.
	URL string `json:"url,omitempty"`
	// AuthToken is the bearer token sent with each query. Without it, the
	// token of the pod's service account is sent when rebalancer runs in a
	// cluster, and none otherwise.
	AuthToken *AuthToken `json:"authToken,omitempty"`
	// TLS verifies the server's certificate with another CA than the
	// system's.
	TLS *PrometheusTLS `json:"tls,omitempty"`
}

// AuthToken names where the token is: a Secret (under the key
// prometheusAuthToken, as in the descheduler) or a file, read again on
// each run so that a rotated token is used.
type AuthToken struct {
	SecretReference *SecretReference `json:"secretReference,omitempty"`
	File            string           `json:"file,omitempty"`
}

// SecretReference names a Secret.
type SecretReference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// PrometheusTLS is how the server's certificate is checked.
type PrometheusTLS struct {
	// CAFile is a PEM bundle of the CAs that sign the server's certificate.
	CAFile string `json:"caFile,omitempty"`
	// InsecureSkipVerify does not check the certificate at all.
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// Prometheus returns the policy's Prometheus server, or nil.
func (p *RebalancePolicy) Prometheus() *PrometheusServer {
	for _, m := range p.MetricsProviders {
		if m.Source == MetricsSourcePrometheus {
			return m.Prometheus
		}
	}
	return nil
}

func validateMetricsProviders(list []MetricsProvider, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, m := range list {
		p := path.Index(i)
		switch m.Source {
		case MetricsSourceKubernetes:
			if m.Prometheus != nil {
				errs = append(errs, field.Forbidden(p.Child("prometheus"), "is only for source: Prometheus"))
			}
		case MetricsSourcePrometheus:
			errs = append(errs, m.Prometheus.validate(p.Child("prometheus"))...)
		default:
			errs = append(errs, field.NotSupported(p.Child("source"), m.Source, []string{MetricsSourceKubernetes, MetricsSourcePrometheus}))
			continue
		}
		if seen[m.Source] {
			errs = append(errs, field.Duplicate(p.Child("source"), m.Source))
		}
		seen[m.Source] = true
	}
	return errs
}

func (s *PrometheusServer) validate(path *field.Path) field.ErrorList {
	if s == nil || s.URL == "" {
		return field.ErrorList{field.Required(path.Child("url"), "the address of Prometheus' HTTP API, such as https://prometheus.monitoring.svc:9090")}
	}
	var errs field.ErrorList
	if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, field.Invalid(path.Child("url"), s.URL, "is not an http or https URL"))
	}
	if t := s.AuthToken; t != nil {
		tp := path.Child("authToken")
		switch r := t.SecretReference; {
		case r != nil && t.File != "":
			errs = append(errs, field.Forbidden(tp, "set secretReference or file, not both"))
		case r == nil && t.File == "":
			errs = append(errs, field.Required(tp, "secretReference (a Secret with the key "+PrometheusTokenKey+") or file"))
		case r != nil:
			if r.Namespace == "" {
				errs = append(errs, field.Required(tp.Child("secretReference", "namespace"), ""))
			}
			if r.Name == "" {
				errs = append(errs, field.Required(tp.Child("secretReference", "name"), ""))
			}
		}
	}
	if t := s.TLS; t != nil && t.CAFile != "" && t.InsecureSkipVerify {
		errs = append(errs, field.Forbidden(path.Child("tls"), "set caFile or insecureSkipVerify, not both"))
	}
	return errs
}

// validateMetricsSources checks that every strategy whose usage comes from
// Prometheus has a server to ask.
func (p *RebalancePolicy) validateMetricsSources() field.ErrorList {
	if p.Prometheus() != nil {
		return nil
	}
	var errs field.ErrorList
	for _, n := range p.Strategies.List() {
		if m, ok := n.Args.(interface{ Metrics() *MetricsUtilization }); ok && m.Metrics().PrometheusQuery() != "" {
			errs = append(errs, field.Required(field.NewPath("metricsProviders"),
				"strategies."+n.Name+".metricsUtilization asks Prometheus: list {source: Prometheus, prometheus: {url: …}}"))
		}
	}
	return errs
}

// CountsObservations reports whether a strategy of the policy asks for
// consecutive observations: only then do runs keep counts for each other.
func (p *Policy) CountsObservations() bool {
	for _, n := range p.Global().Strategies.List() {
		if m, ok := n.Args.(interface{ Metrics() *MetricsUtilization }); ok && m.Metrics().Observations() > 1 {
			return true
		}
	}
	return false
}

// MetricsNeeded says which usage the enabled strategies read: the metrics
// API, and the Prometheus queries (each once, sorted).
func (p *Policy) MetricsNeeded() (kubernetes bool, queries []string) {
	for _, n := range p.Global().Strategies.List() {
		m, ok := n.Args.(interface{ Metrics() *MetricsUtilization })
		if !ok {
			continue
		}
		mu := m.Metrics()
		if mu.Kubernetes() {
			kubernetes = true
		}
		if q := mu.PrometheusQuery(); q != "" && !contains(queries, q) {
			queries = append(queries, q)
		}
	}
	sort.Strings(queries)
	return kubernetes, queries
}
