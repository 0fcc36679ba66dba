# --- station-agent's maintainer-script functions (packaging/debian/maintscript-functions.sh) ---
# Written into preinst, postinst, prerm and postrm by scripts/package.sh: postrm runs after
# the package's files are gone, so each script carries its own copy of this one source.
#
# Every path is under ${DPKG_ROOT:-}: dpkg sets DPKG_ROOT when it installs into another root,
# and test/package runs the package's own scripts under a temporary root that way. systemd is
# asked only when it runs in that root (${DPKG_ROOT}/run/systemd/system): an image being
# built, or the test's temporary root, has none.

SA_OPT=/opt/station-agent
SA_ETC=/etc/station-agent
SA_STATE=/var/lib/station-agent
SA_UNIT=station-agent.service
SA_DEFAULT_USER=station-agent
# This package's version, written by scripts/package.sh.
SA_PACKAGE_VERSION=@VERSION@

sa_say() { echo "station-agent: $*"; }

sa_systemd_running() { [ -d "${DPKG_ROOT:-}/run/systemd/system" ]; }

# The service user and group: the dedicated user from sysusers.d, created when missing
# (an existing one, for example from bin/install, is kept as it is).
sa_create_user() {
  if [ -n "${DPKG_ROOT:-}" ]; then
    mkdir -p "$DPKG_ROOT/etc"
    systemd-sysusers --root="$DPKG_ROOT" station-agent.conf
  else
    systemd-sysusers station-agent.conf
  fi
}

# USER:GROUP ids of a user, read in the root's own /etc/passwd first (a system user always
# is), else through NSS (a login user such as pi from a directory service).
sa_ids() {
  sa_entry=$(awk -F: -v u="$1" '$1 == u { print $3 ":" $4; exit }' "${DPKG_ROOT:-}/etc/passwd" 2>/dev/null || true)
  if [ -z "$sa_entry" ] && [ -z "${DPKG_ROOT:-}" ]; then
    sa_entry=$(getent passwd "$1" | awk -F: '{ print $3 ":" $4 }')
  fi
  [ -n "$sa_entry" ] || return 1
  echo "$sa_entry"
}

# The user a unit runs as: its User= with the operator's drop-ins (systemctl edit), when
# systemd runs; else the packaged unit's.
sa_unit_user() {
  sa_user=
  if sa_systemd_running; then
    sa_user=$(systemctl show --property=User --value "$1" 2>/dev/null || true)
  fi
  echo "${sa_user:-$SA_DEFAULT_USER}"
}

# The unit that reads a config file: config.json -> station-agent.service, NAME.json ->
# station-agent@NAME.service (the template unit, one per station).
sa_unit_of() {
  case ${1##*/} in
    config.json) echo "$SA_UNIT" ;;
    *.json) sa_name=${1##*/}; echo "station-agent@${sa_name%.json}.service" ;;
  esac
}

