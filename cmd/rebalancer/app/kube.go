package app

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeFlags are the flags that say how to reach the API server.
type kubeFlags struct {
	kubeconfig string
	context    string
	qps        float32
	burst      int
}

// client builds a clientset from --kubeconfig, $KUBECONFIG, ~/.kube/config
// or, inside a pod, the in-cluster configuration, in that order. userAgent
// is the program's name and version.
func (k *kubeFlags) client(userAgent string) (kubernetes.Interface, *rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: k.context}).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("no cluster to talk to: %w (use --kubeconfig, or run inside a pod)", err)
	}
	cfg.QPS, cfg.Burst = k.qps, k.burst
	cfg.UserAgent = userAgent
	// The clientset holds only the API server's built-in kinds, which it
	// serves in protobuf: a fraction of JSON's bytes and decoding time for
	// LISTs of tens of thousands of pods. JSON stays acceptable for what
	// is read raw (metrics.k8s.io asks for it by name).
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return client, cfg, nil
}
