// Package lownodeutilization is LowNodeUtilization: it moves pods off
// over-utilized nodes onto under-utilized ones, within each node pool; its
// guard rule keeps every move from taking a node above its target.
package lownodeutilization
