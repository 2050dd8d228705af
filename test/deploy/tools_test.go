package deploy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// repoRoot is the repository's top directory, found from this file's path so
// that tests do not depend on the working directory go test gives them.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test source")
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

var (
	toolsOnce sync.Once
	toolsDir  string
	toolsErr  error
)

// toolset holds the paths of the tools test/tools/deploy/build.sh builds.
type toolset struct {
	helm, kustomize, kubectl string
	dir                      string
}

// tools builds helm, kustomize and kubectl with test/tools/deploy/build.sh,
// once per process; the script itself reuses binaries an earlier run cached.
func tools(t testing.TB) toolset {
	t.Helper()
	toolsOnce.Do(func() {
		script := filepath.Join(repoRoot(t), "test", "tools", "deploy", "build.sh")
		// A cold build compiles helm, kubectl and their dependencies:
		// minutes on two cores.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "bash", script)
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			toolsErr = errors.New(err.Error() + "\n" + stderr.String())
			return
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		toolsDir = lines[len(lines)-1]
	})
	if toolsErr != nil {
		t.Fatalf("building helm and kustomize: %v", toolsErr)
	}
	return toolset{
		helm:      filepath.Join(toolsDir, "helm"),
		kustomize: filepath.Join(toolsDir, "kustomize"),
		kubectl:   filepath.Join(toolsDir, "kubectl"),
		dir:       toolsDir,
	}
}

// run runs a command and returns its stdout; a failure reports stderr too.
func run(t testing.TB, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, stderr, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stderr, out)
	}
	return out
}

// commandTimeout bounds a tool run by the tests (helm, kubectl, kustomize).
const commandTimeout = 5 * time.Minute

// buildTimeout bounds the build of the binary: with an empty build cache it
// compiles client-go and the API types on a machine the other test
// packages share, which takes longer than any tool run.
const buildTimeout = 30 * time.Minute

func runErr(dir string, env []string, name string, args ...string) (stdout, stderr string, err error) {
	return runErrWithin(commandTimeout, dir, env, name, args...)
}

func runErrWithin(timeout time.Duration, dir string, env []string, name string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(helmEnv(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// helmEnv keeps helm's own state (repositories, plugins, cache) out of the
// developer's home directory, and keeps a developer's KUBECONFIG from
// reaching anything a test runs.
func helmEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "HELM_") {
			continue
		}
		env = append(env, kv)
	}
	dir := filepath.Join(os.TempDir(), "rebalancer-deploy-helm-home")
	return append(env,
		"HELM_CACHE_HOME="+filepath.Join(dir, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "config"),
		"HELM_DATA_HOME="+filepath.Join(dir, "data"),
		"KUBECONFIG="+filepath.Join(dir, "no-cluster.kubeconfig"),
	)
}