# The configs of this machine's stations: config.json and NAME.json in /etc/station-agent.
sa_configs() {
  for sa_file in "${DPKG_ROOT:-}$SA_ETC"/*.json; do
    [ -f "$sa_file" ] && echo "$sa_file"
  done
}

# Runs the agent as the unit's user, with a clean environment (a STATION_AGENT_* variable in
# dpkg's environment must not stand in for the config's own token).
sa_agent_as() {
  sa_id=$(sa_ids "$1") || { sa_say "user $1 does not exist"; return 1; }
  shift
  setpriv --reuid="${sa_id%:*}" --regid="${sa_id#*:}" --clear-groups \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent \
    "${DPKG_ROOT:-}$SA_OPT/node/bin/node" "${DPKG_ROOT:-}$SA_OPT/bin/station-agent" "$@"
}

# Runs the package's node as a user, with a clean environment (sa_agent_as, for a script).
sa_node_as() {
  sa_id=$(sa_ids "$1") || return 1
  shift
  setpriv --reuid="${sa_id%:*}" --regid="${sa_id#*:}" --clear-groups \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/nonexistent "${DPKG_ROOT:-}$SA_OPT/node/bin/node" "$@"
}

# Whether a config is valid and names a token the unit's user can read: the agent's own
# `config validate` says (its tokenSource is null without one). Prints why not when not.
sa_has_token() {
  sa_out=$(sa_agent_as "$1" config validate --json --config "$2" 2>/dev/null || true)
  sa_why=$(echo "$sa_out" | "${DPKG_ROOT:-}$SA_OPT/node/bin/node" -e '
    const chunks = [];
    process.stdin.on("data", (d) => chunks.push(d)).on("end", () => {
      const r = (() => {
        try { return JSON.parse(Buffer.concat(chunks).toString()); } catch { return { problems: ["the agent could not check it"] }; }
      })();
      if (r.valid && r.tokenSource) return;
      console.log(r.valid ? "it names no token (service.token or service.tokenFile)" : r.problems.join("; "));
    });')
  [ -z "$sa_why" ] && return 0
  sa_say "${2#"${DPKG_ROOT:-}"}: $sa_why"
  return 1
}

# The config, only when missing: config.example.json, 0600, the service user's. Its folder
# is root's and the service group's, 0750 (the agent reads it, never writes it).
sa_create_config() {
  sa_id=$(sa_ids "$SA_DEFAULT_USER")
  sa_etc=${DPKG_ROOT:-}$SA_ETC
  if [ ! -d "$sa_etc" ]; then
    install -d -m 0750 -o 0 -g "${sa_id#*:}" "$sa_etc"
  fi
  if [ -z "$(sa_configs)" ]; then
    install -m 0600 -o "${sa_id%:*}" -g "${sa_id#*:}" "${DPKG_ROOT:-}$SA_OPT/config.example.json" "$sa_etc/config.json.dpkg-tmp"
    mv "$sa_etc/config.json.dpkg-tmp" "$sa_etc/config.json"
    sa_say "created $SA_ETC/config.json from $SA_OPT/config.example.json: edit it, then start $SA_UNIT"
  fi
}

# The queue's folder, 0700, the service user's (systemd's StateDirectory= would create it at
# the first start; the CLI may be run before that).
sa_create_state() {
  sa_id=$(sa_ids "$SA_DEFAULT_USER")
  if [ ! -d "${DPKG_ROOT:-}$SA_STATE" ]; then
    install -d -m 0700 -o "${sa_id%:*}" -g "${sa_id#*:}" "${DPKG_ROOT:-}$SA_STATE"
  fi
}

# The queue's migrations, by the new code, while the agent is stopped (prerm stopped it):
# `status --offline` opens an existing queue the way the daemon does, which applies the
# migrations it lacks, and creates none.
sa_migrate() {
  if sa_agent_as "$1" status --offline --json --config "$2" >/dev/null; then
    sa_say "queue of $2: up to date"
  else
    sa_say "WARNING: the queue of $2 could not be opened by the new version (see above); its unit is not started"
    return 1
  fi
}

# The queue's schema version this package's agent knows (its number of migrations), written
# by scripts/package.sh.
SA_QUEUE_SCHEMA=@QUEUE_SCHEMA@

# preinst of a downgrade: refuses when a station's queue has migrations this (older) version
# does not know, which it cannot undo and would not open (it says "upgrade station-agent" and
# leaves the unit stopped). Asked of the installed agent, which is still in place, as the
# unit's user: its status names the queue file, its node and SQLite read the schema version.
sa_refuse_unknown_schema() {
  [ -x "${DPKG_ROOT:-}$SA_OPT/node/bin/node" ] || return 0
  for sa_config in $(sa_configs); do
    sa_unit=$(sa_unit_of "$sa_config")
    sa_user=$(sa_unit_user "$sa_unit")
    sa_file=$(sa_agent_as "$sa_user" status --offline --json --config "$sa_config" 2>/dev/null |
      "${DPKG_ROOT:-}$SA_OPT/node/bin/node" -e '
        const chunks = [];
        process.stdin.on("data", (d) => chunks.push(d)).on("end", () => {
          try { const q = JSON.parse(Buffer.concat(chunks).toString()).queue; if (q.exists) console.log(q.file); } catch {}
        });') || true
    [ -n "$sa_file" ] || continue
    sa_schema=$(sa_node_as "$sa_user" -e '
      const [lib, file] = process.argv.slice(1);
      const Database = require(lib);
      const db = new Database(file, { readonly: true, fileMustExist: true });
      console.log(db.pragma("user_version", { simple: true }));
      db.close();' "${DPKG_ROOT:-}$SA_OPT/node_modules/better-sqlite3" "${DPKG_ROOT:-}$sa_file" 2>/dev/null) || continue
    if [ -n "$sa_schema" ] && [ "$sa_schema" -gt "$SA_QUEUE_SCHEMA" ]; then
      echo "station-agent: the queue $sa_file has schema version $sa_schema; this version of station-agent knows $SA_QUEUE_SCHEMA and cannot undo the newer migrations." >&2
      echo "station-agent: refusing the downgrade: the installed version stays (and starts again). To go back anyway, move the queue away first (its waiting items are then not uploaded)." >&2
      return 1
    fi
  done
  return 0
}

# Units this package starts or stops: the single unit and the running template instances.
sa_stop_units() {
  sa_systemd_running || return 0
  deb-systemd-invoke stop "$SA_UNIT" >/dev/null || true
  for sa_instance in $(systemctl list-units --plain --no-legend --all 'station-agent@*.service' 2>/dev/null | awk '{ print $1 }'); do
    deb-systemd-invoke stop "$sa_instance" >/dev/null || true
  done
}

# After an install or an upgrade: each station whose config names a token has its queue
# migrated, then its unit started (deb-systemd-invoke starts only enabled units, and honours
# policy-rc.d). A station without a token is left stopped until its owner adds one.
sa_start_units() {
  for sa_config in $(sa_configs); do
    sa_unit=$(sa_unit_of "$sa_config")
    sa_user=$(sa_unit_user "$sa_unit")
    if ! sa_has_token "$sa_user" "$sa_config"; then
      sa_say "not starting $sa_unit: add the token to ${sa_config#"${DPKG_ROOT:-}"}, then: systemctl start $sa_unit"
      continue
    fi
    sa_migrate "$sa_user" "$sa_config" || continue
    if sa_systemd_running; then
      sa_say "starting $sa_unit"
      deb-systemd-invoke start "$sa_unit" || true
    else
      sa_say "$sa_unit is ready to start (systemd is not running here)"
    fi
  done
}
# --- end of the maintainer-script functions ---
