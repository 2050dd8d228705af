package kube

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

func podReader(t *testing.T, cfg *rest.Config) *pageReader[corev1.PodList, *corev1.PodList, corev1.Pod] {
	return podReaderOf(t, cfg, func(k kindList[corev1.PodList, corev1.Pod]) kindList[corev1.PodList, corev1.Pod] { return k })
}

func podReaderOf(t *testing.T, cfg *rest.Config,
	kind func(kindList[corev1.PodList, corev1.Pod]) kindList[corev1.PodList, corev1.Pod]) *pageReader[corev1.PodList, *corev1.PodList, corev1.Pod] {
	t.Helper()
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	core := c.CoreV1()
	r := newPageReader[corev1.PodList, *corev1.PodList](kind(listOf(core.RESTClient(), "pods", core.Pods("").List,
		func(l *corev1.PodList) *[]corev1.Pod { return &l.Items })))
	if r == nil {
		t.Fatal("no page reader for a clientset of an API server")
	}
	return r
}

// Pages are decoded into two lists in turn, whose items keep their array:
// the third page is decoded where the first was, once listPages is done
// with it.
func TestPageReaderDecodesIntoTwoListsInTurn(t *testing.T) {
	client := fake.NewClientset()
	var limits []int64
	client.PrependReactor("list", "pods", podPages(25, &limits))
	r := podReader(t, served(t, client))

	var pages []*corev1.PodList
	var names []string
	opts := metav1.ListOptions{Limit: 10}
	for {
		l, err := r.list(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, l)
		for _, p := range l.Items {
			names = append(names, p.Name)
		}
		if opts.Continue = l.Continue; opts.Continue == "" {
			break
		}
	}
	if len(pages) != 3 || len(names) != 25 || names[0] != "p-00000" || names[24] != "p-00024" {
		t.Fatalf("read %d pages of pods %v, want 3 pages of p-00000 to p-00024", len(pages), names)
	}
	if pages[0] != pages[2] || pages[0] == pages[1] {
		t.Errorf("pages decoded into lists %p, %p, %p: want two lists in turn", pages[0], pages[1], pages[2])
	}
	if len(pages[2].Items) != 5 || cap(pages[2].Items) != 10 {
		t.Errorf("the last page holds %d items in an array of %d, want 5 in the first page's 10", len(pages[2].Items), cap(pages[2].Items))
	}
	if pages[2].Continue != "" || pages[2].RemainingItemCount != nil {
		t.Errorf("the last page kept continue %q and remaining count %v of the first", pages[2].Continue, pages[2].RemainingItemCount)
	}
	if got := pages[2].Items[0].Spec.Containers[0].Env; len(got) != 1 || got[0].Value != "production" {
		t.Errorf("the last page's first pod has env %v, want its own", got)
	}
}

func trimmedPods(k kindList[corev1.PodList, corev1.Pod]) kindList[corev1.PodList, corev1.Pod] {
	return k.trimmedBy(cluster.AppendTrimmedPod)
}

