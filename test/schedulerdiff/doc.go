// Package schedulerdiff holds a differential test of the scheduler engine
// against the real kube-scheduler: the same pods, one at a time, on the same
// kwok cluster. kube-scheduler is the reference; the engine must find a pod
// unschedulable exactly when kube-scheduler leaves it Pending, and must count
// the node kube-scheduler bound it to among its feasible nodes. After the
// generated pods come pods with volumes (volumes_test.go): volumes bound to
// their claims through claimRef, zone and hostname node affinity, zone
// labels, WaitForFirstConsumer classes, a ReadWriteOncePod claim in use and
// a CSINode's attach limit.
//
// TestPreemptionAgreesWithKubeScheduler (preemption_test.go) runs small
// clusters of full nodes, one case at a time, and a pod of higher priority:
// preemption.Decide must name the node kube-scheduler nominates and binds
// the pod to and the pods it deletes, or give kube-scheduler's message word
// for word when it leaves the pod Pending.
//
// The package has no code of its own; see diff_test.go.
package schedulerdiff
