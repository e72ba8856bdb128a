#!/usr/bin/env bash
# hosts.sh: two simulated hosts on one machine, for multi-node MPI jobs.
#
#   scripts/hosts.sh up                 create hosts h1 and h2 (idempotent)
#   scripts/hosts.sh down               remove them and everything up made
#   scripts/hosts.sh status             say whether they are up
#   scripts/hosts.sh run [--mpich] [--timeout S] [--tag-output] [-x VAR]... -np N PROGRAM ARGS...
#                                       run an MPI job across them (brings them
#                                       up first if needed)
#   scripts/hosts.sh -h                 this text
#
# Each host is a network namespace (h1, h2) joined by a veth pair (veth1 in
# h1 with 10.77.0.1/24, veth2 in h2 with 10.77.0.2/24), with a persistent UTS
# namespace of its own for its host name (/run/uts/h1, /run/uts/h2) and a
# hosts file in /etc/netns/NS/hosts (bind-mounted by `ip netns exec`; the
# machine's /etc/hosts is not touched). The MPI launchers reach the second
# host through a remote agent that stands in for ssh: it drops ssh's options,
# maps the host name to its namespace and runs the command there. The
# launcher itself runs inside h1.
#
# run fills the ranks host by host: N/2 on h1 (rounded up), the rest on h2.
#   Open MPI (default): mpirun with the agent as plm_rsh_agent, TCP only on
#     the veth (pml ob1, btl tcp,self), no core binding, and out-of-band
#     keepalive probes (3 s idle, 1 s apart, 3 probes) so that a lost link
#     ends the job instead of hanging it. Idle ranks yield the CPU
#     (mpi_yield_when_idle): each simulated host counts the machine's cores
#     as its own, so Open MPI would not see that the two together are
#     oversubscribed, and busy-polling ranks made a sort test 10x slower.
#   --mpich: mpiexec.mpich with the agent as ssh launcher, UCX_TLS=tcp,self,sm:
#     tcp between the hosts, sm within one (each host has its own boot id, by
#     which UCX tells hosts apart; with one boot id UCX joined the two hosts
#     by shared memory and nothing crossed the veth). UCX_TLS=tcp,self alone
#     hung in MPI_Finalize in 5 of 5 runs at 2 x 2; with tcp,self,sm a job
#     still hangs there after all ranks finished, nearly always once every
#     pair of ranks has talked: UCX 1.13's TCP teardown, see
#     docs/CLUSTER.md.
# -x VAR passes the caller's variable VAR to every rank (-x for Open MPI,
# -genv for MPICH); --tag-output prefixes each line with its rank
# (--tag-output, -prepend-rank). Every run is bounded: timeout -k 5 S
# (default 120 s; exit 124 or 137 when it fired, and whatever the job left
# running in the hosts is killed, but for processes that ran there before
# it started). A job that ends by a signal before that (a killed launcher
# or rank: exit 128+N) is reported as such, with the time it took. After a
# job that failed, and at down, what a killed launcher left goes: its
# session directories and shared-memory files (scripts/mpi-clean.sh). One
# job at a time.
#
# Needs root and `ip netns`; where either is missing it says why on standard
# error and exits 77, so that a test script can skip with the reason.
#
# Environment: XPMPI_HOSTS_TIMEOUT (default for --timeout);
# XPMPI_HOSTS_KEEPALIVE=0 leaves Open MPI's keepalive probes out (to see a
# lost link hang the job, or xpmpi's watchdog end it alone);
# XPMPI_HOSTS_UCX_TLS (MPICH's UCX_TLS, default tcp,self,sm).
set -uo pipefail

SKIP=77
NS=(h1 h2)
ADDR=(10.77.0.1 10.77.0.2)
NET=10.77.0.0/24
VETH=(veth1 veth2)
STATE=/run/xpmpi-hosts
AGENT=$STATE/agent

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

die() {
	echo "hosts.sh: $*" >&2
	exit 1
}

