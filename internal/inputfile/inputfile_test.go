package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("a", size)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		limit   int64
		wantErr string
	}{
		{name: "a file within the limit", path: write("small", 10), limit: 10},
		{name: "a file above the limit", path: write("large", 2*MiB+1), limit: 2 * MiB,
			wantErr: "file " + dir + "/large: is 2097153 bytes, larger than the limit of 2097152 bytes (2 MiB)"},
		{name: "a device that never ends", path: "/dev/zero", limit: MiB,
			wantErr: "file /dev/zero: is not a regular file (it is a character device)"},
		{name: "a directory", path: dir, limit: MiB,
			wantErr: "file " + dir + ": is not a regular file (it is a directory)"},
		{name: "a named pipe, which would wait for a writer", path: fifo, limit: MiB,
			wantErr: "file " + fifo + ": is not a regular file (it is a named pipe)"},
		{name: "no such file", path: filepath.Join(dir, "missing"), limit: MiB,
			wantErr: "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Read(tt.path, tt.limit)
			if tt.wantErr == "" {
				if err != nil || int64(len(data)) != tt.limit {
					t.Fatalf("Read() = %d bytes, %v", len(data), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Read() error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
