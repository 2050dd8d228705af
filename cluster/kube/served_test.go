package kube

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
)

// served is an API server for client's objects and reactors: it answers
// each LIST as client does, encoded as kube-apiserver encodes it, protobuf
// when the request accepts it and JSON otherwise, and an error as a Status
// with its code. A clientset of config for it reads through its REST
// clients, as run reads a cluster.
func served(t *testing.T, client *fake.Clientset) *rest.Config {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gvr, ns, ok := resourceOf(r.URL.Path)
		gvk, known := kindOf(gvr)
		if !ok || !known || r.Method != http.MethodGet {
			writeStatus(w, apierrors.NewNotFound(gvr.GroupResource(), r.URL.Path))
			return
		}
		var opts metav1.ListOptions
		if err := scheme.ParameterCodec.DecodeParameters(r.URL.Query(), gvr.GroupVersion(), &opts); err != nil {
			writeStatus(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		obj, err := client.Invokes(k8stesting.NewListActionWithOptions(gvr, gvk, ns, opts), nil)
		if err != nil {
			writeStatus(w, err)
			return
		}
		mediaType := runtime.ContentTypeJSON
		if strings.Contains(r.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
			mediaType = runtime.ContentTypeProtobuf
		}
		info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
		w.Header().Set("Content-Type", mediaType)
		if err := scheme.Codecs.EncoderForVersion(info.Serializer, gvr.GroupVersion()).Encode(obj, w); err != nil {
			t.Errorf("encoding %T: %v", obj, err)
		}
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL, QPS: 1000, Burst: 1000, ContentConfig: rest.ContentConfig{
		ContentType:        runtime.ContentTypeProtobuf,
		AcceptContentTypes: runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON,
	}}
}

// servedClient is a clientset reading client's objects through served.
func servedClient(t *testing.T, client *fake.Clientset) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(served(t, client))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// resourceOf reads /api/v1/pods, /apis/apps/v1/namespaces/shop/replicasets
// and the like.
func resourceOf(path string) (schema.GroupVersionResource, string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gvr schema.GroupVersionResource
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gvr.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gvr.Group, gvr.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return gvr, "", false
	}
	ns := ""
	if len(parts) == 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) != 1 {
		return gvr, "", false
	}
	gvr.Resource = parts[0]
	return gvr, ns, true
}

// kindOf is the kind of the objects of gvr in client-go's scheme.
func kindOf(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.GroupVersion() != gvr.GroupVersion() || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if plural, _ := meta.UnsafeGuessKindToResource(gvk); plural == gvr {
			return gvk, true
		}
	}
	return schema.GroupVersionKind{}, false
}

func writeStatus(w http.ResponseWriter, err error) {
	st := apierrors.NewInternalError(err).ErrStatus
	st.Message = err.Error()
	if s, ok := err.(apierrors.APIStatus); ok {
		st = s.Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	w.Header().Set("Content-Type", runtime.ContentTypeJSON)
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}
