//go:build race

package planner

// raceDetector tells tests that the race detector slows them down.
const raceDetector = true
