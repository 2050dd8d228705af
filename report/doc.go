// Package report presents a plan and what became of it: a table for people,
// JSON or YAML for programs, and Prometheus metrics that survive a CronJob's
// short life by being pushed to a Pushgateway.
package report
