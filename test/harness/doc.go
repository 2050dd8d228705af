// Package harness runs a real, throw-away Kubernetes control plane on
// loopback for rebalancer's integration tests: etcd, kube-apiserver,
// kube-controller-manager, optionally kube-scheduler, and kwok, which plays the
// kubelet for fake nodes so that pods bound to them become Running without any
// container runtime.
//
// The binaries are built from pinned module versions by test/tools/build.sh
// into a cache outside the repository (see EnsureBinaries and README.md), so a
// fresh clone needs nothing but Go and access to the Go module proxy.
//
// Tests get a ControlPlane from Start, with a kubeconfig and a client that act
// as cluster admin, helpers to create kwok nodes and workloads, a way to mint
// kubeconfigs for ServiceAccounts (to run the product under restricted RBAC),
// and StopAPIServer/StartAPIServer for fault injection. Every process is
// stopped by PID when the control plane is stopped; component logs are kept
// when a test fails.
package harness
