package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kube-rebalancer/rebalancer/internal/inputfile"
)

// dumpScheme knows the API groups a snapshot reads objects from, whole, so
// that the other kinds of those groups (a Service, a Deployment) decode and
// are counted as ignored like any kind of another group. It is this
// package's own, not client-go's, so that cluster does not import client-go.
var dumpScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme, schedulingv1.AddToScheme, nodev1.AddToScheme,
		storagev1.AddToScheme, autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	s.AddKnownTypes(MetricsGroupVersion, &NodeMetrics{}, &PodMetrics{})
	return s
}()

// dumpDecoder decodes without conversion or defaulting: objects keep the
// fields the dump holds.
var dumpDecoder = serializer.NewCodecFactory(dumpScheme).UniversalDeserializer()

// ReadFile reads the objects of a cluster dump, as written by
//
//	kubectl get nodes,pods,pdb,namespaces,deployments,replicasets,statefulsets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes -A -o yaml
//
// The file may hold a List (kind: List or any *List kind), a stream of YAML
// documents separated by "---", a stream of JSON objects, or a mix. Objects of
// kinds a snapshot does not use are counted in ignored, by kind, and
// otherwise left out. RuntimeClasses (add runtimeclasses to the command) are
// read for placing a new pod, HorizontalPodAutoscalers (add hpa, for a
// policy that may surge) for telling which Deployments an autoscaler scales.
func ReadFile(path string) (objs Objects, ignored map[string]int, err error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return Objects{}, nil, err
	}
	defer f.Close()
	return Decode(f)
}

// Decode reads objects from a stream in any of the forms ReadFile accepts.
// Every object that does not decode is reported at once (up to
// maxReportedObjects, then a count), each named by kind, namespace and name
// (or, without a name, by its document, counted from 1, and its item in a
// List) with every field of it that does not decode, as kube-apiserver
// reports an invalid object.
func Decode(r io.Reader) (objs Objects, ignored map[string]int, err error) {
	return decode(r, goruntime.GOMAXPROCS(0))
}

// decode is Decode with decoders workers decoding the items of Lists
// (see listDecoder); with fewer than two, items are decoded as they are
// read.
func decode(r io.Reader, decoders int) (objs Objects, ignored map[string]int, err error) {
	ignored = make(map[string]int)
	src, err := readSeeker(r)
	if err != nil {
		return Objects{}, nil, err
	}
	origin, err := src.Seek(0, io.SeekCurrent)
	if err != nil {
		return Objects{}, nil, err
	}
	pods, err := countPods(src, origin)
	if err != nil {
		return Objects{}, nil, fmt.Errorf("%s: %w", document(1), err)
	}
	objs.Pods = make([]corev1.Pod, 0, pods)
	br := bufio.NewReaderSize(src, 64*1024)
	var bad objectErrors
	objs.shared = newSharer()
	isJSON := looksLikeJSON(br)
	objs.shared.json = isJSON
	workers := startItemWorkers(isJSON, decoders)
	objs.workers = workers
	defer func() {
		workers.stop()
		objs.shared, objs.workers = nil, nil
	}()
	if isJSON {
		err = objs.decodeJSON(src, origin, ignored, &bad)
	} else {
		err = objs.decodeYAML(&lineReader{src: src, origin: origin, br: br}, ignored, &bad)
	}
	if err != nil {
		return Objects{}, nil, err
	}
	if bad.objects > 0 {
		// What the API server would refuse among the objects that did
		// decode belongs in the same report, not in the next attempt.
		quantityProblems(&objs, &bad)
		return Objects{}, nil, bad.err()
	}
	switch {
	case len(objs.Pods) == 0:
		objs.Pods = nil
	case cap(objs.Pods)-len(objs.Pods) > len(objs.Pods)/8:
		// More looked like pods than were: the snapshot keeps its pods
		// for the whole run.
		objs.Pods = slices.Clone(objs.Pods)
	}
	return objs, ignored, nil
}

