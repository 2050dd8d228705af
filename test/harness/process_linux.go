package harness

import (
	"os/exec"
	"syscall"
)

func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own process group, so stop can signal the component and anything
		// it forked without touching the test binary's group.
		Setpgid: true,
		// See spawn: the component must not outlive a killed test binary.
		Pdeathsig: syscall.SIGKILL,
	}
}
