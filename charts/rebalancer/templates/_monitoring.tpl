{{/*
The processes that serve /metrics on metrics.port, as a JSON list of
{component, name, port}: the Deployment of mode: deployment and the
scheduler. A CronJob's process is gone before any scrape; its runs push.
"port" is the container port's name in the pod template.
*/}}
{{- define "rebalancer.scraped" -}}
{{- $scraped := list }}
{{- if eq .Values.mode "deployment" }}
{{- $scraped = append $scraped (dict "component" "run" "name" (include "rebalancer.fullname" .) "port" "metrics") }}
{{- end }}
{{- if .Values.scheduler.enabled }}
{{- $scraped = append $scraped (dict "component" "scheduler" "name" (include "rebalancer.schedulerFullname" .) "port" "http") }}
{{- end }}
{{- if and $scraped (or .Values.monitoring.service.enabled .Values.monitoring.serviceMonitor.enabled) (lt (int .Values.metrics.port) 1) }}
{{- fail "monitoring.service and monitoring.serviceMonitor need /metrics: metrics.port is 0" }}
{{- end }}
{{- toJson $scraped }}
{{- end }}
