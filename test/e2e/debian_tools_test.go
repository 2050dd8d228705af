package e2e

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startDebianTool installs a tool that comes from a Debian package with its
// script under test/tools (tool/install.sh), and runs it on a free local
// port, with the flags args gives for that address, until the test ends.
// Its output is logged when the test fails. It returns the address.
func startDebianTool(t *testing.T, tool, title string, args func(addr string) []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", filepath.Join(repoRoot, "test", "tools", tool, "install.sh")).Output()
	if err != nil {
		t.Fatalf("installing %s: %v\n%s", title, err, exitStderr(err))
	}
	bin := strings.TrimSpace(string(out))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, args(addr)...)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s log:\n%s", title, logs.String())
		}
	})
	return addr
}
