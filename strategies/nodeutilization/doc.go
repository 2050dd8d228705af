// Package nodeutilization is what LowNodeUtilization and
// HighNodeUtilization share: node pools and their validation (NodePool),
// thresholds turned into absolute limits (Bands), what a node's
// utilization is read from (Meter: requests, metrics.k8s.io usage or a
// Prometheus rating), the room check of a target (HasRoom), and the log of
// how nodes were classified.
package nodeutilization
