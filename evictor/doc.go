// Package evictor carries out a Plan through the policy/v1 Eviction API, so
// that the API server enforces every PodDisruptionBudget, and records a
// Kubernetes Event on each pod it evicts. A dry run does not use it at all:
// the plan is the report.
package evictor
