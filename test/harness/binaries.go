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
		ensureDir, ensureErr = runBuildScript(ctx)
	})
	return ensureDir, ensureErr
}

func runBuildScript(ctx context.Context) (string, error) {
	script, err := findBuildScript()
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
	for _, name := range []string{binEtcd, binAPIServer, binController, binScheduler, binKwok} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%s printed %q but %s is not there: %w", script, dir, name, err)
		}
	}
	fmt.Fprintf(os.Stderr, "harness: binaries ready in %s (%s)\n", dir, time.Since(start).Round(time.Millisecond))
	return dir, nil
}

// findBuildScript locates test/tools/build.sh. The source file's own path is
// tried first because tests of other packages run with their own directory as
// working directory; walking up from the working directory covers binaries
// built with -trimpath, where that path is not a real one.
func findBuildScript() (string, error) {
	const rel = "test/tools/build.sh"
	var candidates []string
	if _, file, _, ok := runtime.Caller(0); ok {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", "tools", "build.sh"))
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
