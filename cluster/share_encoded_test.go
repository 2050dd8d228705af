package cluster

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// servedReplica is a pod of the ReplicaSet web-7d4b9 as the API server
// serves it: with its own service account token volume, mounted in its
// container, and the CPU it requests.
func servedReplica(name, token, cpu string) *corev1.Pod {
	controller := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "shop",
			Labels:          map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9", UID: "6f1c", Controller: &controller}},
		},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: token, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}},
			Containers: []corev1.Container{{
				Name: "web", Image: "web:1",
				Env:          []corev1.EnvVar{{Name: "MODE", Value: "production"}},
				VolumeMounts: []corev1.VolumeMount{{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}},
				Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
			}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
					PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname"}}},
			}},
		},
	}
}

func encode(t testing.TB, p *corev1.Pod) []byte {
	t.Helper()
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// trimmedEncoding is a pod's encoding as the API server's reader decodes
// it.
func trimmedEncoding(t testing.TB, data []byte) []byte {
	t.Helper()
	trimmed, ok := AppendTrimmedPod(nil, data)
	if !ok {
		t.Fatal("AppendTrimmedPod() cannot read the pod")
	}
	return trimmed
}

// decodeTrimmed is what the API server's reader holds of a pod before it
// shares it.
func decodeTrimmed(t testing.TB, data []byte) *corev1.Pod {
	t.Helper()
	var p corev1.Pod
	if err := p.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
	Trim(&p)
	return &p
}

func TestShareEncodedSharesWhatReplicasHaveInCommon(t *testing.T) {
	tests := []struct {
		name   string
		second *corev1.Pod
		// cut, when set, gives the sharer only the pod's bytes but the last.
		cut bool
		// same lists the values the second pod shares with the first.
		same map[string]bool
	}{
		{
			name:   "replicas, each with a token volume of its own, share their spec's values",
			second: servedReplica("web-2", "kube-api-access-7xk2p", "500m"),
			same:   map[string]bool{"owners": true, "containers": true, "tolerations": true, "affinity": true},
		},
		{
			name:   "a replica that requests more CPU keeps containers of its own",
			second: servedReplica("web-2", "kube-api-access-7xk2p", "750m"),
			same:   map[string]bool{"owners": true, "tolerations": true, "affinity": true},
		},
		{
			name: "a pod of another ReplicaSet keeps owners of its own",
			second: func() *corev1.Pod {
				p := servedReplica("web-2", "kube-api-access-7xk2p", "500m")
				p.OwnerReferences[0].Name, p.OwnerReferences[0].UID = "web-5c8f2", "9a0e"
				return p
			}(),
			same: map[string]bool{"containers": true, "tolerations": true, "affinity": true},
		},
		{
			name:   "bytes that do not parse: the pod is shared by its values",
			second: servedReplica("web-2", "kube-api-access-7xk2p", "500m"),
			cut:    true,
			same:   map[string]bool{"owners": true, "containers": true, "tolerations": true, "affinity": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewPodSharer()
			firstData := trimmedEncoding(t, encode(t, servedReplica("web-1", "kube-api-access-q9d4m", "500m")))
			first := decodeTrimmed(t, firstData)
			s.ShareEncoded(first, firstData)

			secondData := trimmedEncoding(t, encode(t, tt.second))
			second, alone := decodeTrimmed(t, secondData), decodeTrimmed(t, secondData)
			if tt.cut {
				secondData = secondData[:len(secondData)-1]
			}
			s.ShareEncoded(second, secondData)
			for _, v := range []struct {
				name string
				a, b any
			}{
				{"owners", first.OwnerReferences, second.OwnerReferences},
				{"containers", first.Spec.Containers, second.Spec.Containers},
				{"tolerations", first.Spec.Tolerations, second.Spec.Tolerations},
				{"affinity", first.Spec.Affinity, second.Spec.Affinity},
			} {
				got := reflect.ValueOf(v.a).UnsafePointer() == reflect.ValueOf(v.b).UnsafePointer()
				if got != tt.same[v.name] {
					t.Errorf("%s shared = %v, want %v", v.name, got, tt.same[v.name])
				}
			}
			// Sharing changes no value: each pod is what it is decoded alone.
			if !reflect.DeepEqual(second, alone) {
				t.Errorf("the second pod shared after the first differs from the same pod decoded alone")
			}
		})
	}
}

// A pod's bytes are read as the generated decoder reads them: a repeated
// field's items wherever they are, a message field set twice merged.
func TestEncodingOf(t *testing.T) {
	pod := encode(t, servedReplica("web-1", "kube-api-access-q9d4m", "500m"))
	spec := fieldBytes(t, pod, podSpec)
	tests := []struct {
		name   string
		pod    []byte
		wantOK bool
	}{
		{name: "as the API server encodes it", pod: pod, wantOK: true},
		{name: "cut short", pod: pod[:len(pod)-1]},
		{name: "its spec set twice, which decoding merges", pod: protowire.AppendBytes(protowire.AppendTag(
			append([]byte{}, pod...), podSpec, protowire.BytesType), spec)},
		{name: "its spec not a message", pod: protowire.AppendVarint(protowire.AppendTag(nil, podSpec, protowire.VarintType), 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, ok := encodingOf(tt.pod)
			if ok != tt.wantOK {
				t.Fatalf("encodingOf() ok = %v, want %v", ok, tt.wantOK)
			}
			if ok && (enc[encContainers] == nil || enc[encOwnerReferences] == nil || enc[encAffinity] == nil || enc[encSpread] != nil) {
				t.Errorf("encodingOf() found containers %t, owners %t, affinity %t, spread constraints %t; want all but the spread constraints",
					enc[encContainers] != nil, enc[encOwnerReferences] != nil, enc[encAffinity] != nil, enc[encSpread] != nil)
			}
		})
	}

	// Tolerations on both sides of the containers: one span holds both.
	var split corev1.Pod
	split.Spec.Tolerations = []corev1.Toleration{{Key: "a"}}
	before := encode(t, &split)
	split.Spec.Tolerations = []corev1.Toleration{{Key: "b"}}
	after := encode(t, &split)
	tolA, tolB := fieldBytes(t, fieldBytes(t, before, podSpec), 22), fieldBytes(t, fieldBytes(t, after, podSpec), 22)
	var specMsg []byte
	specMsg = protowire.AppendBytes(protowire.AppendTag(specMsg, 22, protowire.BytesType), tolA)
	specMsg = protowire.AppendBytes(protowire.AppendTag(specMsg, 2, protowire.BytesType), []byte{0x0a, 0x01, 'c'})
	specMsg = protowire.AppendBytes(protowire.AppendTag(specMsg, 22, protowire.BytesType), tolB)
	data := protowire.AppendBytes(protowire.AppendTag(nil, podSpec, protowire.BytesType), specMsg)
	enc, ok := encodingOf(data)
	if !ok || !strings.Contains(string(enc[encTolerations]), "a") || !strings.Contains(string(enc[encTolerations]), "b") {
		t.Errorf("encodingOf() of tolerations around a container = %q, %v; want both tolerations", enc[encTolerations], ok)
	}
}

// fieldBytes is the value of the first occurrence of message field num.
func fieldBytes(t *testing.T, msg []byte, num protowire.Number) []byte {
	t.Helper()
	for off := 0; off < len(msg); {
		n, _, value, end, ok := nextField(msg, off)
		if !ok {
			t.Fatal("bytes that do not parse")
		}
		if n == num {
			v, _ := protowire.ConsumeBytes(msg[value:end])
			return v
		}
		off = end
	}
	t.Fatalf("no field %d", num)
	return nil
}

// The container fields left out of a pod's bytes are exactly those
// trimContainer drops: one it keeps would be lost, one it drops decoded
// for nothing.
func TestTrimmedContainerFieldsAreThoseTrimmingDrops(t *testing.T) {
	typ := reflect.TypeFor[corev1.Container]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		num := protobufNumber(t, f)
		var c corev1.Container
		reflect.ValueOf(&c).Elem().Field(i).Set(nonZero(f.Type))
		trimContainer(&c)
		dropped := reflect.ValueOf(c).Field(i).IsZero()
		if left := trimmedContainerFields&(1<<num) != 0; dropped != left {
			t.Errorf("Container.%s (field %d): trimContainer drops it: %v; left out of the bytes: %v",
				f.Name, num, dropped, left)
		}
	}
}

