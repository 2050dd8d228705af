// Package nodeaffinity is RemovePodsViolatingNodeAffinity: it moves pods
// whose node no longer satisfies their required node affinity, or, with
// preferredDuringSchedulingIgnoredDuringExecution, pods for which another
// node scores higher; its guard rule keeps other moves from lowering a
// pod's preferred score.
package nodeaffinity
