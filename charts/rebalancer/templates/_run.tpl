{{/*
The container that runs `rebalancer run`, in the CronJob or the Deployment.
The policy comes from the ConfigMap in policy.yaml; the state ConfigMap
defaults to $POD_NAMESPACE/rebalancer-state, the one the scheduler reads.
*/}}
{{- define "rebalancer.runContainer" -}}
- name: rebalancer
  image: {{ include "rebalancer.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    - run
    - --policy=/etc/rebalancer/policy.yaml
    {{- if eq .Values.mode "deployment" }}
    - --interval={{ .Values.deployment.interval }}
    {{- else }}
    - --interval=0
    {{- /* A run's last step starts a minute before the Job's deadline, so
    that the run ends on its own and reports, rather than being killed. */}}
    - --max-duration={{ max 60 (sub (int .Values.cronJob.activeDeadlineSeconds) 60) }}s
    {{- end }}
    - --output={{ .Values.output }}
    - --qps={{ .Values.kubeAPI.qps }}
    - --burst={{ .Values.kubeAPI.burst }}
    {{- if gt (int .Values.logVerbosity) 0 }}
    - --v={{ .Values.logVerbosity }}
    {{- end }}
    {{- if .Values.dryRun }}
    - --dry-run
    {{- end }}
    {{- with .Values.metrics.pushgateway }}
    - --pushgateway={{ . }}
    {{- end }}
    {{- with .Values.metrics.pushgatewayInstance }}
    - --pushgateway-instance={{ . }}
    {{- end }}
    {{- if .Values.metrics.namespaceLabel }}
    - --metrics-namespace-label
    {{- end }}
    {{- if and (eq .Values.mode "deployment") (gt (int .Values.metrics.port) 0) }}
    - --metrics-addr=:{{ .Values.metrics.port }}
    {{- end }}
    {{- if include "rebalancer.leaderElect" . }}
    - --leader-elect
    {{- end }}
    {{- with include "rebalancer.runLease" . }}
    {{- if ne . "kube-system/rebalancer-run-lock" }}
    - --run-lease={{ . }}
    {{- end }}
    {{- end }}
  {{- include "rebalancer.podNamespaceEnv" . | nindent 2 }}
  {{- if and (eq .Values.mode "deployment") (gt (int .Values.metrics.port) 0) }}
  ports:
    - name: metrics
      containerPort: {{ .Values.metrics.port }}
      protocol: TCP
  livenessProbe:
    httpGet:
      path: /healthz
      port: metrics
    periodSeconds: 20
  {{- end }}
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  {{- include "rebalancer.containerSecurityContext" . | nindent 2 }}
  volumeMounts:
    - name: policy
      mountPath: /etc/rebalancer
      readOnly: true
{{- end }}

{{- define "rebalancer.policyVolume" -}}
- name: policy
  configMap:
    name: {{ include "rebalancer.fullname" . }}-policy
{{- end }}