# can_run: root, ip netns, nsenter, unshare, timeout; else exit 77 with why.
can_run() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "hosts.sh: needs root (network namespaces); run as root or skip the multi-host steps" >&2
		exit $SKIP
	fi
	local c
	for c in ip nsenter unshare timeout; do
		if ! command -v "$c" >/dev/null 2>&1; then
			echo "hosts.sh: $c not found (iproute2, util-linux, coreutils)" >&2
			exit $SKIP
		fi
	done
	if ! ip netns list >/dev/null 2>&1; then
		echo "hosts.sh: 'ip netns' is not available here: $(ip netns list 2>&1 | head -n 1)" >&2
		exit $SKIP
	fi
	# Root in a container may still lack the right to make namespaces.
	local why
	if ! why=$(unshare --net --uts true 2>&1); then
		echo "hosts.sh: cannot create network and UTS namespaces here: $why" >&2
		exit $SKIP
	fi
}

is_up() {
	local i
	for i in 0 1; do
		[ -e "/run/netns/${NS[$i]}" ] || return 1
		[ -e "/run/uts/${NS[$i]}" ] || return 1
		ip -n "${NS[$i]}" link show "${VETH[$i]}" 2>/dev/null | grep -q 'state UP' || return 1
	done
	[ -x "$AGENT" ]
}

write_agent() {
	cat >"$AGENT.tmp" <<'EOF'
#!/bin/sh
# The remote agent of scripts/hosts.sh: an ssh stand-in that runs the
# command in the named simulated host (network and UTS namespaces).
while [ $# -gt 0 ]; do
	case $1 in
	-[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; # ssh options with an argument
	-*) shift ;;
	*) break ;;
	esac
done
host=${1:?hosts agent: no host}
shift
case $host in
h1 | 10.77.0.1) ns=h1 ;;
h2 | 10.77.0.2) ns=h2 ;;
*)
	echo "hosts agent: unknown host $host (want h1 or h2)" >&2
	exit 255
	;;
esac
# Each host has a boot id of its own, as real hosts do: UCX (MPICH) takes
# ranks with the same boot id for ranks of one machine and would otherwise
# join the two hosts by shared memory instead of TCP over the veth.
# ip netns exec gives the command a mount namespace of its own, so the bind
# mount is seen by this command and its children only.
exec ip netns exec "$ns" nsenter --uts="/run/uts/$ns" sh -c \
	"mount --bind /run/xpmpi-hosts/$ns.boot_id /proc/sys/kernel/random/boot_id && exec sh -c \"\$1\"" sh "$*"
EOF
	chmod 755 "$AGENT.tmp"
	mv "$AGENT.tmp" "$AGENT"
}

up() {
	can_run
	if is_up; then
		echo "hosts h1, h2: up"
		return 0
	fi
	# Whatever a failed earlier up left behind goes first.
	down_quiet
	mkdir -p /run/uts "$STATE"
	local i ns
	for i in 0 1; do
		ns=${NS[$i]}
		ip netns add "$ns" || die "ip netns add $ns failed"
		touch "/run/uts/$ns"
		unshare --uts="/run/uts/$ns" hostname "$ns" || die "unshare --uts for $ns failed"
		mkdir -p "/etc/netns/$ns"
		printf '127.0.0.1\tlocalhost\n%s\th1\n%s\th2\n' "${ADDR[0]}" "${ADDR[1]}" >"/etc/netns/$ns/hosts"
	done
	ip link add "${VETH[0]}" netns "${NS[0]}" type veth peer name "${VETH[1]}" netns "${NS[1]}" ||
		die "creating the veth pair failed"
	for i in 0 1; do
		ns=${NS[$i]}
		ip -n "$ns" addr add "${ADDR[$i]}/24" dev "${VETH[$i]}"
		ip -n "$ns" link set lo up
		ip -n "$ns" link set "${VETH[$i]}" up
		# A dead peer is given up on after 3 retransmissions (about 3 s:
		# 0.2 + 0.4 + 0.8 + 1.6 s) instead of the default 15 (~15
		# minutes). The veth pair loses a packet when a test takes its
		# link down, not four times in a row otherwise.
		ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_retries2=3 >/dev/null ||
			echo "hosts.sh: warning: could not set net.ipv4.tcp_retries2 in $ns" >&2
	done
	# The veths come up with ~1 s of lag; UCX ignores a link that is not up
	# yet and MPI_Init then fails now and then.
	local t
	for t in $(seq 1 100); do
		if ip -n "${NS[0]}" link show "${VETH[0]}" | grep -q 'state UP' &&
			ip -n "${NS[1]}" link show "${VETH[1]}" | grep -q 'state UP'; then
			break
		fi
		sleep 0.1
	done
	ip -n "${NS[0]}" link show "${VETH[0]}" | grep -q 'state UP' || die "veth1 did not come up in 10 s"
	ip -n "${NS[1]}" link show "${VETH[1]}" | grep -q 'state UP' || die "veth2 did not come up in 10 s"
	for ns in "${NS[@]}"; do
		cat /proc/sys/kernel/random/uuid >"$STATE/$ns.boot_id"
	done
	write_agent
	# The agent must reach h2, and h2 must be called h2 there.
	local name
	name=$("$AGENT" -x h2 hostname) || die "the agent cannot run a command in h2"
	[ "$name" = h2 ] || die "h2 calls itself '$name'"
	echo "hosts h1 (${ADDR[0]}), h2 (${ADDR[1]}): up; agent $AGENT"
}

