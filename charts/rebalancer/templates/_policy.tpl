{{/*
The data of the policy ConfigMap: the RebalancePolicy every cycle runs. The
release's ConfigMap and the install-time check's ConfigMap both render it
from here, so that what is checked is what runs.
*/}}
{{- define "rebalancer.policyData" -}}
{{- $policy := deepCopy .Values.policy }}
{{- /*
Values written for an earlier chart set limits.perNode (or perNamespace,
perWorkload); the chart's own default now names that bound
limits.perStep.node. The user's value wins, under the name they wrote, so
that an upgrade keeps their policy instead of refusing a bound set twice.
*/}}
{{- with $policy.limits }}
{{- $limits := . }}
{{- range $former, $current := dict "perNode" "node" "perNamespace" "namespace" "perWorkload" "workload" }}
{{- if and (hasKey $limits $former) (kindIs "map" $limits.perStep) }}
{{- $_ := unset $limits.perStep $current }}
{{- end }}
{{- end }}
{{- if and (kindIs "map" $limits.perStep) (empty $limits.perStep) }}
{{- $_ := unset $limits "perStep" }}
{{- end }}
{{- end }}
{{- if and .Values.scheduler.enabled (not (hasKey $policy "scheduler")) }}
{{- /*
Plans simulate the scheduler that will place the replacements, so that
what a plan predicts is where they land.
*/}}
{{- $_ := set $policy "scheduler" (dict "config" (include "rebalancer.schedulerConfig" . | fromYaml)) }}
{{- end -}}
policy.yaml: |
  apiVersion: rebalancer.dev/v1alpha1
  kind: RebalancePolicy
  {{- toYaml $policy | nindent 2 }}
{{- end }}

{{/*
"true" when the run needs the rules of a surge (`rebalancer rbac run
--make-before-break`): the policy turns evictable.makeBeforeBreak on
anywhere (globally, in an override, for a strategy at either level), as
Policy.MakesBeforeBreak reads it, or rbac.makeBeforeBreak says so.
*/}}
{{- define "rebalancer.makeBeforeBreak" -}}
{{- $on := false }}
{{- if and (kindIs "map" .Values.rbac) .Values.rbac.makeBeforeBreak }}
{{- $on = true }}
{{- end }}
{{- $settings := list }}
{{- if kindIs "map" .Values.policy }}
{{- $settings = append $settings .Values.policy }}
{{- if kindIs "slice" .Values.policy.overrides }}
{{- $settings = concat $settings .Values.policy.overrides }}
{{- end }}
{{- end }}
{{- range $s := $settings }}
{{- if kindIs "map" $s }}
{{- $evictables := list $s.evictable }}
{{- if kindIs "map" $s.strategies }}
{{- range $args := $s.strategies }}
{{- if kindIs "map" $args }}
{{- $evictables = append $evictables $args.evictable }}
{{- end }}
{{- end }}
{{- end }}
{{- range $e := $evictables }}
{{- if and (kindIs "map" $e) (eq (toString $e.makeBeforeBreak) "true") }}
{{- $on = true }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if $on }}true{{ end }}
{{- end }}
