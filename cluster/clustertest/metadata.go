package clustertest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Typed sets apiVersion and kind, which a node carries when it is read
// from a List or written into one.
func (b *NodeBuilder) Typed() *NodeBuilder {
	b.n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	return b
}

// UID sets the node's UID, for generators that number their objects.
func (b *NodeBuilder) UID(uid types.UID) *NodeBuilder { b.n.UID = uid; return b }

// CreatedAt sets the creation time; the zero time leaves it unset.
func (b *NodeBuilder) CreatedAt(t time.Time) *NodeBuilder {
	b.n.CreationTimestamp = metav1.NewTime(t)
	return b
}
