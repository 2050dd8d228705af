package app

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// fileError names the flag (or argument) that gave a file that cannot be
// read, "--policy policy.yml: no such file or directory", so that the user
// knows which of several paths to fix. Other errors, about the content,
// already name the file and are returned as they are.
func fileError(flag, path string, err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) && pathErr.Path == path {
		return fmt.Errorf("%s %s: %w", flag, path, pathErr.Err)
	}
	return err
}

// snapshotError words an error reading --snapshot: the flag when the file
// cannot be read, the file's name when its content is wrong, on each line
// when there are several problems, as for a policy.
func snapshotError(path string, err error) error {
	if e := fileError("--snapshot", path, err); e != err {
		return e
	}
	if bad, ok := errors.AsType[*cluster.InvalidObjectsError](err); ok {
		lines := make([]string, len(bad.Problems))
		for i, p := range bad.Problems {
			lines[i] = path + ": " + p
		}
		return &cluster.InvalidObjectsError{Problems: lines}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// checkHasNodes refuses a snapshot with no node: nothing can be planned on
// it, and it is most often not a cluster dump at all (a policy given as
// --snapshot, say), which the user should hear about rather than read an
// empty plan.
func checkHasNodes(path string, objs cluster.Objects, ignored map[string]int) error {
	if len(objs.Nodes) > 0 {
		return nil
	}
	found := "nothing"
	if len(ignored) > 0 {
		found = cluster.IgnoredSummary(ignored)
	}
	return fmt.Errorf("%s: no Node in the file (it holds %s): --snapshot wants a cluster dump, such as `kubectl get nodes,pods,pdb,namespaces,deployments,replicasets,statefulsets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes -A -o yaml`", path, found)
}
