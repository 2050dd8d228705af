package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// process is one control-plane component started by the harness.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	log     *os.File
	done    chan struct{} // closed once the process has been reaped
	waitErr error         // valid after done is closed
}

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnRequest
)

// spawn starts cmd from one OS thread that never exits. Children get
// Pdeathsig so that they die with the test binary even when it is killed
// (go test's -timeout panics and exits without running cleanups); the kernel
// sends that signal when the forking *thread* exits, and the Go runtime may
// retire threads, so forking from a locked, immortal thread keeps the signal
// tied to the life of the process.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread()
			for req := range spawnCh {
				req.result <- req.cmd.Start()
			}
		}()
	})
	result := make(chan error, 1)
	spawnCh <- spawnRequest{cmd: cmd, result: result}
	return <-result
}

// startProcess runs bin with args, appending its stdout and stderr to logPath.
func startProcess(name, bin string, args, env []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "=== %s %s %q\n", time.Now().Format(time.RFC3339Nano), bin, args)
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = env
	setProcAttrs(cmd)
	if err := spawn(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, log: logFile, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exitErr reports whether the process has ended, and how.
func (p *process) exitErr() (bool, error) {
	select {
	case <-p.done:
		if p.waitErr == nil {
			return true, errors.New("exited with status 0")
		}
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after grace, and
// returns once the process has been reaped. The group is signalled because
// a component may have children of its own.
//
// drained, if not nil, tells when the component has done all the graceful
// work worth waiting for; it then gets a second SIGTERM, on which Kubernetes
// components exit at once. kube-apiserver needs this: after it stops
// listening it still waits, up to a minute, for clients' watch connections
// to go away, which they do not while the other components are running.
func (p *process) stop(grace time.Duration, drained func() bool) {
	if exited, _ := p.exitErr(); exited {
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	secondSent := false
wait:
	for {
		select {
		case <-p.done:
			break wait
		case <-deadline.C:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-p.done
			break wait
		case <-tick.C:
			if drained != nil && !secondSent && drained() {
				_ = syscall.Kill(-pid, syscall.SIGTERM)
				secondSent = true
			}
		}
	}
	// Anything left in the group after the leader died is killed too.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
