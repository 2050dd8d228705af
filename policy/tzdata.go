package policy

// The time zones a policy's disruption windows name must mean the same
// wherever it is loaded, an image without /usr/share/zoneinfo included.
import _ "time/tzdata"
