// Package interpodantiaffinity is RemovePodsViolatingInterPodAntiAffinity:
// it moves the fewest pods that leave no two pods of one topology domain
// violating a required anti-affinity term.
package interpodantiaffinity
