// Package nodetaints is RemovePodsViolatingNodeTaints: it moves pods off
// nodes with a NoSchedule taint they do not tolerate, and, with its guard
// rule, keeps other strategies' moves off nodes whose PreferNoSchedule
// taints it would act on.
package nodetaints
