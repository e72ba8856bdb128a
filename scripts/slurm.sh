#!/usr/bin/env bash
# slurm.sh: a two-node Slurm cluster on the simulated hosts of hosts.sh.
#
#   scripts/slurm.sh up                 start munge, slurmctld and a slurmd on
#                                       each of h1 and h2 (idempotent)
#   scripts/slurm.sh down               stop them and remove everything up made
#   scripts/slurm.sh status             say what is up (exit 1 if not all)
#   scripts/slurm.sh run [--timeout S] COMMAND ARGS...
#                                       run a Slurm client command (srun,
#                                       sbatch, squeue, scontrol, ...) on h1,
#                                       against this cluster
#   scripts/slurm.sh env                print the variables a client needs
#   scripts/slurm.sh -h                 this text
#
# up brings the hosts up (scripts/hosts.sh up) if they are not, then starts,
# each in the background with a pid file under the state directory
# /run/xpmpi-slurm:
#   munged     with a key generated for this cluster and its own socket
#              (the hosts share the file system, so one munged serves both);
#   slurmctld  in h1 (SlurmctldHost h1, 10.77.0.1);
#   slurmd     one in h1 (NodeName h1, NodeAddr 10.77.0.1) and one in h2
#              (NodeName h2, NodeAddr 10.77.0.2), each in its host's network
#              and UTS namespaces and with its host's boot id (as the remote
#              agent of hosts.sh does, so that MPICH's UCX tells the hosts
#              apart) and a /tmp of its own ($STATE/NODE/tmp).
# The configuration is generated in the state directory (slurm.conf,
# cgroup.conf): each node has the CPUs this machine has (nproc; the two
# simulated hosts share them), one partition "xp" holds both; process
# tracking by the process tree (proctrack/linuxproc, no cgroups), KillWait
# 10 s, requeue allowed; a batch job that exits with 75 (xpmpi's
# mpi.ExitStopped: it stopped on a signal and checkpointed) is requeued
# (RequeueExit=75) after the step credentials' lifetime, 10 s here
# (AuthInfo cred_expire; Slurm's default 120 s; XPMPI_SLURM_CRED_EXPIRE),
# at the scheduler's next pass (every 2 s here, SchedulerParameters).
# The packaged files in /etc/slurm are not read or
# touched: the daemons get -f, the clients SLURM_CONF.
#
# down stops the daemons and every job step they left (slurmstepd and its
# processes), removes the state directory (configuration, spool, logs, the
# munge key and socket) and takes the hosts down if up brought them up. It
# works from any state, a failed up included.
#
# run sets SLURM_CONF and runs COMMAND in h1 (its network and host name), in
# the caller's directory (bringing the cluster up first if it is not up at
# all; one with a daemon down is left as it is), bounded by timeout -k 5 S (default 120 s). Jobs'
# ranks run in h1 and h2 as the slurmds start them.
#
# Needs root, ip netns (see hosts.sh) and Debian's Slurm and munge
# (slurmctld, slurmd, slurm-client, munge). Where the packages are missing
# up installs them through scripts/setup.sh --slurm when
# XPMPI_SLURM_INSTALL=1 (the test suite does not); otherwise, or where
# anything else is missing, it says why on standard error and exits 77, so
# that a test script can skip with the reason.
set -uo pipefail

SKIP=77
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HOSTS=$HERE/hosts.sh
NS=(h1 h2)
ADDR=(10.77.0.1 10.77.0.2)
STATE=/run/xpmpi-slurm
CONF=$STATE/slurm.conf
HSTATE=/run/xpmpi-hosts # hosts.sh's state: the boot ids

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

die() {
	echo "slurm.sh: $*" >&2
	exit 1
}

skip() {
	echo "slurm.sh: $*" >&2
	exit $SKIP
}

# can_run: root, the hosts' prerequisites, the Slurm and munge programs.
can_run() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (namespaces, daemons); run as root or skip the Slurm steps"
	local missing=() c
	for c in munged mungekey slurmctld slurmd srun sbatch scontrol sinfo; do
		command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] || missing+=("$c")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "${XPMPI_SLURM_INSTALL:-0}" = 1 ]; then
			"$HERE/setup.sh" --slurm >&2 || skip "installing Slurm and munge failed (scripts/setup.sh --slurm)"
		else
			skip "Slurm or munge not installed (missing: ${missing[*]}): run scripts/setup.sh --slurm, or set XPMPI_SLURM_INSTALL=1"
		fi
	fi
	PATH=$PATH:/usr/sbin
}

# in_host NS CMD...: run CMD in host NS (network, host name, boot id).
in_host() {
	local ns=$1
	shift
	ip netns exec "$ns" nsenter --uts="/run/uts/$ns" sh -c \
		'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"' "$HSTATE/$ns.boot_id" "$@"
}

