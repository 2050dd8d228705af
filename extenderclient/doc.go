// Package extenderclient calls the extenders of a KubeSchedulerConfiguration
// over HTTP, as kube-scheduler does: it implements engine.Extender for the
// engine's decisions, and binds through the extender that has a bindVerb.
// It is the edge of the pure engine; nothing in the core imports it.
package extenderclient