// looksLikeJSON peeks at the first significant byte of the stream.
func looksLikeJSON(br *bufio.Reader) bool {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if err != nil || len(b) < n {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		default:
			return c == '{' || c == '['
		}
	}
}

// decodeJSON reads a stream of JSON objects, a List's items one by one. The
// error is the stream's, when it cannot be read; bad holds what is wrong
// with its content.
func (o *Objects) decodeJSON(src io.ReadSeeker, origin int64, ignored map[string]int, bad *objectErrors) error {
	s := &jsonStream{src: src, origin: origin}
	if err := s.seek(0); err != nil {
		return fmt.Errorf("%s: %w", document(1), err)
	}
	for doc := 1; ; doc++ {
		start := s.offset()
		cp := o.checkpoint(ignored, bad)
		s.rec.start(s.dec.Buffered())
		done, ok := o.streamJSONList(s, doc, ignored, bad)
		if done {
			return nil
		}
		if ok {
			continue
		}
		// Read again whole, as the stream's first decoder would have.
		o.rollback(cp, ignored, bad)
		if err := s.seek(start); err != nil {
			return fmt.Errorf("%s: %w", document(doc), err)
		}
		var raw json.RawMessage
		if err := s.dec.Decode(&raw); err != nil {
			var syntax *json.SyntaxError
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF):
				// Nothing after a syntax error can be told apart.
				bad.add(document(doc), err.Error())
				return nil
			}
			return fmt.Errorf("%s: %w", document(doc), err)
		}
		o.addRaw(raw, ignored, doc, bad)
	}
}

// jsonStream is a JSON decoder that can start again at any offset of the
// stream, and records a document until it is known to be a List.
type jsonStream struct {
	src    io.ReadSeeker
	origin int64
	base   int64 // the offset, from origin, of the decoder's first byte
	br     *bufio.Reader
	rec    recorder
	dec    *json.Decoder
}

func (s *jsonStream) offset() int64 { return s.base + s.dec.InputOffset() }

func (s *jsonStream) seek(offset int64) error {
	if _, err := s.src.Seek(s.origin+offset, io.SeekStart); err != nil {
		return err
	}
	if s.br == nil {
		s.br = bufio.NewReaderSize(s.src, 64*1024)
	} else {
		s.br.Reset(s.src)
	}
	s.rec = recorder{r: s.br}
	s.dec = json.NewDecoder(&s.rec)
	s.base = offset
	return nil
}

// resumeAfterItems goes on reading the List after its items, whose ']'
// ends at offset, as if the decoder had read them: it is given a List
// whose items are what it read.
func (s *jsonStream) resumeAfterItems(offset int64) error {
	const read = `{"items":[]`
	if _, err := s.src.Seek(s.origin+offset, io.SeekStart); err != nil {
		return err
	}
	s.br.Reset(s.src)
	s.rec = recorder{r: io.MultiReader(strings.NewReader(read), s.br)}
	s.dec = json.NewDecoder(&s.rec)
	s.base = offset - int64(len(read))
	for range 4 {
		if _, err := s.dec.Token(); err != nil {
			return err
		}
	}
	return nil
}

// splitJSONItems reads the items of a JSON array, after its '[' and up to
// and including its ']', passing add each; they are objects, told apart
// without checking they are valid JSON (the workers do). n is the bytes
// read; ok is false for an array of anything else, or one that does not
// end.
func splitJSONItems(r *bufio.Reader, add func(item []byte)) (n int64, ok bool) {
	next := func() (byte, bool) {
		for {
			c, err := r.ReadByte()
			if err != nil {
				return 0, false
			}
			n++
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				return c, true
			}
		}
	}
	c, ok := next()
	if ok && c == ']' {
		return n, true
	}
	for ok && c == '{' {
		item, read, done := readJSONObject(r)
		n += read
		if !done {
			return n, false
		}
		add(item)
		switch c, ok = next(); {
		case ok && c == ']':
			return n, true
		case ok && c == ',':
			c, ok = next()
		default:
			return n, false
		}
	}
	return n, false
}

