#!/bin/sh
# "Hosts" for multi-host tests on one Linux machine: network namespaces joined by a bridge.
#
#   sudo infra/netns-hosts.sh up K [--redis-port P]
#   sudo infra/netns-hosts.sh down
#
# up K creates namespaces iosw-h1 … iosw-hK, each with one veth (iosw-pI inside, iosw-vI on
# the bridge) and address 10.213.0.(10+I)/24, and the bridge iosw-br0 with 10.213.0.1/24 in
# the root namespace. With --redis-port it also starts a private redis-server bound to
# 10.213.0.1:P (no persistence), which every namespace reaches. Run a "host" command with
#   ip netns exec iosw-h2 node bin/ioswarm.js simulate --url http://10.213.0.11:3000 …
# Cut a host's link with `ip link set iosw-v2 down` (and `up` to restore it).
#
# These addresses exist only inside this machine: the namespaces have no default route and
# no link to any real interface, so their traffic reaches only the bridge and each other.
# 10.213.0.0/24 must be unused here; up refuses to start otherwise.
#
# down removes everything up created: processes still running inside the namespaces
# (SIGTERM, then SIGKILL after 5 s), the namespaces, veths, the bridge, the redis-server and
# a FORWARD rule if one was added. It is idempotent, and up runs it itself when it fails.
# Needs root and iproute2 (ip, ss). State: ${IOSW_NETNS_STATE:-/run/ioswarm-netns}.
set -eu

BRIDGE=iosw-br0
PREFIX=10.213.0
STATE=${IOSW_NETNS_STATE:-/run/ioswarm-netns}
MAX_HOSTS=50

say() { echo "netns-hosts: $*" >&2; }
fail() { say "$*"; exit 1; }
bad_usage() { say "$*"; exit 2; }
usage() { sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

need_root() {
  [ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces and links)"
  command -v ip >/dev/null 2>&1 || fail "needs iproute2 (the ip command)"
  ip netns list >/dev/null 2>&1 || fail "'ip netns' does not work here"
}

# Our names only: iosw-h<N> namespaces and iosw-v<N> links, plus the bridge.
our_namespaces() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^iosw-h[0-9]+$' || true; }
our_veths() { ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^iosw-v[0-9]+$' || true; }

stop_pids() { # stop_pids PID… : SIGTERM, then SIGKILL whatever is left after 5 s
  [ "$#" -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  tries=0
  while [ "$tries" -lt 50 ]; do
    alive=''
    for pid in "$@"; do if kill -0 "$pid" 2>/dev/null; then alive=1; fi; done
    [ -n "$alive" ] || return 0
    sleep 0.1
    tries=$((tries + 1))
  done
  kill -KILL "$@" 2>/dev/null || true
}

forward_rule() { # forward_rule -I|-D|-C : bridged traffic accepted where br_netfilter sends it through iptables
  iptables "$1" FORWARD -i "$BRIDGE" -o "$BRIDGE" -m comment --comment ioswarm-netns -j ACCEPT 2>/dev/null
}

down() {
  for ns in $(our_namespaces); do
    # shellcheck disable=SC2046 # one word per pid
    stop_pids $(ip netns pids "$ns" 2>/dev/null)
    ip netns del "$ns" 2>/dev/null || true
  done
  for link in $(our_veths); do ip link del "$link" 2>/dev/null || true; done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
  if [ -f "$STATE/redis.pid" ]; then
    pid=$(cat "$STATE/redis.pid")
    # Only the redis-server we started: a pid file can outlive its process and the pid be reused.
    if [ -n "$pid" ] && grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null; then stop_pids "$pid"; fi
  fi
  if [ -f "$STATE/forward-rule" ]; then
    while forward_rule -C; do forward_rule -D || break; done
  fi
  rm -rf "$STATE"
}

up() {
  count=$1 redis_port=$2
  if ip link show "$BRIDGE" >/dev/null 2>&1 || [ -n "$(our_namespaces)" ] || [ -d "$STATE" ]; then
    fail "already up (or left over): run '$0 down' first"
  fi
  if [ -n "$(ip -4 -o addr show 2>/dev/null | grep " $PREFIX\.")" ] || [ -n "$(ip -4 route show "$PREFIX.0/24" 2>/dev/null)" ]; then
    fail "$PREFIX.0/24 is already in use on this machine; these test hosts need it to themselves"
  fi
  mkdir -p "$STATE"
  trap 'status=$?; if [ "$status" -ne 0 ]; then say "up failed (exit $status): removing what it created"; down; fi' EXIT
  ip link add "$BRIDGE" type bridge
  ip addr add "$PREFIX.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  i=1
  while [ "$i" -le "$count" ]; do
    ns=iosw-h$i
    ip netns add "$ns"
    ip link add "iosw-v$i" type veth peer name "iosw-p$i"
    ip link set "iosw-p$i" netns "$ns"
    ip link set "iosw-v$i" master "$BRIDGE" up
    ip -n "$ns" addr add "$PREFIX.$((10 + i))/24" dev "iosw-p$i"
    ip -n "$ns" link set lo up
    ip -n "$ns" link set "iosw-p$i" up
    echo "$ns $PREFIX.$((10 + i)) iosw-v$i"
    i=$((i + 1))
  done
  # With br_netfilter loaded and bridge-nf-call-iptables=1 (Docker hosts), traffic between
  # two ports of a bridge goes through the FORWARD chain, whose policy may be DROP.
  if [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null || echo 0)" = 1 ] && command -v iptables >/dev/null 2>&1; then
    if ! forward_rule -C; then forward_rule -I && : >"$STATE/forward-rule"; fi
  fi
  if [ -n "$redis_port" ]; then start_redis "$redis_port"; fi
  trap - EXIT
}

start_redis() {
  port=$1
  bin=${IOSW_REDIS_SERVER:-$(command -v redis-server || true)}
  [ -n "$bin" ] || fail "--redis-port needs redis-server on PATH (or IOSW_REDIS_SERVER)"
  "$bin" --bind "$PREFIX.1" --port "$port" --save '' --appendonly no --protected-mode no \
    --daemonize yes --pidfile "$STATE/redis.pid" --logfile "$STATE/redis.log" --dir "$STATE"
  tries=0
  until ss -ltnH "sport = :$port" 2>/dev/null | grep -q "$PREFIX.1:$port"; do
    tries=$((tries + 1))
    [ "$tries" -le 100 ] || fail "redis-server did not listen on $PREFIX.1:$port within 10 s (log: $STATE/redis.log)"
    sleep 0.1
  done
  echo "redis redis://$PREFIX.1:$port"
}

[ "$#" -ge 1 ] || usage
case "$1" in
  up)
    [ "$#" -ge 2 ] || usage
    count=$2 redis_port=''
    case "$count" in '' | *[!0-9]* | 0*) bad_usage "up needs a number of hosts from 1 to $MAX_HOSTS, got \"$count\"" ;; esac
    [ "$count" -le "$MAX_HOSTS" ] || bad_usage "up needs a number of hosts from 1 to $MAX_HOSTS, got $count"
    shift 2
    if [ "$#" -gt 0 ]; then
      [ "$1" = --redis-port ] && [ "$#" -eq 2 ] || usage
      case "$2" in '' | *[!0-9]* | 0*) bad_usage "--redis-port needs a port number, got \"$2\"" ;; esac
      redis_port=$2
    fi
    need_root
    up "$count" "$redis_port"
    ;;
  down) [ "$#" -eq 1 ] || usage; need_root; down ;;
  -h | --help) usage ;;
  *) usage ;;
esac
