#!/bin/sh
# Host limits for ioswarm: file descriptors, ephemeral ports, listen backlog.
#
#   infra/tune-host.sh --check --clients N [--processes K] [--destinations D] [--transport T]
#       Changes nothing. Reports what would stop a run of N clients spread over K simulator
#       processes and D destination address:port pairs, and exits 1 if anything would.
#   sudo infra/tune-host.sh
#       Raises the limits (files under /etc, applied now where Linux allows), saying why
#       for each change. Remove /etc/sysctl.d/90-ioswarm.conf and
#       /etc/security/limits.d/90-ioswarm.conf to go back to the distribution's defaults.
#
# Exit codes: 0 ok, 1 something would block the run (--check) or a change failed, 2 usage.
# IOSW_SYSCTL_DIR (default /proc/sys) is where --check reads kernel settings from.
set -eu

NOFILE=1048576          # per-process file descriptors to allow
PORT_RANGE="10240 65535" # ephemeral ports: leaves 1024-10239 to services that bind fixed ports
SOMAXCONN=4096           # accept queue ceiling; Node asks for 511, a server under a connect burst wants more
HEADROOM_FDS=64          # per process: stdio, Redis, IPC, the event loop's own, files

usage() {
  sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

die_usage() {
  echo "tune-host.sh: $1" >&2
  exit 2
}

whole() { # whole <flag> <value>: a positive whole number, or exit 2
  case "$2" in
    '' | *[!0-9]* | 0*) die_usage "$1 must be a whole number of at least 1, got \"$2\"" ;;
  esac
  [ "${#2}" -le 9 ] || die_usage "$1 is too large: $2"
}

sysctl_value() { # sysctl_value net.core.somaxconn
  tr -s '\t ' '  ' 2>/dev/null <"${IOSW_SYSCTL_DIR:-/proc/sys}/$(echo "$1" | tr . /)" || echo ''
}

