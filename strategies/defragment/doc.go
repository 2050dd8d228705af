// Package defragment is DefragmentForPendingPods: for a pod that
// kube-scheduler found no node for because the free capacity is scattered,
// it moves the fewest running pods that make room for it on one node, and
// plans the pending pod there.
package defragment
