package engine

import (
	"slices"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
)

// PodVolumes returns what binding the pod's unbound WaitForFirstConsumer
// claims on node takes (volumebinding.Volumes); nothing when every claim
// is bound already or the profile does not run VolumeBinding's PreBind.
func (e *Engine) PodVolumes(snap *cluster.Snapshot, pod *cluster.Pod, node string) (volumebinding.PodVolumes, error) {
	if !e.preBind.volumes {
		return volumebinding.PodVolumes{Node: node, Timeout: e.preBind.timeout}, nil
	}
	return volumebinding.Volumes(snap, pod, node, e.preBind.timeout)
}

// preBindSettings are what PodVolumes reads of the profile, read once when
// the engine is built: whether VolumeBinding runs at PreBind, and its
// bindTimeoutSeconds.
type preBindSettings struct {
	volumes bool
	timeout time.Duration
}

func (e *Engine) readPreBindSettings() {
	e.preBind = preBindSettings{
		volumes: slices.Contains(e.profile.PointPlugins(framework.PointPreBind), volumebinding.Name),
		timeout: e.volumeBindTimeout(),
	}
}

// volumeBindTimeout is the profile's bindTimeoutSeconds. The profile was
// validated when the engine was built, so its args decode.
func (e *Engine) volumeBindTimeout() time.Duration {
	a, err := volumebinding.Args(e.profile.RawArgs(volumebinding.Name), "pluginConfig")
	if err != nil {
		return volumebinding.DefaultBindTimeout
	}
	return volumebinding.BindTimeout(a)
}