// readJSONObject reads an object after its '{', up to its '}', by its
// strings and brackets.
func readJSONObject(r *bufio.Reader) (item []byte, n int64, ok bool) {
	item = []byte{'{'}
	depth, inString, escaped := 1, false, false
	for {
		if r.Buffered() == 0 {
			if _, err := r.Peek(1); err != nil {
				return nil, n, false
			}
		}
		buf, _ := r.Peek(r.Buffered())
		for i := 0; i < len(buf); i++ {
			switch c := buf[i]; {
			case escaped:
				escaped = false
			case inString:
				j := bytes.IndexAny(buf[i:], `"\`)
				if j < 0 {
					i = len(buf)
					continue
				}
				i += j
				escaped = buf[i] == '\\'
				inString = escaped
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					item = append(item, buf[:i+1]...)
					_, _ = r.Discard(i + 1)
					return item, n + int64(i+1), true
				}
			}
		}
		item = append(item, buf...)
		n += int64(len(buf))
		_, _ = r.Discard(len(buf))
	}
}

// streamJSONList decodes the next document when it is a List, item by
// item: ok. done is the end of the stream. Anything else (an object that
// is not a List, a syntax error) is not ok and is left to be read whole;
// an object that is not a List comes from what was recorded.
func (o *Objects) streamJSONList(s *jsonStream, doc int, ignored map[string]int, bad *objectErrors) (done, ok bool) {
	start := s.offset()
	tok, err := s.dec.Token()
	if errors.Is(err, io.EOF) {
		return true, false
	}
	if err != nil || tok != json.Delim('{') {
		return false, false
	}
	var (
		apiVersion, kind string
		items            = -1
		// itemsKind is the List's kind and apiVersion as its items were
		// decoded: kubectl writes them after the items.
		itemsKind string
		mixed     bool
		list      = o.listDecoder(ignored, bad)
	)
	// Whatever happens next, the items given so far are added first.
	defer list.flush()
	for s.dec.More() {
		tok, err := s.dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return false, false
		}
		switch {
		case key == "items":
			if items >= 0 {
				return false, false
			}
			if tok, err := s.dec.Token(); err != nil || tok != json.Delim('[') {
				return false, false
			}
			s.rec.stop()
			items = 0
			itemsKind = apiVersion + " " + kind
			at := s.offset()
			n, ok := splitJSONItems(bufio.NewReaderSize(io.MultiReader(s.dec.Buffered(), s.br), 1<<20), func(it []byte) {
				list.addItem(listItem{data: it, unchecked: true, apiVersion: apiVersion, kind: kind, doc: doc, i: items})
				items++
			})
			if !ok || s.resumeAfterItems(at+n) != nil {
				return false, false
			}
			continue
		case strings.EqualFold(key, "items"), strings.EqualFold(key, "kind"), strings.EqualFold(key, "apiVersion"):
			if key != "kind" && key != "apiVersion" {
				return false, false // read as encoding/json reads it: any case
			}
		}
		var raw json.RawMessage
		if err := s.dec.Decode(&raw); err != nil {
			return false, false
		}
		switch key {
		case "kind":
			kind = ""
			if json.Unmarshal(raw, &kind) != nil {
				return false, false
			}
		case "apiVersion":
			apiVersion = ""
			if json.Unmarshal(raw, &apiVersion) != nil {
				return false, false
			}
		}
	}
	if _, err := s.dec.Token(); err != nil {
		return false, false
	}
	if list.flush(); list.whole {
		return false, false
	}
	if items < 0 {
		// Not a List with items: the object is what was recorded.
		raw := bytes.TrimLeft(s.rec.buf[:s.offset()-start], " \t\r\n")
		o.addRaw(raw, ignored, doc, bad)
		return false, true
	}
	itemKind := strings.TrimSuffix(kind, "List")
	if kind == itemKind || !decodedAs(items, mixed, itemsKind, apiVersion, kind) {
		return false, false
	}
	o.listed(itemKind)
	return false, true
}

// decodedAs reports whether the items of a List were decoded as its final
// apiVersion and kind say: the same values all along (itemsKind, unless
// mixed), or values that default no item's kind either way.
func decodedAs(items int, mixed bool, itemsKind, apiVersion, kind string) bool {
	if items == 0 {
		return true
	}
	if mixed {
		return false
	}
	if itemsKind == apiVersion+" "+kind {
		return true
	}
	_, was, _ := strings.Cut(itemsKind, " ")
	return strings.TrimSuffix(was, "List") == "" && strings.TrimSuffix(kind, "List") == ""
}

// decodeYAML reads a stream of YAML documents, a List as kubectl writes it
// item by item. The error is the stream's, when it cannot be read; bad
// holds what is wrong with its content.
func (o *Objects) decodeYAML(lines *lineReader, ignored map[string]int, bad *objectErrors) error {
	for doc := 1; ; doc++ {
		data, err := o.streamYAMLList(lines, doc, ignored, bad)
		if errors.Is(err, io.EOF) {
			return nil
		}
		var badSeparator badSeparatorError
		if errors.As(err, &badSeparator) {
			// The API machinery's YAML reader stops there too: what
			// follows cannot be told apart into documents.
			bad.add(document(doc), err.Error())
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", document(doc), err)
		}
		if data == nil {
			continue
		}
		if list, ok := splitBlockList(data); ok {
			cp := o.checkpoint(ignored, bad)
			d := o.listDecoder(ignored, bad)
			for i, it := range list.items {
				d.add(it, true, list.apiVersion, list.kind, doc, i)
			}
			d.flush()
			if !d.whole {
				o.listed(strings.TrimSuffix(list.kind, "List"))
				continue
			}
			// An item refers to another's anchor: the List is converted whole.
			o.rollback(cp, ignored, bad)
		}
		raw, err := yamlToJSON(data, "")
		if err != nil {
			bad.report(document(doc), err)
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue // an empty document, as between two "---"
		}
		o.addRaw(raw, ignored, doc, bad)
	}
}

// streamYAMLList decodes the next document, item by item, when it is a
// List as kubectl writes it; otherwise it returns the document whole for
// the caller to decode. io.EOF is the end of the stream.
func (o *Objects) streamYAMLList(lines *lineReader, doc int, ignored map[string]int, bad *objectErrors) ([]byte, error) {
	start := lines.offset
	cp := o.checkpoint(ignored, bad)
	var (
		s         blockListScanner
		head      []byte // the document, until its items start
		items     int
		itemsKind string
		mixed     bool
		shaped    = true
		empty     = true
		list      = o.listDecoder(ignored, bad)
	)
	// Whatever happens next, the items given so far are added first.
	defer list.flush()
	emit := func(it []byte) {
		if list.whole {
			return
		}
		if items == 0 {
			itemsKind = s.apiVersion + " " + s.kind
		}
		mixed = mixed || itemsKind != s.apiVersion+" "+s.kind
		list.add(it, true, s.apiVersion, s.kind, doc, items)
		items++
	}
	for {
		line, err := lines.next()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if errors.Is(err, io.EOF) {
			if empty {
				return nil, io.EOF
			}
			break
		}
		if sep, err := isSeparator(line); err != nil {
			return nil, err
		} else if sep {
			if empty {
				continue
			}
			break
		}
		empty = false
		switch {
		case shaped && s.state == beforeItems:
			head = append(head, line...)
			shaped = s.line(line, emit)
			if s.state != beforeItems {
				head = nil
			}
		case shaped:
			shaped = s.line(line, emit)
		case s.state == beforeItems:
			head = append(head, line...) // not a List: read whole
		}
	}
	if s.state == beforeItems {
		return head, nil
	}
	itemKind := strings.TrimSuffix(s.kind, "List")
	ended := shaped && s.end(emit)
	list.flush()
	if ended && !list.whole && decodedAs(items, mixed, itemsKind, s.apiVersion, s.kind) {
		o.listed(itemKind)
		return nil, nil
	}
	// Not a List of kubectl's shape after all, or one whose items share
	// anchors: read again whole.
	o.rollback(cp, ignored, bad)
	if err := lines.seek(start); err != nil {
		return nil, err
	}
	return lines.readDocument(nil)
}

// document and item say where an object without a name is: documents are
// counted from 1, as editors count lines, items from 0, as a path indexes.
func document(doc int) string { return fmt.Sprintf("document %d", doc) }

func item(doc, i int) string { return fmt.Sprintf("document %d: item %d", doc, i) }

// IgnoredSummary formats the counts Decode returns, e.g. "3 Service, 1 Secret".
func IgnoredSummary(ignored map[string]int) string {
	kinds := make([]string, 0, len(ignored))
	for k := range ignored {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", ignored[k], k)
	}
	return strings.Join(parts, ", ")
}

type typeHeader struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

// addRaw adds the object, or the items of the List, that raw holds.
func (o *Objects) addRaw(raw json.RawMessage, ignored map[string]int, doc int, bad *objectErrors) {
	var h typeHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		bad.report(document(doc), headerError(raw, err))
		return
	}
	if h.Kind == "" && isPrometheusResponse(raw) {
		scores, err := ParsePrometheusVector(raw)
		if err != nil {
			bad.add(document(doc), err.Error())
			return
		}
		o.NodeScores = append(o.NodeScores, scores...)
		return
	}
	if h.Kind == "" {
		bad.add(document(doc), errNoKind.Error())
		return
	}
	if strings.HasSuffix(h.Kind, "List") {
		itemKind := strings.TrimSuffix(h.Kind, "List")
		o.listed(itemKind)
		for i, it := range h.Items {
			// A typed list (PodList) leaves kind and apiVersion off its items.
			if itemKind != "" {
				it = withDefaultType(it, h.APIVersion, itemKind)
			}
			if err := o.addObject(it, ignored, !bad.full()); err != nil {
				bad.report(item(doc, i), err)
			}
		}
		return
	}
	if err := o.addObject(raw, ignored, !bad.full()); err != nil {
		bad.report(document(doc), err)
	}
}

var errNoKind = errors.New("object has no kind")

// headerError words why raw has no apiVersion, kind or items to read.
func headerError(raw json.RawMessage, err error) error {
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("not an object: a Kubernetes object or a List is expected")
	}
	if errs := fieldErrors(raw, reflect.TypeFor[typeHeader](), nil, nil); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return err
}

// listed records a typed List's item kind; the generic List (itemKind "")
// says nothing of the kinds it would hold.
func (o *Objects) listed(itemKind string) {
	if itemKind == "" {
		return
	}
	if o.ListedKinds == nil {
		o.ListedKinds = make(map[string]bool)
	}
	o.ListedKinds[itemKind] = true
	switch itemKind {
	case "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode":
		o.VolumesListed = true
	case "HorizontalPodAutoscaler":
		o.AutoscalersListed = true
	}
}

// withDefaultType sets kind and apiVersion on an item of a typed list when
// the item has none.
func withDefaultType(item json.RawMessage, apiVersion, kind string) json.RawMessage {
	var h typeHeader
	if json.Unmarshal(item, &h) != nil || h.Kind != "" {
		return item
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil || m == nil {
		return item // null: the item is not an object, which addObject says
	}
	m["kind"], _ = json.Marshal(kind)
	m["apiVersion"], _ = json.Marshal(apiVersion)
	out, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return out
}

// addObject adds the object raw holds. An object of a kind the snapshot
// reads that does not decode is an error; with explain, one that names
// every field that does not decode (an *invalidObject).
func (o *Objects) addObject(raw json.RawMessage, ignored map[string]int, explain bool) error {
	return o.addDecoded(raw, decodeObject(raw, o.shared != nil && o.shared.json, true), ignored, explain)
}

// addDecoded adds the object that decodeObject made of raw, as addObject.
func (o *Objects) addDecoded(raw json.RawMessage, d decodedObject, ignored map[string]int, explain bool) error {
	obj, gvk, err := d.obj, d.gvk, d.err
	if err != nil {
		var h struct{ APIVersion, Kind string }
		if err := json.Unmarshal(raw, &h); err != nil {
			return headerError(raw, err)
		}
		gvk := schema.FromAPIVersionAndKind(h.APIVersion, h.Kind)
		switch {
		case h.Kind == "":
			return errNoKind
		case h.APIVersion == "":
			if err := missingAPIVersion(raw, h.Kind); err != nil {
				return err
			}
			ignored[h.Kind]++
			return nil
		case !dumpScheme.Recognizes(gvk):
			if err := unknownVersion(raw, gvk); err != nil {
				return err
			}
			ignored[h.Kind]++
			return nil
		case !explain:
			return err
		}
		typed, newErr := dumpScheme.New(gvk)
		if newErr != nil {
			return err
		}
		return explainDecodeError(raw, h.Kind, reflect.TypeOf(typed), err)
	}
	if len(d.errs) > 0 {
		bad := newInvalidObject(raw, gvk.Kind, nil)
		bad.errs = d.errs
		return bad
	}
	switch t := obj.(type) {
	case *corev1.Node:
		o.Nodes = append(o.Nodes, *t)
	case *corev1.Pod:
		if o.shared != nil {
			o.shared.pod(t, nil)
		}
		o.Pods = append(o.Pods, *t)
	case *policyv1.PodDisruptionBudget:
		o.PDBs = append(o.PDBs, *t)
	case *corev1.Namespace:
		o.Namespaces = append(o.Namespaces, *t)
	case *schedulingv1.PriorityClass:
		o.PriorityClasses = append(o.PriorityClasses, *t)
	case *appsv1.ReplicaSet:
		o.ReplicaSets = append(o.ReplicaSets, *t)
	case *appsv1.StatefulSet:
		o.StatefulSets = append(o.StatefulSets, *t)
	case *appsv1.Deployment:
		o.Deployments = append(o.Deployments, *t)
	case *autoscalingv2.HorizontalPodAutoscaler:
		o.HorizontalPodAutoscalers = append(o.HorizontalPodAutoscalers, *t)
	case *autoscalingv1.HorizontalPodAutoscaler:
		o.HorizontalPodAutoscalers = append(o.HorizontalPodAutoscalers, autoscalerFromV1(t))
	case *nodev1.RuntimeClass:
		o.RuntimeClasses = append(o.RuntimeClasses, *t)
	case *batchv1.Job:
		o.Jobs = append(o.Jobs, *t)
	case *NodeMetrics:
		o.NodeMetrics = append(o.NodeMetrics, *t)
	case *PodMetrics:
		o.PodMetrics = append(o.PodMetrics, *t)
	case *corev1.PersistentVolume:
		o.PersistentVolumes = append(o.PersistentVolumes, *t)
	case *corev1.PersistentVolumeClaim:
		o.PersistentVolumeClaims = append(o.PersistentVolumeClaims, *t)
	case *storagev1.StorageClass:
		o.StorageClasses = append(o.StorageClasses, *t)
	case *storagev1.CSINode:
		o.CSINodes = append(o.CSINodes, *t)
	case *corev1.ConfigMap:
		if t.Labels[ManagedByLabel] != ManagedBy {
			ignored[gvk.Kind]++
			return nil
		}
		o.StateConfigMaps = append(o.StateConfigMaps, *t)
	default:
		ignored[gvk.Kind]++
	}
	return nil
}

// trimDecoded drops from a decoded object what nothing reads.
func trimDecoded(obj runtime.Object) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil) // nothing reads them, and they are much of every object
	}
	Trim(obj)
	switch t := obj.(type) {
	case *appsv1.StatefulSet:
		TrimStatefulSet(t)
	case *appsv1.Deployment:
		TrimDeployment(t)
	case *autoscalingv2.HorizontalPodAutoscaler:
		TrimAutoscaler(t)
	}
}
