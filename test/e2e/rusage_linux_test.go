package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxRSSKiB is ru_maxrss of a finished child, in KiB on Linux. Beware: Go
// starts children with vfork semantics (CLONE_VM), and at exec the kernel
// folds the high-water mark of the shared memory, the parent's, into the
// child's; a child of a big parent reports at least the parent's peak.
// measured runs go through spawn to avoid that.
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// spawn runs argv as the only child of a freshly started test binary, a
// parent whose own high-water mark is small, so that the child's ru_maxrss
// is the child's. It writes that, its own VmHWM (the floor of the
// measurement) and the child's wall time to out, and exits with the child's
// exit code.
func spawn(out string, argv []string) int {
	// The child dies with this thread (Pdeathsig): keep it for good.
	runtime.LockOSThread()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		fmt.Fprintf(os.Stderr, "spawn %s: %v\n", argv[0], err)
		return 125
	}
	line := fmt.Sprintf("%d %d %d\n", maxRSSKiB(cmd.ProcessState), vmHWMKiB("self"), wall)
	if err := os.WriteFile(out, []byte(line), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

// vmHWMKiB is a process's peak resident set size, from /proc.
func vmHWMKiB(pid string) int64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
