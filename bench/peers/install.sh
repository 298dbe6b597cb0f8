#!/usr/bin/env bash
# Installs the side-by-side peers from Debian's packages (npm ones come with `npm install`), and
# makes sure none of them runs as a system service: the bench starts its own instances, bound to
# 127.0.0.1, each with its own data directory. Idempotent: running it twice changes nothing.
#
#   bash bench/peers/install.sh [rabbitmq|nats|etcd|all]...
#
# Prints one line per peer: "installed: NAME (VERSION)" or "skipped: NAME: reason"; exits 0 in
# both cases so that one peer that cannot be installed never hides the others.
set -u

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(all)
wants() { for w in "${want[@]}"; do [ "$w" = all ] || [ "$w" = "$1" ] && return 0; done; return 1; }

packages_of() {
  case "$1" in
    rabbitmq) echo rabbitmq-server ;;
    nats) echo nats-server ;;
    etcd) echo etcd-server ;;
  esac
}
service_of() {
  case "$1" in
    rabbitmq) echo rabbitmq-server ;;
    nats) echo nats-server ;;
    etcd) echo etcd ;;
  esac
}
binary_of() {
  case "$1" in
    rabbitmq) echo /usr/lib/rabbitmq/bin/rabbitmq-server ;;
    nats) echo /usr/bin/nats-server ;;
    etcd) echo /usr/bin/etcd ;;
  esac
}

# Package maintainer scripts start services through invoke-rc.d; a policy-rc.d that answers 101
# ("action forbidden") keeps them from starting. Only ours is removed afterwards.
policy=/usr/sbin/policy-rc.d
our_policy=0
block_service_starts() {
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && our_policy=1
  fi
}
restore_service_starts() { [ "$our_policy" = 1 ] && rm -f "$policy"; our_policy=0; }
trap restore_service_starts EXIT

apt_updated=0
install_peer() {
  local name=$1 pkg bin
  pkg=$(packages_of "$name")
  bin=$(binary_of "$name")
  if [ ! -x "$bin" ]; then
    if [ "$(id -u)" != 0 ]; then echo "skipped: $name: not root, cannot apt-get install $pkg"; return; fi
    if [ "$apt_updated" = 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || { echo "skipped: $name: apt-get update failed"; return; }
      apt_updated=1
    fi
    block_service_starts
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$pkg" >/tmp/raftq-bench-apt-$name.log 2>&1; then
      echo "skipped: $name: apt-get install $pkg failed (see /tmp/raftq-bench-apt-$name.log)"
      restore_service_starts
      return
    fi
    restore_service_starts
  fi
  disable_system_service "$name"
  echo "installed: $name ($(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo unknown))"
}

# Whatever the package started (a system service, epmd listening on every interface) is stopped
# and disabled: the bench's own instances listen on loopback only.
disable_system_service() {
  local svc
  svc=$(service_of "$1")
  if [ -x "/etc/init.d/$svc" ]; then
    /etc/init.d/"$svc" stop >/dev/null 2>&1 || true
    update-rc.d "$svc" disable >/dev/null 2>&1 || true
  fi
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now "$svc" >/dev/null 2>&1 || true
    [ "$1" = rabbitmq ] && systemctl disable --now epmd.socket epmd.service >/dev/null 2>&1 || true
  fi
  if [ "$1" = rabbitmq ]; then
    # A system epmd (started by the package, listening on 0.0.0.0) is stopped by its exact pid;
    # the bench's own epmd runs with ERL_EPMD_ADDRESS=127.0.0.1.
    local pid
    for pid in $(pgrep -x epmd 2>/dev/null); do
      if ! { tr "\0" "\n" <"/proc/$pid/environ"; } 2>/dev/null | grep -q "^ERL_EPMD_ADDRESS=127.0.0.1$"; then
        kill "$pid" 2>/dev/null || true
      fi
    done
  fi
}

for peer in rabbitmq nats etcd; do
  wants "$peer" && install_peer "$peer"
done
exit 0
