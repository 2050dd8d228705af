//go:build !linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// maxRSSKiB is unknown where ru_maxrss is not in KiB (or absent): the scale
// test then logs 0.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }

// spawn runs argv and measures nothing.
func spawn(out string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = childEnv()
	start := time.Now()
	_ = cmd.Run()
	if err := os.WriteFile(out, []byte(fmt.Sprintf("0 0 %d\n", time.Since(start))), 0o600); err != nil {
		return 125
	}
	return cmd.ProcessState.ExitCode()
}

func vmHWMKiB(string) int64 { return 0 }
