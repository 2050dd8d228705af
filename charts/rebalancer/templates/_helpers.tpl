{{/* The chart's name, or nameOverride. */}}
{{- define "rebalancer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name. A release named like the chart (the
documented `helm install rebalancer charts/rebalancer`) is not repeated:
"rebalancer", not "rebalancer-rebalancer". Kept to 52 characters so that
"-scheduler" and a CronJob's Job suffix still fit in 63.
*/}}
{{- define "rebalancer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := include "rebalancer.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rebalancer.schedulerFullname" -}}
{{- printf "%s-scheduler" (include "rebalancer.fullname" .) }}
{{- end }}

{{/* Selector labels; "component" tells the rebalancer from its scheduler. */}}
{{- define "rebalancer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rebalancer.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "rebalancer.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "rebalancer.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- end }}

{{- define "rebalancer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "rebalancer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "rebalancer.schedulerServiceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- include "rebalancer.schedulerFullname" . }}
{{- else }}
{{- include "rebalancer.serviceAccountName" . }}
{{- end }}
{{- end }}

{{/*
No rebalancer image is published yet: without one of the user's own, pods
would sit in ImagePullBackOff, so the install fails instead and says how
to make one.
*/}}
{{- define "rebalancer.image" -}}
{{- if not .Values.image.repository }}
{{- fail "image.repository is not set: no rebalancer image is published yet; build and push one with `make image IMAGE=registry.example.com/rebalancer:0.1.0`, then --set image.repository=registry.example.com/rebalancer,image.tag=0.1.0" }}
{{- end }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Several replicas of the loop must not evict at the same time. */}}
{{/*
The run Lease, NAMESPACE/NAME; the values may lack it after an upgrade with
--reuse-values.
*/}}
{{- define "rebalancer.runLease" -}}
{{- $l := .Values.runLease | default dict -}}
{{ $l.namespace | default "kube-system" }}/{{ $l.name | default "rebalancer-run-lock" }}
{{- end }}

{{- define "rebalancer.leaderElect" -}}
{{- if and (eq .Values.mode "deployment") (gt (int .Values.deployment.replicas) 1) }}true{{ end }}
{{- end }}

{{/*
The rebalancer's own settings of a pod: identity, placement, priority and
the restricted Pod Security profile. Takes the root context.
*/}}
{{- define "rebalancer.podSpecCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
securityContext:
  runAsNonRoot: true
  seccompProfile:
    type: RuntimeDefault
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "rebalancer.containerSecurityContext" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  capabilities:
    drop: ["ALL"]
{{- end }}

{{/* The state ConfigMap and the Lease live in the pod's own namespace. */}}
{{- define "rebalancer.podNamespaceEnv" -}}
env:
  - name: POD_NAMESPACE
    valueFrom:
      fieldRef:
        fieldPath: metadata.namespace
{{- end }}

{{/*
The scheduler's KubeSchedulerConfiguration: one profile, named
scheduler.schedulerName, with the fields of scheduler.profile.
*/}}
{{- define "rebalancer.schedulerConfig" -}}
{{- $profile := merge (dict "schedulerName" .Values.scheduler.schedulerName) (deepCopy .Values.scheduler.profile) -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  {{- toYaml (list $profile) | nindent 2 }}
{{- with .Values.scheduler.extenders }}
extenders:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