check() {
  clients=$1 processes=$2 destinations=$3 per_client=$4
  blocked=0
  # Files: every client is one socket (two while a polling request and a POST overlap).
  # Node raises its soft limit to the hard one at start, so the hard limit is what counts.
  per_process=$(( (clients + processes - 1) / processes ))
  need_fds=$(( per_process * per_client + HEADROOM_FDS ))
  hard=$(ulimit -Hn)
  if [ "$hard" = unlimited ] || [ "$hard" -ge "$need_fds" ]; then
    echo "ok     files: $per_process clients per process need about $need_fds descriptors; the hard limit is $hard"
  else
    blocked=1
    echo "BLOCK  files: $per_process clients per process need about $need_fds descriptors, but the hard limit (ulimit -Hn) is $hard."
    usable=$(( hard > HEADROOM_FDS * 2 ? hard - HEADROOM_FDS : HEADROOM_FDS ))
    echo "       Fix: raise the limit (sudo infra/tune-host.sh, then log in again), or spread the clients over $(( (clients * per_client + usable - 1) / usable )) or more processes."
  fi
  # Ports: one local port per connection to the same destination address:port, from one range.
  range=$(sysctl_value net.ipv4.ip_local_port_range)
  low=${range% *} high=${range#* }
  if [ -z "$range" ] || [ "$low" = "$range" ]; then
    echo "?      ports: cannot read net.ipv4.ip_local_port_range; not checked"
  else
    ports=$(( high - low + 1 ))
    need_ports=$(( (clients * per_client + destinations - 1) / destinations ))
    if [ "$need_ports" -le "$ports" ]; then
      echo "ok     ports: $need_ports connections per destination; the ephemeral range $low-$high has $ports ports"
    else
      blocked=1
      echo "BLOCK  ports: $need_ports connections per destination address:port, but the ephemeral range $low-$high has $ports ports."
      echo "       Fix: spread clients over $(( (clients * per_client + ports - 1) / ports )) or more destinations (addresses or ports of the server), or widen the range: sudo infra/tune-host.sh"
    fi
  fi
  # Backlog: listen() queues are capped at somaxconn; a full queue drops SYNs, which clients
  # retry after 1 s (3 s on older kernels), and that shows up as connect time, not a failure.
  backlog=$(sysctl_value net.core.somaxconn)
  if [ -z "$backlog" ]; then
    echo "?      backlog: cannot read net.core.somaxconn; not checked"
  elif [ "$backlog" -lt 511 ]; then
    blocked=1
    echo "BLOCK  backlog: net.core.somaxconn is $backlog, below Node's listen backlog of 511: a server on this host drops connects in bursts. Fix: sudo infra/tune-host.sh"
  elif [ "$backlog" -lt "$SOMAXCONN" ]; then
    echo "warn   backlog: net.core.somaxconn is $backlog; a server on this host may drop connects during a fast ramp (tune-host.sh sets $SOMAXCONN)"
  else
    echo "ok     backlog: net.core.somaxconn is $backlog"
  fi
  tw=$(sysctl_value net.ipv4.tcp_tw_reuse)
  if [ "$per_client" -gt 1 ] && [ "$tw" = 0 ]; then
    echo "warn   ports: net.ipv4.tcp_tw_reuse is 0: closed polling connections hold their ports in TIME_WAIT for 60 s (tune-host.sh sets 1)"
  fi
  if [ "$blocked" -eq 1 ]; then
    echo "blocked: this host cannot run $clients clients in $processes process(es) as it is"
    return 1
  fi
  echo "ready: $clients clients in $processes process(es)"
}

apply() {
  [ "$(id -u)" -eq 0 ] || { echo "tune-host.sh: changing limits needs root (sudo); --check needs none" >&2; exit 1; }
  nr_open=$(sysctl_value fs.nr_open)
  raise_nr_open=''
  if [ -n "$nr_open" ] && [ "$nr_open" -lt "$NOFILE" ]; then raise_nr_open="fs.nr_open = $NOFILE"; fi
  echo "Open files: every client is a socket, and each process may open at most its hard limit."
  echo "  Writing /etc/security/limits.d/90-ioswarm.conf: nofile $NOFILE for every user (new logins);"
  echo "  systemd services need LimitNOFILE=$NOFILE in their unit instead."
  printf '# ioswarm: open files for load tests (infra/tune-host.sh)\n*    soft nofile %s\n*    hard nofile %s\nroot soft nofile %s\nroot hard nofile %s\n' \
    "$NOFILE" "$NOFILE" "$NOFILE" "$NOFILE" >/etc/security/limits.d/90-ioswarm.conf
  echo "Kernel settings, written to /etc/sysctl.d/90-ioswarm.conf and applied now:"
  echo "  net.ipv4.ip_local_port_range = $PORT_RANGE: more local ports per destination (one per connection)."
  echo "  net.core.somaxconn = $SOMAXCONN: a longer accept queue, so connect bursts are not dropped."
  echo "  net.ipv4.tcp_tw_reuse = 1: outgoing connections may reuse ports in TIME_WAIT (polling opens many)."
  echo "  fs.file-max = 2097152: the system-wide ceiling of open files."
  [ -z "$raise_nr_open" ] || echo "  $raise_nr_open: the most files one process may be allowed (was $nr_open); the limit above cannot exceed it."
  cat >/etc/sysctl.d/90-ioswarm.conf <<EOF
# ioswarm load tests (infra/tune-host.sh)
net.ipv4.ip_local_port_range = $PORT_RANGE
net.core.somaxconn = $SOMAXCONN
net.ipv4.tcp_tw_reuse = 1
fs.file-max = 2097152
$raise_nr_open
EOF
  sysctl -p /etc/sysctl.d/90-ioswarm.conf
  echo "Done. Log in again (or restart the service) for the new open-file limit; check with: ulimit -Hn"
}

mode=apply clients='' processes=1 destinations=1 transport=websocket
while [ "$#" -gt 0 ]; do
  case "$1" in
    --check) mode=check; shift ;;
    --clients | --processes | --destinations | --transport)
      [ "$#" -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --clients) whole "$1" "$2"; clients=$2 ;;
        --processes) whole "$1" "$2"; processes=$2 ;;
        --destinations) whole "$1" "$2"; destinations=$2 ;;
        --transport) transport=$2 ;;
      esac
      shift 2 ;;
    -h | --help) usage ;;
    *) die_usage "unknown argument \"$1\" (see --help)" ;;
  esac
done

if [ "$mode" = check ]; then
  [ -n "$clients" ] || die_usage "--check needs --clients N"
  case "$transport" in
    websocket) per_client=1 ;;
    polling | upgrade | *,* | *:*) per_client=2 ;;
    *) die_usage "--transport must be websocket, polling, upgrade or a mix such as websocket:70,polling:30, got \"$transport\"" ;;
  esac
  check "$clients" "$processes" "$destinations" "$per_client"
else
  [ -z "$clients" ] || die_usage "--clients is for --check; the changes do not depend on it"
  apply
fi
