package deploy

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// One control plane for the package, started by the first test that needs
// one, so that `go test -run TestHelm` does not pay for it.
var (
	cpOnce sync.Once
	cp     *harness.ControlPlane
	cpErr  error

	// tempDirs outlive single tests (the built binary) and are removed when
	// the package's tests end.
	tempDirs []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	if cp != nil {
		// A failed test keeps the logs (ReportOnFailure marks it).
		cp.Shutdown(code != 0)
	}
	os.Exit(code)
}

// controlPlane returns the package's control plane, starting it on first use.
// Its API server limits the critical PriorityClasses (testdata/admission.yaml).
// kube-scheduler is left out: the tests place pods themselves, so that a
// Deployment's imbalance is exactly the one they built.
func controlPlane(t *testing.T) *harness.ControlPlane {
	t.Helper()
	cpOnce.Do(func() {
		// The first start may build the control-plane binaries.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		cp, cpErr = harness.Start(ctx, nil, harness.Options{
			ExtraAPIServerArgs: []string{"--admission-control-config-file=" + testdata("admission.yaml")},
		})
	})
	if cpErr != nil {
		t.Fatalf("starting the control plane: %v", cpErr)
	}
	cp.ReportOnFailure(t)
	return cp
}
