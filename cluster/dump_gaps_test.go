package cluster

import (
	"slices"
	"strings"
	"testing"
)

// Documents of a dump, joined with "---" by the cases.
const (
	gapNode = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"
	// A pod of a Deployment's ReplicaSet.
	gapDeploymentPod = `apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f, uid: u1, controller: true}]
spec: {nodeName: node-a, containers: [{name: web, image: web}]}
`
	gapBarePod = `apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: shop}
spec: {nodeName: node-a, containers: [{name: sh, image: busybox}]}
`
	// A pod that keeps away from the pods of namespaces labelled team=data.
	gapAntiAffinityPod = `apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop}
spec:
  nodeName: node-a
  containers: [{name: api, image: api}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {app: etl}}
        namespaceSelector: {matchLabels: {team: data}}
`
	// A pod written by hand: it names its class but has no spec.priority.
	gapHandWrittenPod = `apiVersion: v1
kind: Pod
metadata: {name: batch, namespace: shop}
spec: {nodeName: node-a, priorityClassName: batch-low, containers: [{name: b, image: b}]}
`
	gapReplicaSet = `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-7d9f
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u0, controller: true}]
`
	gapDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 1, selector: {matchLabels: {app: web}}}
`
	gapPDB = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
`
	// A running pod of a CronJob's Job, and one that has finished.
	gapJobPod = `apiVersion: v1
kind: Pod
metadata:
  name: report-29150000-q8d4z
  namespace: shop
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: report-29150000, uid: u2, controller: true}]
spec: {nodeName: node-a, containers: [{name: report, image: report}]}
status: {phase: Running}
`
	gapFinishedJobPod = `apiVersion: v1
kind: Pod
metadata:
  name: report-29149000-m2x7k
  namespace: shop
  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: report-29149000, uid: u3, controller: true}]
spec: {nodeName: node-a, containers: [{name: report, image: report}]}
status: {phase: Succeeded}
`
	gapJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: report-29150000
  namespace: shop
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: report, uid: u4, controller: true}]
spec: {template: {spec: {restartPolicy: Never, containers: [{name: report, image: report}]}}}
`
	// A pod of a StatefulSet, and its StatefulSet.
	gapStatefulSetPod = `apiVersion: v1
kind: Pod
metadata:
  name: postgres-0
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: postgres, uid: u5, controller: true}]
spec: {nodeName: node-a, containers: [{name: postgres, image: postgres}]}
`
	gapStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: postgres, namespace: shop}
spec: {replicas: 3, serviceName: postgres, selector: {matchLabels: {app: postgres}}}
`
	gapNamespace     = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
	gapPriorityClass = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: system-node-critical}\nvalue: 2000001000\n"
	// A pod with a claim, and the claim.
	gapClaimPod = `apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: shop}
spec:
  nodeName: node-a
  containers: [{name: db, image: db}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data-db-0}}]
`
	gapClaim          = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data-db-0, namespace: shop}\n"
	gapEmptyClaimList = "apiVersion: v1\nkind: PersistentVolumeClaimList\nitems: []\n"
	// What the API server returns for a LIST of a kind the cluster has none of.
	gapEmptyPDBList = "apiVersion: policy/v1\nkind: PodDisruptionBudgetList\nmetadata: {resourceVersion: \"7\"}\nitems: []\n"
	gapEmptyRSList  = "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSetList\",\"items\":[]}\n"
	// The autoscaler of the Deployment web, as kubectl get hpa prints it.
	gapAutoscaler = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
