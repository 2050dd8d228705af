{{/*
The data of the policy ConfigMap: the RebalancePolicy every cycle runs. The
release's ConfigMap and the install-time check's ConfigMap both render it
from here, so that what is checked is what runs.
*/}}
{{- define "rebalancer.policyData" -}}
{{- $policy := deepCopy .Values.policy }}
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
