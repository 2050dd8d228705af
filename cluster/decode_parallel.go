package cluster

import (
	"encoding/json"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Turning an item of a List into a typed object (YAML into JSON, JSON into
// the object, the checks, the trimming) is most of the time a dump takes
// to read, and no item depends on another. Adding the objects, sharing
// values between pods and reporting problems does depend on what came
// before. So while the stream is read, workers decode the items of a List,
// one per core, and the reader adds them in the dump's order: the result,
// errors included, is what one goroutine reading item after item gives.

const (
	// itemsPerBatch: items go to the workers in batches, so that handing
	// them over costs little next to decoding them.
	itemsPerBatch = 32
	// batchesPerWorker bounds the batches decoded ahead of the reader, and
	// so the memory that items waiting to be added hold.
	batchesPerWorker = 4
)

// decodedObject is what decoding one object gave.
type decodedObject struct {
	obj runtime.Object
	gvk *schema.GroupVersionKind
	// err is the decoder's; errs what the checks found in an object that
	// decoded.
	err  error
	errs field.ErrorList
}

// decodeObject decodes raw and checks what the API server would have
// refused; checkKeys also looks for a key set twice (JSON's decoder keeps
// the last one silently).
func decodeObject(raw json.RawMessage, checkKeys, checked bool) decodedObject {
	obj, gvk, unique, err := decodeTyped(raw, checked)
	if err != nil {
		return decodedObject{err: err}
	}
	errs := checkDecoded(raw, obj)
	if checkKeys && !unique {
		if path := duplicateJSONKey(raw); path != nil {
			errs = append(errs, duplicate(path))
		}
	}
	if len(errs) == 0 {
		trimDecoded(obj)
	}
	return decodedObject{obj: obj, gvk: gvk, errs: errs}
}

// listItem is one item of a List on its way to the Objects.
type listItem struct {
	// data is the item as the dump holds it: YAML when yaml, else JSON,
	// valid JSON unless unchecked.
	data             []byte
	yaml, unchecked  bool
	apiVersion, kind string // the List's
	doc, i           int

	// What a worker made of it: the item's JSON and the object, or the
	// error converting its YAML.
	raw     json.RawMessage
	decoded decodedObject
	yamlErr error
	invalid bool // unchecked, and not valid JSON
}

// decode is the part of adding an item that depends on nothing else.
func (it *listItem) decode(checkKeys bool) {
	it.raw = it.data
	if it.yaml {
		raw, err := yamlToJSON(it.data, strings.TrimSuffix(it.kind, "List"))
		if err != nil {
			it.yamlErr = err
			return
		}
		it.raw = raw
	}
	// A typed list (PodList) leaves kind and apiVersion off its items.
	if itemKind, isList := strings.CutSuffix(it.kind, "List"); isList && itemKind != "" {
		it.raw = withDefaultType(it.raw, it.apiVersion, itemKind)
	}
	it.decoded = decodeObject(it.raw, checkKeys, !it.unchecked)
	it.invalid = it.decoded.err == errNotJSON
}

type itemBatch struct {
	items []listItem
	done  chan struct{}
}

// itemWorkers decode the batches of one dump's decoding.
type itemWorkers struct {
	work      chan *itemBatch
	checkKeys bool
	n         int
	wg        sync.WaitGroup
}

// startItemWorkers starts n workers; with fewer than two, items are
// decoded where they are read.
func startItemWorkers(checkKeys bool, n int) *itemWorkers {
	w := &itemWorkers{checkKeys: checkKeys, n: n}
	if w.n < 2 {
		return w
	}
	w.work = make(chan *itemBatch, w.n*batchesPerWorker)
	for range w.n {
		w.wg.Go(func() {
			for b := range w.work {
				for i := range b.items {
					b.items[i].decode(w.checkKeys)
				}
				close(b.done)
			}
		})
	}
	return w
}

func (w *itemWorkers) stop() {
	if w.work != nil {
		close(w.work)
		w.wg.Wait()
	}
}

// listDecoder adds the items of one List to the Objects in their order.
type listDecoder struct {
	o       *Objects
	ignored map[string]int
	bad     *objectErrors
	workers *itemWorkers
	cur     *itemBatch
	pending []*itemBatch
	// whole: an item only the whole List can decode (it refers to an
	// anchor outside it, or is not valid JSON, which the List then is not
	// either); neither it nor the items after it are added.
	whole bool
}

func (o *Objects) listDecoder(ignored map[string]int, bad *objectErrors) *listDecoder {
	w := o.workers
	if w == nil {
		w = &itemWorkers{checkKeys: o.shared != nil && o.shared.json}
	}
	return &listDecoder{o: o, ignored: ignored, bad: bad, workers: w}
}

// add takes the next item of the List; the decoder keeps data.
func (d *listDecoder) add(data []byte, yaml bool, apiVersion, kind string, doc, i int) {
	d.addItem(listItem{data: data, yaml: yaml, apiVersion: apiVersion, kind: kind, doc: doc, i: i})
}

func (d *listDecoder) addItem(it listItem) {
	if d.workers.work == nil {
		it.decode(d.workers.checkKeys)
		d.take(&it)
		return
	}
	if d.cur == nil {
		d.cur = &itemBatch{items: make([]listItem, 0, itemsPerBatch), done: make(chan struct{})}
	}
	d.cur.items = append(d.cur.items, it)
	if len(d.cur.items) == itemsPerBatch {
		d.send()
	}
	// Add what is decoded already, and wait when the workers are as far
	// ahead as they may be.
	for len(d.pending) > 0 {
		select {
		case <-d.pending[0].done:
		default:
			if len(d.pending) < d.workers.n*batchesPerWorker {
				return
			}
			<-d.pending[0].done
		}
		d.takeBatch()
	}
}

func (d *listDecoder) send() {
	d.pending = append(d.pending, d.cur)
	d.workers.work <- d.cur
	d.cur = nil
}

func (d *listDecoder) takeBatch() {
	b := d.pending[0]
	d.pending[0] = nil
	d.pending = d.pending[1:]
	for i := range b.items {
		d.take(&b.items[i])
	}
}

// flush adds every item given so far; the List's items are then all in
// the Objects, up to one only the whole List can decode.
func (d *listDecoder) flush() {
	if d.cur != nil {
		d.send()
	}
	for len(d.pending) > 0 {
		<-d.pending[0].done
		d.takeBatch()
	}
}

func (d *listDecoder) take(it *listItem) {
	if d.whole {
		return
	}
	if it.invalid {
		d.whole = true
		return
	}
	if it.yamlErr != nil {
		if isUnknownAnchor(it.yamlErr) {
			d.whole = true
			return
		}
		d.bad.report(item(it.doc, it.i), it.yamlErr)
		return
	}
	if err := d.o.addDecoded(it.raw, it.decoded, d.ignored, !d.bad.full()); err != nil {
		d.bad.report(item(it.doc, it.i), err)
	}
}