write_conf() {
	# A requeued job waits for the step credentials' lifetime before it
	# starts again (Slurm's default 120 s, which the requeue test would
	# wait out); long enough for a step to start on a loaded machine.
	local CRED_EXPIRE=${XPMPI_SLURM_CRED_EXPIRE:-10}
	local cpus
	cpus=$(nproc)
	mkdir -p "$STATE/ctld" "$STATE/log" "$STATE/h1" "$STATE/h2"
	cat >"$CONF" <<EOF
# Generated by scripts/slurm.sh: the two simulated hosts of scripts/hosts.sh.
ClusterName=xpmpi
SlurmctldHost=h1(${ADDR[0]})
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$STATE/munge-socket/munge.socket,cred_expire=$CRED_EXPIRE
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/%n/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/%n/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd-%n.log
SlurmctldDebug=info
MailProg=/bin/true
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=2
ReturnToService=2
JobRequeue=1
RequeueExit=75
KillWait=10
MinJobAge=60
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
Waittime=0
NodeName=h1 NodeAddr=${ADDR[0]} CPUs=$cpus State=UNKNOWN
NodeName=h2 NodeAddr=${ADDR[1]} CPUs=$cpus State=UNKNOWN
PartitionName=xp Nodes=h1,h2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
	# slurmd loads a cgroup plugin whatever TaskPlugin and ProctrackType
	# say, and its autodetection fails where /sys/fs/cgroup is a tmpfs of
	# v1 hierarchies (a hybrid layout): name the version that is mounted.
	local cg=cgroup/v1
	[ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && cg=cgroup/v2
	cat >"$STATE/cgroup.conf" <<EOF
# Generated by scripts/slurm.sh: no cgroup enforcement on the simulated hosts.
CgroupPlugin=$cg
CgroupAutomount=no
ConstrainCores=no
ConstrainRAMSpace=no
EOF
}

start_munge() {
	# The key in a directory of root's alone; the socket in one that
	# every user may enter (munged checks both).
	mkdir -p "$STATE/munge" "$STATE/munge-socket"
	chmod 700 "$STATE/munge"
	chmod 755 "$STATE" "$STATE/munge-socket"
	mungekey -c -f -k "$STATE/munge/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none
	chmod 600 "$STATE/munge/munge.key"
	munged --socket="$STATE/munge-socket/munge.socket" --key-file="$STATE/munge/munge.key" \
		--pid-file="$STATE/munge/munged.pid" --seed-file="$STATE/munge/munged.seed" \
		--log-file="$STATE/log/munged.log" ||
		die "munged did not start: $(tail -n 3 "$STATE/log/munged.log" 2>/dev/null)"
}

# wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds.
wait_for() {
	local n=$(($1 * 10)) what=$2 i
	shift 2
	for i in $(seq 1 $n); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

nodes_idle() {
	local s
	s=$(in_host h1 env SLURM_CONF="$CONF" sinfo -h -N -o '%N %t' 2>/dev/null) || return 1
	echo "$s" | grep -q '^h1 idle' && echo "$s" | grep -q '^h2 idle'
}

all_up() {
	local f
	for f in munge/munged.pid slurmctld.pid h1/slurmd.pid h2/slurmd.pid; do
		[ -s "$STATE/$f" ] && kill -0 "$(cat "$STATE/$f")" 2>/dev/null || return 1
	done
}

up() {
	can_run
	if all_up && nodes_idle; then
		echo "slurm: up (slurmctld on h1, slurmd on h1 and h2); SLURM_CONF=$CONF"
		return 0
	fi
	down_quiet
	if ! "$HOSTS" status >/dev/null 2>&1; then
		local rc=0
		"$HOSTS" up >&2 || rc=$?
		[ $rc -eq $SKIP ] && exit $SKIP
		[ $rc -eq 0 ] || die "scripts/hosts.sh up failed (exit $rc)"
		mkdir -p "$STATE"
		touch "$STATE/hosts-by-slurm"
	fi
	mkdir -p "$STATE"
	write_conf
	start_munge
	local ctldlog=$STATE/log/slurmctld.log
	in_host h1 slurmctld -f "$CONF" -i ||
		die "slurmctld did not start: $(tail -n 5 "$ctldlog" 2>/dev/null)"
	local ns
	for ns in "${NS[@]}"; do
		mkdir -p "$STATE/$ns/spool" "$STATE/$ns/tmp"
		chmod 1777 "$STATE/$ns/tmp"
		# Each host has a /tmp of its own, as real hosts do: Slurm's PMIx
		# plugin makes /tmp/spmix_appdir_<uid>_<step> on every node of a
		# step, and with one /tmp the second slurmd's step failed
		# ("File exists").
		ip netns exec "$ns" nsenter --uts="/run/uts/$ns" sh -c \
			'mount --bind "$0" /proc/sys/kernel/random/boot_id && mount --bind "$1" /tmp && shift && exec "$@"' \
			"$HSTATE/$ns.boot_id" "$STATE/$ns/tmp" slurmd -f "$CONF" -N "$ns" ||
			die "slurmd on $ns did not start: $(tail -n 5 "$STATE/log/slurmd-$ns.log" 2>/dev/null)"
	done
	if ! wait_for 30 "nodes idle" nodes_idle; then
		local s
		s=$(in_host h1 env SLURM_CONF="$CONF" sinfo -N 2>&1)
		die "the nodes did not come up idle in 30 s: $s
$(tail -n 5 "$ctldlog" "$STATE"/log/slurmd-*.log 2>/dev/null)"
	fi
	echo "slurm: up (slurmctld on h1, slurmd on h1 and h2, $(nproc) CPUs each); SLURM_CONF=$CONF"
}

# tree PID...: the pids and all their descendants.
tree() {
	local p
	for p in "$@"; do
		echo "$p"
		tree $(pgrep -P "$p" 2>/dev/null)
	done
}

# down_quiet stops whatever up started, in whatever state it is.
down_quiet() {
	local pids=() f p
	for f in slurmctld.pid h1/slurmd.pid h2/slurmd.pid; do
		[ -s "$STATE/$f" ] && pids+=("$(cat "$STATE/$f")")
	done
	# Daemons of this configuration whose pid file went missing, and the
	# job steps in the hosts (slurmstepd and the ranks under it): a step
	# outlives its slurmd.
	for p in $(pgrep -x slurmctld; pgrep -x slurmd); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "$CONF" && pids+=("$p")
	done
	for p in $(pgrep -x slurmstepd); do
		case $(ip netns identify "$p" 2>/dev/null) in
		h1 | h2) pids+=("$p") ;;
		esac
	done
	if [ ${#pids[@]} -gt 0 ]; then
		local all
		all=$(tree "${pids[@]}" | sort -u)
		kill -TERM $all 2>/dev/null
		for _ in $(seq 1 30); do
			local alive=0
			for p in $all; do kill -0 "$p" 2>/dev/null && alive=1; done
			[ $alive = 0 ] && break
			sleep 0.1
		done
		kill -KILL $all 2>/dev/null
	fi
	if [ -s "$STATE/munge/munged.pid" ]; then
		p=$(cat "$STATE/munge/munged.pid")
		kill -TERM "$p" 2>/dev/null
		for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	fi
	if [ -e "$STATE/hosts-by-slurm" ]; then
		"$HOSTS" down >/dev/null 2>&1
	fi
	rm -rf "$STATE"
	true
}

down() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	down_quiet
	[ -e "$STATE" ] && die "could not remove $STATE"
	echo "slurm: down"
}

status() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	local f name ok=0
	for f in munge/munged.pid:munged slurmctld.pid:slurmctld h1/slurmd.pid:slurmd-h1 h2/slurmd.pid:slurmd-h2; do
		name=${f#*:}
		f=${f%%:*}
		if [ -s "$STATE/$f" ] && kill -0 "$(cat "$STATE/$f")" 2>/dev/null; then
			echo "  $name: running (pid $(cat "$STATE/$f"))"
		else
			echo "  $name: not running"
			ok=1
		fi
	done
	if [ $ok = 0 ]; then
		in_host h1 env SLURM_CONF="$CONF" sinfo -N -h -o '  node %N: partition %P, %c CPUs, %t' 2>&1
		nodes_idle || ok=1
	fi
	if [ $ok = 0 ]; then
		echo "slurm: up; SLURM_CONF=$CONF"
	else
		echo "slurm: down"
	fi
	return $ok
}

cmd_run() {
	local limit=${XPMPI_SLURM_TIMEOUT:-120}
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout)
			limit=${2:?--timeout needs seconds}
			shift 2
			;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command (see slurm.sh -h)"
	can_run
	# Only a cluster that is not there at all is brought up: one with a
	# daemon down (a node lost on purpose) is left as it is.
	if [ ! -s "$STATE/slurmctld.pid" ]; then
		up >&2 || exit $?
	elif ! all_up; then
		echo "slurm.sh: warning: not every daemon is running (slurm.sh status)" >&2
	fi
	local rc=0 job
	timeout -k 5 "$limit" ip netns exec h1 nsenter --uts=/run/uts/h1 env SLURM_CONF="$CONF" "$@" <&0 &
	job=$!
	trap 'kill -TERM $job 2>/dev/null; exit 130' INT
	trap 'kill -TERM $job 2>/dev/null; exit 143' TERM
	wait $job || rc=$?
	trap - INT TERM
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "slurm.sh: $1 ran past ${limit}s and was stopped (exit $rc)" >&2
	fi
	return $rc
}

case ${1:-} in
up) up ;;
down) down ;;
status) status ;;
env) echo "SLURM_CONF=$CONF" ;;
run)
	shift
	cmd_run "$@"
	;;
-h | --help | help) usage ;;
"")
	usage >&2
	exit 2
	;;
*)
	echo "slurm.sh: unknown command $1 (up, down, status, run, env; -h for help)" >&2
	exit 2
	;;
esac
