{{/* Chart name, overridable with nameOverride. */}}
{{- define "avalanchego-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: fullnameOverride, else <release>-<name> (just <release> if it contains the name). */}}
{{- define "avalanchego-exporter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "avalanchego-exporter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "avalanchego-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "avalanchego-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "avalanchego-exporter.labels" -}}
helm.sh/chart: {{ include "avalanchego-exporter.chart" . }}
{{ include "avalanchego-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: avalanchego-exporter
{{- end }}

{{- define "avalanchego-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "avalanchego-exporter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The ConfigMap holding config.yaml: existingConfigMap, or the one this chart renders. */}}
{{- define "avalanchego-exporter.configMapName" -}}
{{- default (include "avalanchego-exporter.fullname" .) .Values.existingConfigMap }}
{{- end }}

{{- define "avalanchego-exporter.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
