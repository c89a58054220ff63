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

{{/*
The pod template (at the indentation of a workload's spec.template) shared by the Deployment
and, when sharding.replicas > 0, the StatefulSet. A sharded pod takes its shard index from its
own name (--shard.from-pod-name, POD_NAME from the downward API) and the shard count from
sharding.replicas.
*/}}
{{/* Whether the exporter reads a web config, and whether it serves HTTPS. */}}
{{- define "avalanchego-exporter.webConfig" -}}
{{- if or .Values.webConfig.existingSecret (gt (len .Values.webConfig.config) 0) }}true{{ end }}
{{- end }}
{{- define "avalanchego-exporter.https" -}}
{{- if or .Values.webConfig.https (and .Values.webConfig.config.tls_server_config (not .Values.webConfig.existingSecret)) }}true{{ end }}
{{- end }}
{{- define "avalanchego-exporter.webSecretName" -}}
{{- .Values.webConfig.existingSecret | default (printf "%s-web" (include "avalanchego-exporter.fullname" .)) }}
{{- end }}

{{- define "avalanchego-exporter.podTemplate" }}
{{- $sharded := gt (int .Values.sharding.replicas) 0 }}
{{- $web := include "avalanchego-exporter.webConfig" . }}
{{- $https := include "avalanchego-exporter.https" . }}
    metadata:
      labels:
        {{- include "avalanchego-exporter.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        {{- if not .Values.existingConfigMap }}
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        {{- end }}
        {{- if and $web (not .Values.webConfig.existingSecret) }}
        checksum/web-config: {{ include (print $.Template.BasePath "/web-secret.yaml") . | sha256sum }}
        {{- end }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "avalanchego-exporter.serviceAccountName" . }}
      automountServiceAccountToken: {{ .Values.serviceAccount.automountServiceAccountToken }}
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with .Values.podSecurityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      containers:
        - name: exporter
          image: {{ include "avalanchego-exporter.image" . | quote }}
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          args:
            - --config.file=/etc/avalanchego-exporter/config.yaml
            - --web.listen-address=:10650
            {{- if $web }}
            - --web.config.file=/etc/avalanchego-exporter-web/web.yml
            {{- end }}
            {{- if $sharded }}
            - --shard.from-pod-name
            - --shard.count={{ .Values.sharding.replicas }}
            {{- end }}
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          ports:
            - name: http-metrics
              containerPort: 10650
              protocol: TCP
          {{- if or $sharded .Values.env }}
          env:
            {{- if $sharded }}
            # The StatefulSet pod's name (<name>-<ordinal>): its ordinal is the shard index.
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- end }}
            {{- with .Values.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- end }}
          {{- with .Values.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .Values.livenessProbe }}
          livenessProbe:
            {{- include "avalanchego-exporter.probe" (list . $https) | nindent 12 }}
          {{- end }}
          {{- with .Values.readinessProbe }}
          readinessProbe:
            {{- include "avalanchego-exporter.probe" (list . $https) | nindent 12 }}
          {{- end }}
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .Values.securityContext }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            # The whole directory (not a subPath), so that Kubernetes updates the file when
            # the ConfigMap changes; SIGHUP (or POST /-/reload with --web.enable-lifecycle) then applies it.
            - name: config
              mountPath: /etc/avalanchego-exporter
              readOnly: true
            {{- if $web }}
            - name: web-config
              mountPath: /etc/avalanchego-exporter-web
              readOnly: true
            {{- end }}
            {{- if .Values.webConfig.tlsSecret }}
            - name: web-tls
              mountPath: /etc/avalanchego-exporter-tls
              readOnly: true
            {{- end }}
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "avalanchego-exporter.configMapName" . }}
            items:
              - key: config.yaml
                path: config.yaml
        {{- if $web }}
        - name: web-config
          secret:
            secretName: {{ include "avalanchego-exporter.webSecretName" . }}
            items:
              - key: web.yml
                path: web.yml
        {{- end }}
        {{- with .Values.webConfig.tlsSecret }}
        - name: web-tls
          secret:
            secretName: {{ . }}
        {{- end }}
        {{- with .Values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/* A probe from values; its httpGet gets scheme HTTPS when the web config serves TLS. */}}
{{- define "avalanchego-exporter.probe" -}}
{{- $probe := deepCopy (index . 0) }}
{{- if and (index . 1) $probe.httpGet }}
{{- $_ := set $probe.httpGet "scheme" "HTTPS" }}
{{- end }}
{{- toYaml $probe }}
{{- end }}
