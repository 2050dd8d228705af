package cluster

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// AppendTolerationsKey appends to buf a key that tells apart any two lists
// of tolerations that differ, in their order: each string with its length
// before it, so that no value can pass for a separator. Pods of a workload
// share their tolerations, and what a key stands for (the nodes whose
// taints they tolerate) is kept once per key.
func AppendTolerationsKey(buf []byte, tolerations []corev1.Toleration) []byte {
	str := func(s string) {
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
	}
	buf = strconv.AppendInt(buf, int64(len(tolerations)), 10)
	for _, t := range tolerations {
		str(t.Key)
		str(string(t.Operator))
		str(t.Value)
		str(string(t.Effect))
		if t.TolerationSeconds == nil {
			buf = append(buf, '-')
		} else {
			buf = strconv.AppendInt(buf, *t.TolerationSeconds, 10)
			buf = append(buf, ';')
		}
	}
	return buf
}
