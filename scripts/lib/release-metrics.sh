# Sourced by scripts/release.sh (and run by test/deploy/metric-names.test.ts): the apt
# repository's release-metrics.txt, the newest station-agent of each suite and when it was
# published, in Prometheus' text format. A fleet's Prometheus scrapes it from wherever the
# repository is served (a static file: docs/FLEET.md, "Updates"); the rule
# StationVersionBehind (deploy/prometheus) compares each station's station_agent_build_info
# with it.
#
#   release_metrics <LINES     LINES: "SUITE VERSION UNIX-TIME" per suite; prints the file
release_metrics() {
  local name=station_agent_release_published_timestamp_seconds suite version at
  printf '# HELP %s When the newest station-agent of each suite of this repository was published into it (Unix time).\n' "$name"
  printf '# TYPE %s gauge\n' "$name"
  while read -r suite version at; do
    [[ -n $suite ]] || continue
    printf '%s{suite="%s",version="%s"} %s\n' "$name" "$suite" "$version" "$at"
  done
}
