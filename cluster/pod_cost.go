package cluster

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// deletionCost reads the pod-deletion-cost annotation as the ReplicaSet
// controller does: a decimal int32 with no plus sign and no leading zero;
// anything else, or no annotation, costs 0, so that a typo neither
// protects a pod nor offers it first.
func deletionCost(annotations map[string]string) int32 {
	v, ok := annotations[corev1.PodDeletionCost]
	if !ok || !canonicalInt(v) {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// canonicalInt reports whether s starts as the API server's own rendering
// of an integer would: a minus sign, a non-zero digit, or "0" alone.
func canonicalInt(s string) bool {
	switch {
	case s == "":
		return false
	case s[0] == '-':
		return true
	case s[0] == '0':
		return s == "0"
	}
	return s[0] >= '1' && s[0] <= '9'
}
