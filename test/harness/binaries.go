package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Names of the binaries build.sh produces.
const (
	binEtcd       = "etcd"
	binAPIServer  = "kube-apiserver"
	binController = "kube-controller-manager"
	binScheduler  = "kube-scheduler"
	binKwok       = "kwok"
)

var (
	ensureOnce sync.Once
	ensureDir  string
	ensureErr  error
)

// EnsureBinaries builds the control-plane binaries with test/tools/build.sh,
// at most once per process, and returns the directory that holds them.
//
// On a machine with empty Go caches this compiles Kubernetes and takes many
// minutes; later calls, in this process or another, find the cached binaries
// and return in seconds. build.sh's progress is copied to stderr so a long
// first build does not look like a hang. The first caller's ctx bounds the
// build for everyone, since the result is shared.
func EnsureBinaries(ctx context.Context) (string, error) {
	ensureOnce.Do(func() {
		ensureDir, ensureErr = runBuildScript(ctx, "test/tools/build.sh", binEtcd, binAPIServer, binController, binScheduler, binKwok)
	})
	return ensureDir, ensureErr
}

// binMetricsServer is what test/tools/metricsserver/build.sh builds.
const binMetricsServer = "metrics-server"

var (
	metricsServerOnce sync.Once
	metricsServerBin  string
	metricsServerErr  error
)

// EnsureMetricsServer builds metrics-server with
// test/tools/metricsserver/build.sh, at most once per process, and returns
// the binary's path. Only the tests that run it pay for a cold build.
func EnsureMetricsServer(ctx context.Context) (string, error) {
	metricsServerOnce.Do(func() {
		var dir string
		dir, metricsServerErr = runBuildScript(ctx, "test/tools/metricsserver/build.sh", binMetricsServer)
		metricsServerBin = filepath.Join(dir, binMetricsServer)
	})
	return metricsServerBin, metricsServerErr
}

// runBuildScript runs a build script of test/tools (rel, from the
// repository's root) and returns the directory it printed, which must hold
// the named binaries.
func runBuildScript(ctx context.Context, rel string, names ...string) (string, error) {
	script, err := findBuildScript(rel)
	if err != nil {
		return "", err
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "harness: running %s (a cold build takes many minutes)\n", script)
	var stdout, stderrTail bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout = &stdout
	// Keep a copy of stderr for the error message: go test prints a test
	// binary's stderr only at the end, and CI may not show it at all.
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderrTail)
	// go build runs compilers as children of bash; cancelling ctx must stop
	// them too, so the script gets its own process group and the whole
	// group is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s failed after %s: %w\n%s", script, time.Since(start).Round(time.Second), err, lastLines(stderrTail.String(), 40))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	dir := strings.TrimSpace(lines[len(lines)-1])
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%s printed %q but %s is not there: %w", script, dir, name, err)
		}
	}
	fmt.Fprintf(os.Stderr, "harness: binaries ready in %s (%s)\n", dir, time.Since(start).Round(time.Millisecond))
	return dir, nil
}

// findBuildScript locates a script of test/tools. The source file's own path is
// tried first because tests of other packages run with their own directory as
// working directory; walking up from the working directory covers binaries
// built with -trimpath, where that path is not a real one.
func findBuildScript(rel string) (string, error) {
	var candidates []string
	if _, file, _, ok := runtime.Caller(0); ok {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", "..", rel))
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, rel))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return filepath.Clean(c), nil
		}
	}
	return "", errors.New("harness: cannot find " + rel + " above the working directory")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
