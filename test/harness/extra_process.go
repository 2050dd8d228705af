package harness

import (
	"errors"
	"path/filepath"
	"time"
)

// Process is a program a test or benchmark runs beside the control plane's
// components (a scheduler under measurement, say), started the way the
// components are: their environment, its own process group, a log in
// LogDir, and death with the process that started it. Shutdown does not
// stop it: its owner does, with Stop.
type Process struct{ p *process }

// StartProcess runs bin with args. bin is a path, or the name of one of the
// control plane's binaries in BinDir (kube-scheduler, for instance). Its
// stdout and stderr go to LogDir()/name.log, appended to when the same name
// is started again.
func (cp *ControlPlane) StartProcess(name, bin string, args ...string) (*Process, error) {
	p, err := startProcess(name, cp.binPath(bin), args, cp.env, filepath.Join(cp.LogDir(), name+".log"))
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

func (cp *ControlPlane) binPath(bin string) string {
	if filepath.IsAbs(bin) || filepath.Base(bin) != bin {
		return bin
	}
	return filepath.Join(cp.BinDir, bin)
}

// Exited returns nil while the process runs, and how it ended afterwards.
func (p *Process) Exited() error {
	if exited, err := p.p.exitErr(); exited {
		return errors.Join(errors.New(p.p.name+" exited"), err)
	}
	return nil
}

// Stop sends SIGTERM, then SIGKILL after grace, and returns once the process
// is gone. Programs that flush something on SIGTERM (a CPU profile) get
// grace to do it.
func (p *Process) Stop(grace time.Duration) { p.p.stop(grace, nil) }

// LogPath is the file that holds the process's output.
func (p *Process) LogPath() string { return p.p.logPath }

// Tail is the last n lines of the process's output, for an error message.
func (p *Process) Tail(n int) string { return tailFile(p.p.logPath, n) }
