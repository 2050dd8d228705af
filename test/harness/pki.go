package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// pki is what the harness generates so that every client can verify the
// API server's certificate instead of skipping verification.
type pki struct {
	caCertPEM     []byte
	servingCert   string // file paths
	servingKey    string
	caCert        string
	saPrivateKey  string
	saPublicKey   string
	tokenAuthFile string
	tokens        map[string]string // user name -> bearer token
	// The front proxy: the CA aggregated API servers (metrics-server) trust
	// for the requests kube-apiserver forwards, and the client certificate
	// it forwards them with.
	frontProxyCA    string
	proxyClientCert string
	proxyClientKey  string
}

// frontProxyClient is the name kube-apiserver's proxy client certificate
// carries, and the only one the aggregated API servers accept
// (--requestheader-allowed-names).
const frontProxyClient = "front-proxy-client"

// Users with a static token. All are in system:masters: the components act
// for the cluster, and system:masters is exempt from API Priority and
// Fairness, which keeps kwok and the controllers from being throttled by the
// server when a test creates thousands of pods.
const (
	userAdmin      = "rebalancer-harness-admin"
	userController = "system:kube-controller-manager"
	userScheduler  = "system:kube-scheduler"
	userKwok       = "kwok-controller"
)

func generatePKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{
		servingCert:     filepath.Join(dir, "apiserver.crt"),
		servingKey:      filepath.Join(dir, "apiserver.key"),
		caCert:          filepath.Join(dir, "ca.crt"),
		saPrivateKey:    filepath.Join(dir, "sa.key"),
		saPublicKey:     filepath.Join(dir, "sa.pub"),
		tokenAuthFile:   filepath.Join(dir, "tokens.csv"),
		tokens:          map[string]string{},
		frontProxyCA:    filepath.Join(dir, "front-proxy-ca.crt"),
		proxyClientCert: filepath.Join(dir, "front-proxy-client.crt"),
		proxyClientKey:  filepath.Join(dir, "front-proxy-client.key"),
	}

	// ECDSA keeps generation instant; the API server accepts it for serving.
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          randSerial(),
		Subject:               pkix.Name{CommonName: "rebalancer-harness-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caCertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})

	servingKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	servingTmpl := &x509.Certificate{
		SerialNumber: randSerial(),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTmpl, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	servingKeyDER, err := x509.MarshalECPrivateKey(servingKey)
	if err != nil {
		return nil, err
	}

	// A CA of its own, as Kubernetes advises: a certificate the front
	// proxy's CA signs asserts any user to an aggregated API server.
	fpKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	fpTmpl := &x509.Certificate{
		SerialNumber:          randSerial(),
		Subject:               pkix.Name{CommonName: "rebalancer-harness-front-proxy-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	fpDER, err := x509.CreateCertificate(rand.Reader, fpTmpl, fpTmpl, &fpKey.PublicKey, fpKey)
	if err != nil {
		return nil, err
	}
	fpCert, err := x509.ParseCertificate(fpDER)
	if err != nil {
		return nil, err
	}
	proxyKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	proxyTmpl := &x509.Certificate{
		SerialNumber: randSerial(),
		Subject:      pkix.Name{CommonName: frontProxyClient},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	proxyDER, err := x509.CreateCertificate(rand.Reader, proxyTmpl, fpCert, &proxyKey.PublicKey, fpKey)
	if err != nil {
		return nil, err
	}
	proxyKeyDER, err := x509.MarshalECPrivateKey(proxyKey)
	if err != nil {
		return nil, err
	}

	// Service-account tokens are signed with RSA, which every consumer of
	// the issuer's keys supports.
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}

	tokenLines := ""
	for i, user := range []string{userAdmin, userController, userScheduler, userKwok} {
		tok, err := randHex(32)
		if err != nil {
			return nil, err
		}
		p.tokens[user] = tok
		tokenLines += fmt.Sprintf("%s,%s,uid-%d,\"system:masters\"\n", tok, user, i)
	}

	files := []struct {
		path string
		data []byte
	}{
		{p.caCert, p.caCertPEM},
		{p.servingCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: servingDER})},
		{p.servingKey, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: servingKeyDER})},
		{p.saPrivateKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)})},
		{p.saPublicKey, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER})},
		{p.tokenAuthFile, []byte(tokenLines)},
		{p.frontProxyCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fpDER})},
		{p.proxyClientCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: proxyDER})},
		{p.proxyClientKey, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: proxyKeyDER})},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func randSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

func randHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writeKubeconfig writes a kubeconfig that authenticates with a bearer token.
func writeKubeconfig(path, server string, caPEM []byte, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["harness"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["harness"] = &clientcmdapi.Context{Cluster: "harness", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "harness"
	return clientcmd.WriteToFile(*cfg, path)
}

func tokenRestConfig(server string, caPEM []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
	}
}
