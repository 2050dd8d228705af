// Package highnodeutilization is HighNodeUtilization: it empties the least
// used nodes onto the others, so that the cluster can shrink; its guard
// rule keeps other strategies' pods off the nodes it empties.
package highnodeutilization