`
	gapEmptyAutoscalerList = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscalerList\nitems: []\n"
	// kubectl writes an empty generic List when nothing matched: it names no kind.
	gapEmptyKubectlList = "apiVersion: v1\nkind: List\nitems: []\n"
)

func TestGaps(t *testing.T) {
	tests := []struct {
		name  string
		docs  []string
		needs DumpNeeds
		// want is each gap's kind, with "?" when the cluster may have none.
		want []string
	}{
		{
			name: "a complete dump has no gap",
			docs: []string{gapNode, gapNamespace, gapPriorityClass, gapReplicaSet, gapPDB, gapDeploymentPod},
		},
		{
			name:  "a ReplicaSet of a Deployment, no Deployment, and implicit budgets",
			docs:  []string{gapNode, gapNamespace, gapPriorityClass, gapReplicaSet, gapEmptyPDBList, gapDeploymentPod},
			needs: DumpNeeds{ImplicitBudgets: true},
			want:  []string{"Deployment"},
		},
		{
			name:  "Deployments listed",
			docs:  []string{gapNode, gapNamespace, gapPriorityClass, gapDeployment, gapReplicaSet, gapEmptyPDBList, gapDeploymentPod},
			needs: DumpNeeds{ImplicitBudgets: true},
		},
		{
			name: "no Deployment, and implicit budgets off",
			docs: []string{gapNode, gapNamespace, gapPriorityClass, gapReplicaSet, gapEmptyPDBList, gapDeploymentPod},
		},
		{
			name: "pods of a Deployment without PDBs or ReplicaSets",
			docs: []string{gapNode, gapNamespace, gapDeploymentPod},
			want: []string{"PodDisruptionBudget?", "ReplicaSet"},
		},
		{
			name: "typed empty Lists say the cluster has none of the kind",
			docs: []string{gapNode, gapNamespace, gapEmptyPDBList, gapEmptyRSList, gapDeploymentPod},
		},
		{
			name: "kubectl's empty generic List names no kind",
			docs: []string{gapNode, gapNamespace, gapEmptyKubectlList, gapDeploymentPod},
			want: []string{"PodDisruptionBudget?", "ReplicaSet"},
		},
		{
			name: "a pod with a claim and no volume of any kind",
			docs: []string{gapNode, gapClaimPod},
			want: []string{"PersistentVolumeClaim"},
		},
		{
			name: "a pod with a claim, and the claims",
			docs: []string{gapNode, gapClaimPod, gapClaim},
		},
		{
			name: "a pod with a claim, and a typed empty List of claims",
			docs: []string{gapNode, gapClaimPod, gapEmptyClaimList},
		},
		{
			name: "bare pods need neither PDBs nor ReplicaSets",
			docs: []string{gapNode, gapBarePod},
		},
		{
			name: "no Namespace, and nothing selects namespaces by label",
			docs: []string{gapNode, gapBarePod},
		},
		{
			name:  "no Namespace, and the policy selects namespaces by label",
			docs:  []string{gapNode, gapBarePod},
			needs: DumpNeeds{NamespaceSelectors: true},
			want:  []string{"Namespace"},
		},
		{
			name: "no Namespace, and a pod's anti-affinity selects namespaces by label",
			docs: []string{gapNode, gapAntiAffinityPod},
			want: []string{"Namespace"},
		},
		{
			name:  "no PriorityClass, and the policy protects by a class of the cluster's",
			docs:  []string{gapNode, gapBarePod},
			needs: DumpNeeds{PriorityClasses: []string{"business-critical"}},
			want:  []string{"PriorityClass"},
		},
		{
			name:  "no PriorityClass, and the policy names a built-in class, whose value is known",
			docs:  []string{gapNode, gapBarePod},
			needs: DumpNeeds{PriorityClasses: []string{"system-cluster-critical"}},
		},
		{
			name: "no PriorityClass, and a pod names a class without spec.priority",
			docs: []string{gapNode, gapHandWrittenPod},
			want: []string{"PriorityClass"},
		},
		{
			name:  "no Job, and the policy keeps the pods of Jobs in place",
			docs:  []string{gapNode, gapEmptyPDBList, gapJobPod},
			needs: DumpNeeds{Jobs: true},
			want:  []string{"Job"},
		},
		{
			name:  "Jobs listed",
			docs:  []string{gapNode, gapEmptyPDBList, gapJob, gapJobPod},
			needs: DumpNeeds{Jobs: true},
		},
		{
			name: "no Job, and the policy moves the pods of Jobs whatever their Job",
			docs: []string{gapNode, gapEmptyPDBList, gapJobPod},
		},
		{
			name:  "no Job, and only finished pods of Jobs, which nothing keeps",
			docs:  []string{gapNode, gapEmptyPDBList, gapFinishedJobPod},
			needs: DumpNeeds{Jobs: true},
		},
		{
			name:  "no StatefulSet, and the policy keeps the pods of small workloads in place",
			docs:  []string{gapNode, gapEmptyPDBList, gapStatefulSetPod},
			needs: DumpNeeds{Replicas: true},
			want:  []string{"StatefulSet"},
		},
		{
			name:  "StatefulSets listed",
			docs:  []string{gapNode, gapEmptyPDBList, gapStatefulSet, gapStatefulSetPod},
			needs: DumpNeeds{Replicas: true},
		},
		{
			name: "no StatefulSet, and the policy has no minReplicas",
			docs: []string{gapNode, gapEmptyPDBList, gapStatefulSetPod},
		},
		{
			name:  "no HorizontalPodAutoscaler, and the policy may surge",
			docs:  []string{gapNode, gapNamespace, gapPriorityClass, gapDeployment, gapReplicaSet, gapPDB, gapDeploymentPod},
			needs: DumpNeeds{Autoscalers: true},
			want:  []string{"HorizontalPodAutoscaler?"},
		},
		{
			name:  "HorizontalPodAutoscalers listed",
			docs:  []string{gapNode, gapNamespace, gapPriorityClass, gapDeployment, gapReplicaSet, gapPDB, gapAutoscaler, gapDeploymentPod},
			needs: DumpNeeds{Autoscalers: true},
		},
		{
			name:  "a typed empty List of HorizontalPodAutoscalers",
			docs:  []string{gapNode, gapNamespace, gapPriorityClass, gapDeployment, gapReplicaSet, gapPDB, gapEmptyAutoscalerList, gapDeploymentPod},
			needs: DumpNeeds{Autoscalers: true},
		},
		{
			name: "no HorizontalPodAutoscaler, and the policy never surges",
			docs: []string{gapNode, gapNamespace, gapPriorityClass, gapDeployment, gapReplicaSet, gapPDB, gapDeploymentPod},
		},
		{
			name:  "no HorizontalPodAutoscaler, and no Deployment to surge",
			docs:  []string{gapNode, gapNamespace, gapEmptyPDBList, gapStatefulSet, gapStatefulSetPod},
			needs: DumpNeeds{Autoscalers: true},
		},
		{
			name:  "some PriorityClasses listed: the kind was dumped",
			docs:  []string{gapNode, gapPriorityClass, gapHandWrittenPod},
			needs: DumpNeeds{PriorityClasses: []string{"business-critical"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, _, err := Decode(strings.NewReader(strings.Join(tt.docs, "---\n")))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range Gaps(objs, tt.needs) {
				k := g.Kind
				if g.Maybe {
					k += "?"
				}
				got = append(got, k)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Gaps() = %v, want %v", got, tt.want)
			}
		})
	}
}

// A warning names the kind, what the plan does without it, and the kubectl
// command that adds it.
func TestGapWarning(t *testing.T) {
	objs, _, err := Decode(strings.NewReader(strings.Join([]string{gapNode, gapDeploymentPod, gapJobPod}, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	gaps := Gaps(objs, DumpNeeds{PriorityClasses: []string{"business-critical"}, Jobs: true})
	want := map[string][]string{
		"PodDisruptionBudget": {"dump.yaml lists no PodDisruptionBudget although 2 pods have a controller", "may plan evictions that a budget would refuse",
			"If the cluster has none, nothing is missing", "kubectl get pdb -A -o yaml", DumpCommand},
		"ReplicaSet":    {"1 pod is owned by a ReplicaSet", "Deployments cannot be found", "kubectl get replicasets -A -o yaml"},
		"PriorityClass": {"business-critical", "a priorityThreshold naming one refuses the plan", "kubectl get priorityclasses -o yaml"},
		"Job": {"dump.yaml lists no Job although 1 unfinished pod is owned by a Job", "podFailurePolicy ignores disruptions is unknown",
			"kubectl get jobs -A -o yaml"},
	}
	if len(gaps) != len(want) {
		t.Fatalf("%d gaps, want %d: %+v", len(gaps), len(want), gaps)
	}
	for _, g := range gaps {
		msg := g.Warning("dump.yaml")
		for _, w := range want[g.Kind] {
			if !strings.Contains(msg, w) {
				t.Errorf("%s warning lacks %q:\n%s", g.Kind, w, msg)
			}
		}
		if g.Kind != "PodDisruptionBudget" && strings.Contains(msg, "nothing is missing") {
			t.Errorf("%s warning says the dump may be complete, though the cluster cannot lack the kind:\n%s", g.Kind, msg)
		}
	}
}

// Without PodDisruptionBudgets a plan counts no budget; under
// evictable.requirePDB it moves nothing, and the warning says which.
func TestPDBGapEffect(t *testing.T) {
	tests := []struct {
		needs DumpNeeds
		want  string
	}{
		{want: "the plan counts no disruption budget, so it may plan evictions that a budget would refuse"},
		{needs: DumpNeeds{RequirePDB: true}, want: "no pod has a budget, so evictable.requirePDB keeps every one in place"},
	}
	objs, _, err := Decode(strings.NewReader(strings.Join([]string{gapNode, gapNamespace, gapReplicaSet, gapDeploymentPod}, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		gaps := Gaps(objs, tt.needs)
		if len(gaps) != 1 || gaps[0].Kind != "PodDisruptionBudget" || gaps[0].Effect != tt.want {
			t.Errorf("Gaps(%+v) = %+v, want one PodDisruptionBudget gap: %s", tt.needs, gaps, tt.want)
		}
	}
}

// A policy that may surge reads the autoscalers: the warning says what the
// plan does without them, and the command to dump again names them, as
// that of every other gap of the same plan does.
func TestAutoscalerGapWarning(t *testing.T) {
	objs, _, err := Decode(strings.NewReader(strings.Join([]string{gapNode, gapNamespace, gapReplicaSet, gapDeploymentPod}, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	withHPA := strings.Replace(DumpCommand, ",csinodes ", ",csinodes,hpa ", 1)
	gaps := Gaps(objs, DumpNeeds{Autoscalers: true})
	if len(gaps) != 2 || gaps[0].Kind != "PodDisruptionBudget" || gaps[1].Kind != "HorizontalPodAutoscaler" {
		t.Fatalf("Gaps() = %+v, want a PodDisruptionBudget and a HorizontalPodAutoscaler gap", gaps)
	}
	msg := gaps[1].Warning("dump.yaml")
	for _, w := range []string{"dump.yaml lists no HorizontalPodAutoscaler although 1 ReplicaSet is owned by a Deployment",
		"evictable.makeBeforeBreak may plan surges of Deployments an autoscaler scales",
		"If the cluster has none, nothing is missing", "kubectl get hpa -A -o yaml", withHPA} {
		if !strings.Contains(msg, w) {
			t.Errorf("warning lacks %q:\n%s", w, msg)
		}
	}
	if pdb := gaps[0].Warning("dump.yaml"); !strings.HasSuffix(pdb, withHPA) {
		t.Errorf("the PodDisruptionBudget warning does not end with %q:\n%s", withHPA, pdb)
	}
	if pdb := Gaps(objs, DumpNeeds{})[0].Warning("dump.yaml"); !strings.HasSuffix(pdb, DumpCommand) {
		t.Errorf("without surges, the warning does not end with %q:\n%s", DumpCommand, pdb)
	}
}