# down_quiet removes everything up may have made, whatever state it is in.
down_quiet() {
	local ns pid
	for ns in "${NS[@]}"; do
		if [ -e "/run/netns/$ns" ]; then
			# Processes left in the namespace (ranks of a killed job).
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null || true
			done
			ip netns del "$ns" 2>/dev/null || true
		fi
		if [ -e "/run/uts/$ns" ]; then
			umount "/run/uts/$ns" 2>/dev/null || true
			rm -f "/run/uts/$ns"
		fi
		rm -rf "/etc/netns/$ns"
	done
	rmdir /run/uts /etc/netns 2>/dev/null || true
	rm -rf "$STATE"
	# What a killed launcher left: its session directories
	# (ompi.h1.UID/pid.N) and its ranks' shared-memory files. Every process
	# in the hosts was killed above, so nothing holds them any more.
	for ns in "${NS[@]}"; do
		"$(dirname "${BASH_SOURCE[0]}")/mpi-clean.sh" --age 0 --host "$ns" >/dev/null
	done
}

down() {
	can_run
	down_quiet
	local left=""
	for ns in "${NS[@]}"; do
		[ -e "/run/netns/$ns" ] && left+=" netns:$ns"
		[ -e "/run/uts/$ns" ] && left+=" uts:$ns"
	done
	[ -z "$left" ] || die "could not remove:$left"
	echo "hosts h1, h2: down"
}

status() {
	can_run
	if is_up; then
		echo "hosts h1, h2: up"
		local i
		for i in 0 1; do
			echo "  ${NS[$i]}: $(ip -n "${NS[$i]}" -br addr show "${VETH[$i]}" | tr -s ' ')"
		done
		return 0
	fi
	echo "hosts h1, h2: down"
	return 1
}