func protobufNumber(t *testing.T, f reflect.StructField) protowire.Number {
	t.Helper()
	parts := strings.Split(f.Tag.Get("protobuf"), ",")
	if len(parts) < 2 {
		t.Fatalf("Container.%s has no protobuf field number", f.Name)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	return protowire.Number(n)
}

// nonZero is a value of type t that is not its zero value.
func nonZero(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(nonZero(t.Key()), reflect.New(t.Elem()).Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(nonZero(t.Field(i).Type))
				break
			}
		}
	default:
		panic("nonZero: no value of kind " + t.Kind().String())
	}
	return v
}

// Whatever bytes pods arrive in, decoding them less what trimming drops
// and sharing them by those bytes leaves each pod the value it has when
// decoded whole, alone, and trimmed.
func FuzzShareEncoded(f *testing.F) {
	replica := encode(f, servedReplica("web-1", "kube-api-access-q9d4m", "500m"))
	f.Add(replica, encode(f, servedReplica("web-2", "kube-api-access-7xk2p", "500m")))
	f.Add(replica, encode(f, servedReplica("web-2", "kube-api-access-7xk2p", "750m")))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var p corev1.Pod
		if p.Unmarshal(a) != nil || p.Unmarshal(b) != nil {
			return
		}
		s := NewPodSharer()
		for _, data := range [][]byte{a, b, a, b} {
			alone := decodeTrimmed(t, data)
			trimmed, ok := AppendTrimmedPod(nil, data)
			if !ok {
				s.Share(decodeTrimmed(t, data))
				continue
			}
			var shared corev1.Pod
			if err := shared.Unmarshal(trimmed); err != nil {
				t.Fatalf("the pod decodes, its bytes less what trimming drops do not: %v", err)
			}
			Trim(&shared)
			s.ShareEncoded(&shared, trimmed)
			if !reflect.DeepEqual(&shared, alone) {
				t.Fatalf("a pod decoded without what trimming drops and shared by its bytes differs from the pod decoded whole and trimmed")
			}
		}
	})
}
