# Go tools built from the Go module proxy and cached by version, sourced by .ci/run.
# The cache is the one the AvalancheGo builds use (test/real-node/build.ts):
#   ${AVALANCHEGO_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/avalanchego-exporter}/go-tools/<name>-<version>/<name>
# test/helpers/monitoring.ts finds Prometheus, promtool, Alertmanager and VictoriaMetrics there.

go_tools_dir() {
  echo "${AVALANCHEGO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/avalanchego-exporter}/go-tools"
}

# build_go_tool NAME PACKAGE VERSION [LDFLAGS] [GOTOOLCHAIN]
# Builds PACKAGE@VERSION (go install, -trimpath, the given -ldflags) into the cache unless it
# is there already, and prints the binary's path. The build goes to a temporary folder and is
# moved into place only when it succeeded, so a failed or interrupted build leaves no binary.
# GOTOOLCHAIN (e.g. go1.27.3) builds with that Go release, which `go` fetches from the module
# proxy (and caches) for this build alone; the default is the machine's Go.
build_go_tool() {
  local name=$1 pkg=$2 version=$3 ldflags=${4:-} toolchain=${5:-${GOTOOLCHAIN:-local}}
  local dir bin tmp start
  dir="$(go_tools_dir)/$name-$version"
  bin="$dir/$name"
  if [ -x "$bin" ]; then
    echo "$bin"
    return 0
  fi
  tmp=$(mktemp -d)
  start=$SECONDS
  if ! GOBIN="$tmp" GOTOOLCHAIN="$toolchain" go install -trimpath -ldflags="$ldflags" "$pkg@$version" >&2; then
    rm -rf "$tmp"
    echo "go install $pkg@$version failed" >&2
    return 1
  fi
  mkdir -p "$dir" && mv "$tmp/$name" "$bin.partial" && mv "$bin.partial" "$bin"
  rm -rf "$tmp"
  echo "built $name $version in $((SECONDS - start)) s" >&2
  echo "$bin"
}

# prometheus_ldflags VERSION MODULE_VERSION: the -X flags promu sets (.promu.yml), so that
# `--version` and the build_info metric say what runs. The module proxy does not say which
# commit a version is, so Revision names the module version instead.
prometheus_ldflags() {
  local v=github.com/prometheus/common/version
  echo "-X $v.Version=$1 -X $v.Revision=gomod-$2 -X $v.Branch=HEAD -X $v.BuildUser=avalanchego-exporter-ci -X $v.BuildDate=$(date -u +%Y%m%d-%H:%M:%S)"
}

# build_monitoring_stack: Prometheus and promtool 3.x and Alertmanager at the versions pinned
# in tools/monitoring/versions.env. Alertmanager releases from v0.32.1 on embed their web UI
# from files their module zip lacks, so `go install` fails for them (see versions.env).
build_monitoring_stack() {
  local PROMETHEUS_MODULE ALERTMANAGER_MODULE prom_version am_version
  # shellcheck source=../tools/monitoring/versions.env
  . tools/monitoring/versions.env
  # v0.3MM.P is Prometheus 3.MM.P.
  prom_version=$(echo "$PROMETHEUS_MODULE" | sed -E 's/^v0\.3([0-9]{2})\.([0-9]+)$/3.\1.\2/; s/^3\.0([0-9])/3.\1/')
  am_version=${ALERTMANAGER_MODULE#v}
  # The tests (test/helpers/monitoring.ts) take the binaries from these variables.
  AVALANCHEGO_PROMETHEUS_BIN=$(build_go_tool prometheus github.com/prometheus/prometheus/cmd/prometheus "$PROMETHEUS_MODULE" "$(prometheus_ldflags "$prom_version" "$PROMETHEUS_MODULE")") &&
    AVALANCHEGO_PROMTOOL_BIN=$(build_go_tool promtool github.com/prometheus/prometheus/cmd/promtool "$PROMETHEUS_MODULE" "$(prometheus_ldflags "$prom_version" "$PROMETHEUS_MODULE")") &&
    AVALANCHEGO_ALERTMANAGER_BIN=$(build_go_tool alertmanager github.com/prometheus/alertmanager/cmd/alertmanager "$ALERTMANAGER_MODULE" "$(prometheus_ldflags "$am_version" "$ALERTMANAGER_MODULE")") &&
    AVALANCHEGO_AMTOOL_BIN=$(build_go_tool amtool github.com/prometheus/alertmanager/cmd/amtool "$ALERTMANAGER_MODULE" "$(prometheus_ldflags "$am_version" "$ALERTMANAGER_MODULE")") &&
    export AVALANCHEGO_PROMETHEUS_BIN AVALANCHEGO_PROMTOOL_BIN AVALANCHEGO_ALERTMANAGER_BIN AVALANCHEGO_AMTOOL_BIN
}

# build_victoriametrics: VictoriaMetrics' single-node server, vmalert and vmalert-tool at the
# release pinned in tools/monitoring/versions.env (VICTORIAMETRICS_MODULE), with the Go
# toolchain it needs (VICTORIAMETRICS_GOTOOLCHAIN). The three share most packages: the second
# and third builds reuse the first one's compiled packages from Go's build cache.
build_victoriametrics() {
  local VICTORIAMETRICS_MODULE VICTORIAMETRICS_GOTOOLCHAIN app v ldflags
  # shellcheck source=../tools/monitoring/versions.env
  . tools/monitoring/versions.env
  v=github.com/VictoriaMetrics/VictoriaMetrics
  for app in victoria-metrics vmalert vmalert-tool; do
    # What VictoriaMetrics' Makefile sets (APP_NAME-DATE-BUILDINFO_TAG): `-version` and the
    # vm_app_version metric name the release. The module proxy does not say which commit it is.
    ldflags="-X $v/lib/buildinfo.Version=$app-$(date -u +%Y%m%d-%H%M%S)-tags-$VICTORIAMETRICS_MODULE-0-gomod"
    case $app in
      victoria-metrics) AVALANCHEGO_VICTORIAMETRICS_BIN=$(build_go_tool "$app" "$v/app/$app" "$VICTORIAMETRICS_MODULE" "$ldflags" "$VICTORIAMETRICS_GOTOOLCHAIN") || return 1 ;;
      vmalert) AVALANCHEGO_VMALERT_BIN=$(build_go_tool "$app" "$v/app/$app" "$VICTORIAMETRICS_MODULE" "$ldflags" "$VICTORIAMETRICS_GOTOOLCHAIN") || return 1 ;;
      vmalert-tool) AVALANCHEGO_VMALERT_TOOL_BIN=$(build_go_tool "$app" "$v/app/$app" "$VICTORIAMETRICS_MODULE" "$ldflags" "$VICTORIAMETRICS_GOTOOLCHAIN") || return 1 ;;
    esac
  done
  # The tests (test/helpers/monitoring.ts) take the binaries from these variables.
  export AVALANCHEGO_VICTORIAMETRICS_BIN AVALANCHEGO_VMALERT_BIN AVALANCHEGO_VMALERT_TOOL_BIN
}
