package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The release name and namespace the documentation installs with, which the
// kustomize overlays mirror.
const (
	docRelease   = "rebalancer"
	docNamespace = "rebalancer"
)

// The image the tests install. No image is published, so the chart and
// the overlays refuse to render without one (image_test.go).
const (
	testImageRepository = "registry.example.com/rebalancer"
	testImageTag        = "0.1.0"
	testImage           = testImageRepository + ":" + testImageTag
)

func chartDir(t testing.TB) string { return filepath.Join(repoRoot(t), "charts", "rebalancer") }

func testdata(name string) string {
	abs, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return abs
}

// withTestImage are the arguments that name testImage, as every install
// must; args given after them may override it.
var withTestImage = []string{"--set", "image.repository=" + testImageRepository + ",image.tag=" + testImageTag}

// helmTemplate renders the chart as `helm template` does, with testImage,
// and returns its objects.
func helmTemplate(t testing.TB, release, namespace string, args ...string) []*unstructured.Unstructured {
	t.Helper()
	helm := tools(t).helm
	cmd := append([]string{"template", release, chartDir(t), "--namespace", namespace}, withTestImage...)
	out := run(t, repoRoot(t), nil, helm, append(cmd, args...)...)
	return decodeObjects(t, out)
}

// kustomizeBuild renders a kustomization directory.
func kustomizeBuild(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	kustomize := tools(t).kustomize
	return decodeObjects(t, run(t, "", nil, kustomize, "build", dir))
}

var (
	kustomizeCopyOnce sync.Once
	kustomizeCopy     string
	kustomizeCopyErr  error
)

// kustomizeDir is an overlay of a copy of kustomize/ whose image.yaml names
// testImage, as a user sets it before the first build; the repository's
// own, which names none, is shippedKustomizeDir.
func kustomizeDir(t testing.TB, overlay string) string {
	t.Helper()
	kustomizeCopyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rebalancer-kustomize-")
		if err != nil {
			kustomizeCopyErr = err
			return
		}
		tempDirs = append(tempDirs, dir)
		kustomizeCopy = filepath.Join(dir, "kustomize")
		kustomizeCopyErr = copyKustomizeWithImage(shippedKustomizeDir(t, ""), kustomizeCopy, testImage)
	})
	if kustomizeCopyErr != nil {
		t.Fatalf("copying kustomize/: %v", kustomizeCopyErr)
	}
	return filepath.Join(kustomizeCopy, overlay)
}

func shippedKustomizeDir(t testing.TB, overlay string) string {
	return filepath.Join(repoRoot(t), "kustomize", overlay)
}

// copyKustomizeWithImage copies the kustomize tree src to dst and sets
// data.image of its base/image.yaml.
func copyKustomizeWithImage(src, dst, image string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	p := filepath.Join(dst, imageConfigMapFile)
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var cm map[string]any
	if err := yaml.Unmarshal(data, &cm); err != nil {
		return err
	}
	// The shipped file's data holds only a comment: null.
	cm["data"] = map[string]any{"image": image}
	out, err := yaml.Marshal(cm)
	if err != nil {
		return err
	}
	return os.WriteFile(p, out, 0o644)
}

// imageConfigMapFile is where, under kustomize/, the user names the image.
const imageConfigMapFile = "base/image.yaml"

func decodeObjects(t testing.TB, stream string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(stream), 4096)
	var objs []*unstructured.Unstructured
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decoding rendered objects: %v\n%s", err, stream)
		}
		// Integers stay int64, as the API machinery keeps them, not the
		// float64 encoding/json would make of them.
		var m map[string]any
		if err := utiljson.Unmarshal(raw, &m); err != nil {
			t.Fatalf("decoding rendered objects: %v\n%s", err, raw)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	if len(objs) == 0 {
		t.Fatalf("nothing rendered:\n%s", stream)
	}
	return objs
}

func key(o *unstructured.Unstructured) string {
	k := o.GetKind() + " "
	if o.GetNamespace() != "" {
		k += o.GetNamespace() + "/"
	}
	return k + o.GetName()
}

func keys(objs []*unstructured.Unstructured) []string {
	var ks []string
	for _, o := range objs {
		ks = append(ks, key(o))
	}
	sort.Strings(ks)
	return ks
}

func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s among %s", kind, name, strings.Join(keys(objs), ", "))
	return nil
}

func ofKind(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

// podSpec returns the pod template spec of a CronJob, a Job or a Deployment.
func podSpec(t testing.TB, o *unstructured.Unstructured) map[string]any {
	t.Helper()
	path := []string{"spec", "template", "spec"}
	if o.GetKind() == "CronJob" {
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	}
	spec, ok, err := unstructured.NestedMap(o.Object, path...)
	if err != nil || !ok {
		t.Fatalf("%s has no pod template: %v", key(o), err)
	}
	return spec
}

// workloads are the objects that run pods: the CronJob or Deployment of
// rebalancer run, the scheduler's Deployment and the validation hook's Job.
func workloads(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	return append(append(ofKind(objs, "CronJob"), ofKind(objs, "Deployment")...), ofKind(objs, "Job")...)
}

// hookAnnotation marks the objects Helm creates around an install or
// upgrade rather than as part of the release.
const hookAnnotation = "helm.sh/hook"

// releaseObjects drops Helm's hook objects: what stays is what the release
// keeps running, and what the kustomize overlays render too.
func releaseObjects(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if _, hook := o.GetAnnotations()[hookAnnotation]; !hook {
			out = append(out, o)
		}
	}
	return out
}

// containerArgs returns the args of the named container of a workload.
func containerArgs(t testing.TB, o *unstructured.Unstructured, container string) []string {
	t.Helper()
	c := container0(t, o, container)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	return args
}

func container0(t testing.TB, o *unstructured.Unstructured, name string) map[string]any {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(podSpec(t, o), "containers")
	for _, c := range cs {
		cm := c.(map[string]any)
		if cm["name"] == name {
			return cm
		}
	}
	t.Fatalf("%s has no container %q", key(o), name)
	return nil
}

// configMapData returns one key of a ConfigMap.
func configMapData(t testing.TB, o *unstructured.Unstructured, k string) string {
	t.Helper()
	v, ok, _ := unstructured.NestedString(o.Object, "data", k)
	if !ok {
		t.Fatalf("%s has no data key %q", key(o), k)
	}
	return v
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
