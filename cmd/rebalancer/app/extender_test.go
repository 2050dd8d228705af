package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/extender"
)

// The extender's watches read the state ConfigMap of its namespace, the
// ReplicaSets and the pods: exactly what `rebalancer rbac extender` grants, and it
// holds the state's intents once the watches have filled.
func TestExtenderPermissionsMatchTheCallsMade(t *testing.T) {
	state := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: stateNamespace, Name: defaultStateName}}
	w := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	if _, err := cluster.EncodeEvictions(state, []cluster.Eviction{{Pod: "shop/web-1", Workload: w, From: "n1", To: "n2", At: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(state)
	intents := extender.NewIntents(time.Hour)
	src := &extender.Source{Client: client, Namespace: stateNamespace, Name: defaultStateName, Intents: intents}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := src.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := intents.Claim("uid-1", w, time.Now(), src.Departed); !ok || e.To != "n2" {
		t.Errorf("after the watches filled: claim %v %v, want the state's intent to n2", e, ok)
	}
	// The watches start right after the lists that filled the caches.
	watching := func() bool {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "watch" {
				n++
			}
		}
		return n >= 3 // the state ConfigMap, ReplicaSets, pods
	}
	for deadline := time.Now().Add(10 * time.Second); !watching() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	checkPermissions(t, extenderPermissions(), client.Actions())
}

// With a certificate the extender serves HTTPS, as kube-scheduler's
// tlsConfig expects, and answers once its watches have filled.
func TestExtenderServesTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rebalancer-extender"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	intents := extender.NewIntents(time.Hour)
	src := &extender.Source{Client: fake.NewClientset(), Namespace: stateNamespace, Name: defaultStateName, Intents: intents}
	srv := &extender.Server{Intents: intents, Workload: src.Workload, Metrics: extender.NewMetrics()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveExtender(ctx, src, srv, addr, certFile, keyFile) }()

	roots := x509.NewCertPool()
	roots.AddCert(must(x509.ParseCertificate(der)))
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := client.Get("https://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready answer over HTTPS: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Go's TLS server answers a plain request with a 400 of its own.
	if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("the extender answered plain HTTP while serving TLS")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveExtender() = %v after its context ended", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