// A kind read trimmed gives the bytes each item was decoded from, and
// keeps a page's while the next page is read. Other kinds give none.
func TestPageReaderGivesEachItemsEncoding(t *testing.T) {
	client := fake.NewClientset()
	var limits []int64
	client.PrependReactor("list", "pods", podPages(15, &limits))
	cfg := served(t, client)

	r := podReaderOf(t, cfg, trimmedPods)
	first, err := r.list(context.Background(), metav1.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	encoded := r.encodingsOf(first)
	second, err := r.list(context.Background(), metav1.ListOptions{Limit: 10, Continue: first.Continue})
	if err != nil {
		t.Fatal(err)
	}
	if len(encoded) != len(first.Items) || len(r.encodingsOf(second)) != len(second.Items) {
		t.Fatalf("%d and %d encodings for pages of %d and %d pods", len(encoded), len(r.encodingsOf(second)),
			len(first.Items), len(second.Items))
	}
	for i, data := range encoded {
		var p corev1.Pod
		if err := p.Unmarshal(data); err != nil {
			t.Fatalf("pod %d of the first page: %v", i, err)
		}
		if !equality.Semantic.DeepEqual(p, first.Items[i]) {
			t.Errorf("the first page's pod %d decodes to %s once the second page is read, want %s",
				i, p.Name, first.Items[i].Name)
		}
	}
	// Decoded without what trimming drops.
	if p := first.Items[0]; p.ManagedFields != nil || p.Spec.Containers[0].Env != nil || p.Name != "p-00000" {
		t.Errorf("the first pod read trimmed holds managedFields %v and env %v", p.ManagedFields, p.Spec.Containers[0].Env)
	}

	pr := podReader(t, cfg)
	plain, err := pr.list(context.Background(), metav1.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := pr.encodingsOf(plain); got != nil {
		t.Errorf("a kind listed without encodings gave %d", len(got))
	}
}

// A server that answers in JSON is read as client-go reads it.
func TestPageReaderReadsJSON(t *testing.T) {
	client := fake.NewClientset()
	var limits []int64
	client.PrependReactor("list", "pods", podPages(3, &limits))
	cfg := served(t, client)
	cfg.ContentType, cfg.AcceptContentTypes = runtime.ContentTypeJSON, runtime.ContentTypeJSON
	r := podReaderOf(t, cfg, trimmedPods)
	l, err := r.list(context.Background(), metav1.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 3 || l.Items[2].Name != "p-00002" {
		t.Errorf("read %d pods from JSON, want p-00000 to p-00002", len(l.Items))
	}
	if got := r.encodingsOf(l); got != nil {
		t.Errorf("%d protobuf encodings of pods read from JSON, want none", len(got))
	}
}

// An answer of another kind is an error, not pods decoded from it.
func TestPageReaderRefusesAnotherKind(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &corev1.NodeList{Items: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}}}, nil
	})
	_, err := podReader(t, served(t, client)).list(context.Background(), metav1.ListOptions{Limit: 10})
	if err == nil || !strings.Contains(err.Error(), "a NodeList, not a PodList") {
		t.Errorf("list() error = %v, want it to say the kind is not a PodList", err)
	}
}

// A fake clientset has no REST client to stream from: it is listed typed.
func TestPageReaderNeedsARESTClient(t *testing.T) {
	core := fake.NewClientset().CoreV1()
	if r := newPageReader[corev1.PodList, *corev1.PodList](listOf(core.RESTClient(), "pods", core.Pods("").List,
		func(l *corev1.PodList) *[]corev1.Pod { return &l.Items })); r != nil {
		t.Error("a page reader for a fake clientset, want none")
	}
}

// protobufBody is obj as the API server writes it in protobuf.
func protobufBody(t testing.TB, obj runtime.Object, gv schema.GroupVersion) []byte {
	t.Helper()
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	var buf bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(info.Serializer, gv).Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// envelope finds what runtime.Unknown's decoder finds in a body, and
// refuses a body cut short.
func TestEnvelope(t *testing.T) {
	body := protobufBody(t, &corev1.PodList{Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}}}},
		corev1.SchemeGroupVersion)[len(protobufMagic):]
	var unk runtime.Unknown
	if err := unk.Unmarshal(body); err != nil {
		t.Fatal(err)
	}
	kind, raw, err := envelope(body)
	if err != nil || kind != "PodList" || !bytes.Equal(raw, unk.Raw) {
		t.Errorf("envelope() = %q, %d bytes, %v; want PodList and the %d bytes of the list", kind, len(raw), err, len(unk.Raw))
	}
	if _, _, err := envelope(body[:len(body)-1]); err == nil {
		t.Error("envelope() of a body cut short: no error")
	}
}

// Where both envelope and runtime.Unknown's decoder read a body, they read
// the same kind and bytes. (Where envelope cannot, the page reader uses
// runtime.Unknown's decoder.)
func FuzzEnvelope(f *testing.F) {
	f.Add(protobufBody(f, &corev1.PodList{Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "web-1"}}}},
		corev1.SchemeGroupVersion)[len(protobufMagic):])
	f.Add(protobufBody(f, &corev1.NodeList{}, corev1.SchemeGroupVersion)[len(protobufMagic):])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var unk runtime.Unknown
		kind, raw, err := envelope(data)
		if err != nil || unk.Unmarshal(data) != nil {
			return
		}
		if kind != unk.Kind || !bytes.Equal(raw, unk.Raw) {
			t.Errorf("envelope() = %q, %x; runtime.Unknown read %q, %x", kind, raw, unk.Kind, unk.Raw)
		}
	})
}
