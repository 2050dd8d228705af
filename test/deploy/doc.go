// Package deploy proves the ways rebalancer is installed: the Dockerfile, the
// Helm chart in charts/rebalancer and the kustomize overlays in kustomize/.
//
// Its tests build helm and kustomize from the versions pinned in
// test/tools/deploy (once; see build.sh there), render the chart and the
// overlays, check them against the code (the RBAC `rebalancer rbac` prints,
// the policy and scheduler-configuration loaders), apply every rendered
// object to a real API server (test/harness), and run the binary built by the
// Dockerfile's own build line under the chart's ServiceAccount against it.
package deploy