cmd_run() {
	local mpich=0 tag=0 limit=${XPMPI_HOSTS_TIMEOUT:-120} np="" pass=()
	while [ $# -gt 0 ]; do
		case $1 in
		--mpich) mpich=1 ;;
		--tag-output) tag=1 ;;
		--timeout)
			limit=${2:?--timeout needs seconds}
			shift
			;;
		-x)
			pass+=("${2:?-x needs a variable name}")
			shift
			;;
		-np | -n)
			np=${2:?-np needs a count}
			shift
			;;
		-h | --help)
			usage
			exit 0
			;;
		--)
			shift
			break
			;;
		-*) die "run: unknown option $1 (see hosts.sh -h)" ;;
		*) break ;;
		esac
		shift
	done
	[ $# -gt 0 ] || die "run: no program (see hosts.sh -h)"
	[[ $np =~ ^[1-9][0-9]*$ ]] || die "run: -np N is required, N >= 1"
	can_run
	is_up || up >&2 || exit 1
	local k1=$(((np + 1) / 2)) k2=$((np / 2)) prog=$1
	shift
	# The program's path must mean the same inside the namespaces (they share
	# the file system): make it absolute if it names a file here.
	if [[ $prog != /* ]] && [ -e "$prog" ]; then
		prog=$PWD/$prog
	fi
	local launcher=() v
	if [ $mpich = 1 ]; then
		local mpiexec
		mpiexec=$(command -v mpiexec.mpich || command -v mpirun.mpich) || die "run --mpich: mpiexec.mpich not found"
		local hosts=h1:$k1
		[ "$k2" -gt 0 ] && hosts+=,h2:$k2
		launcher=("$mpiexec" -launcher ssh -launcher-exec "$AGENT" -hosts "$hosts" -n "$np"
			-genv UCX_TLS "${XPMPI_HOSTS_UCX_TLS:-tcp,self,sm}")
		[ $tag = 1 ] && launcher+=(-prepend-rank)
		for v in "${pass[@]}"; do
			[ -n "${!v+x}" ] && launcher+=(-genv "$v" "${!v}")
		done
	else
		local mpirun
		mpirun=$(command -v mpirun.openmpi || command -v mpirun) || die "run: Open MPI's mpirun not found"
		local hosts=h1:$k1
		[ "$k2" -gt 0 ] && hosts+=,h2:$k2
		launcher=("$mpirun" --host "$hosts" -np "$np" --oversubscribe --bind-to none
			--mca plm_rsh_agent "$AGENT"
			--mca pml ob1 --mca btl tcp,self
			--mca btl_tcp_if_include "$NET" --mca oob_tcp_if_include "$NET"
			--mca mpi_yield_when_idle 1)
		if [ "${XPMPI_HOSTS_KEEPALIVE:-1}" != 0 ]; then
			launcher+=(--mca oob_tcp_keepalive_time 3 --mca oob_tcp_keepalive_intvl 1
				--mca oob_tcp_keepalive_probes 3)
		fi
		[ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
		[ $tag = 1 ] && launcher+=(--tag-output)
		for v in "${pass[@]}"; do
			[ -n "${!v+x}" ] && launcher+=(-x "$v")
		done
	fi
	# The launcher runs in h1, with its host name; the caller's directory is
	# kept (the namespaces share the file system).
	# A launcher killed by the time limit (or a signal to this script) can
	# leave ranks behind, in process groups of their own: whatever runs in
	# the hosts then goes too (hosts.sh runs one job at a time).
	# The launcher runs in the background so that a signal to this script
	# is handled at once (bash runs a trap only after a foreground command).
	local rc=0 job start=$SECONDS
	# What already runs in the hosts (daemons a test started there) is not
	# the job's: kill_left spares it.
	BEFORE=" $(for v in "${NS[@]}"; do ip netns pids "$v" 2>/dev/null; done | tr '\n' ' ') "
	timeout -k 5 "$limit" ip netns exec "${NS[0]}" nsenter --uts="/run/uts/${NS[0]}" \
		sh -c 'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"' "$STATE/${NS[0]}.boot_id" \
		"${launcher[@]}" "$prog" "$@" <&0 &
	job=$!
	trap 'kill -TERM $job 2>/dev/null; sleep 1; kill_left; exit 130' INT
	trap 'kill -TERM $job 2>/dev/null; sleep 1; kill_left; exit 143' TERM
	wait $job || rc=$?
	trap - INT TERM
	# Exit 124 or 137 is timeout's only when the limit has passed: a job
	# whose launcher or rank was killed (SIGKILL: 137) ends so too.
	local took=$((SECONDS - start))
	if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ $took -ge "$limit" ]; then
		echo "hosts.sh: the job ran past ${limit}s and was stopped (exit $rc)" >&2
		kill_left
	elif [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
		echo "hosts.sh: the job ended after ${took}s with exit $rc: the launcher or a rank was killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo unknown))" >&2
		[ $rc -eq 137 ] && kill_left
	fi
	if [ $rc -ne 0 ]; then
		# A launcher that did not end cleanly leaves its session directory
		# and its ranks' shared-memory files: those no live process holds go.
		local v
		for v in "${NS[@]}"; do
			"$(dirname "${BASH_SOURCE[0]}")/mpi-clean.sh" --host "$v" >/dev/null
		done
	fi
	return $rc
}

# kill_left kills every process left in the hosts, but those that ran
# there before the job started (BEFORE).
BEFORE=" "
kill_left() {
	local ns pid
	for ns in "${NS[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			[[ $BEFORE == *" $pid "* ]] && continue
			kill -KILL "$pid" 2>/dev/null || true
		done
	done
}

case ${1:-} in
up) up ;;
down) down ;;
status) status ;;
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
	echo "hosts.sh: unknown command $1 (up, down, status, run; -h for help)" >&2
	exit 2
	;;
esac
