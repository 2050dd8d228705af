//go:build !linux

package harness

import (
	"os/exec"
	"syscall"
)

// Pdeathsig is Linux-only; elsewhere only Stop and the cleanups guard
// against orphans.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
