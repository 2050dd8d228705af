// Package inputfile reads the files a user names (a policy, a scheduler
// configuration, a pod, a cluster dump) so that a wrong path fails at once
// with a clear error instead of reading without end: only regular files,
// and for Read no more than a limit, checked before the file is read.
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MiB is a mebibyte, the unit of the limits.
const MiB = 1 << 20

// TooLargeError is a file larger than the limit of what it holds.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("is %d bytes, larger than the limit of %d bytes (%s)", e.Size, e.Limit, human(e.Limit))
}

// NotRegularError is a path that names a directory, a device, a pipe or a
// socket: nothing a file of input is.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("is not a regular file (it is %s)", modeName(e.Mode))
}

// Read returns the content of the regular file at path, which must hold at
// most limit bytes. Its errors are *fs.PathError naming path, so that a
// caller words them as any other error opening the file.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "file", Path: path, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	// The file may grow between the check and the read.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "file", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "file", Path: path, Err: &TooLargeError{Size: int64(len(data)), Limit: limit}}
	}
	return data, nil
}

// Open opens the regular file at path for reading. It looks before it
// opens: opening a named pipe would wait for a writer.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "open" // what the user asked for
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "file", Path: path, Err: &NotRegularError{Mode: fi.Mode()}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced since it was looked at.
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &fs.PathError{Op: "file", Path: path, Err: &NotRegularError{Mode: fi.Mode()}}
		}
		return nil, err
	}
	return f, nil
}

func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "no plain file"
}

func human(n int64) string {
	if n%MiB == 0 {
		return fmt.Sprintf("%d MiB", n/MiB)
	}
	return fmt.Sprintf("%d KiB", n/1024)
}
