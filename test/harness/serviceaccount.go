package harness

import (
	"context"
	"fmt"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ServiceAccountToken returns a token for the ServiceAccount from the
// TokenRequest API, valid for an hour (long enough for any test, short
// enough that nothing outlives it).
func (cp *ControlPlane) ServiceAccountToken(ctx context.Context, namespace, name string) (string, error) {
	expiry := int64(3600)
	tr, err := cp.Client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// ServiceAccountKubeconfig writes a kubeconfig that authenticates as the
// ServiceAccount (which must exist) and returns its path and the matching
// rest.Config, so that a test can run the product, in process or as a
// binary, with exactly the RBAC the ServiceAccount is granted.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, *rest.Config, error) {
	token, err := cp.ServiceAccountToken(ctx, namespace, name)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(cp.Dir, fmt.Sprintf("sa-%s-%s.kubeconfig", namespace, name))
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)
	if err := writeKubeconfig(path, cp.APIServerURL, cp.CACert, user, token); err != nil {
		return "", nil, err
	}
	return path, tokenRestConfig(cp.APIServerURL, cp.CACert, token), nil
}

// ServiceAccountClient is ServiceAccountKubeconfig for tests that only need
// a clientset.
func (cp *ControlPlane) ServiceAccountClient(ctx context.Context, namespace, name string) (kubernetes.Interface, error) {
	_, cfg, err := cp.ServiceAccountKubeconfig(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
