// Package podlifetime is PodLifeTime: it moves pods past a maximum age, or
// in given states, conditions or exit codes, the oldest first.
package podlifetime
