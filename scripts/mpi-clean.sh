#!/usr/bin/env bash
# mpi-clean.sh: remove what Open MPI jobs that did not end cleanly left
# behind (a killed launcher leaves both, until the machine reboots):
#   - its ranks' shared-memory files, /dev/shm/vader_segment.* (4 MiB or
#     more each), and
#   - its session directory, ompi.HOST.UID/pid.PID under $TMPDIR and /tmp
#     (PID is the launcher's).
#
#   scripts/mpi-clean.sh [-n] [--age S] [--host HOST]
#
# Only what no live process holds is removed: a shared-memory file that no
# process maps (/proc/PID/maps) or has open (/proc/PID/fd), and that was
# not changed in the last S seconds (default 10: a job that starts now
# creates its segment a moment before it maps it); a session directory
# whose launcher is not running (no process PID, or one that is not
# mpirun, orterun or orted: the number was reused). A running job's files
# are never removed. --host HOST limits both to the files of jobs on the
# host called HOST (the names hold the host name). -n lists what would go
# and removes nothing. It prints one line per file or directory removed
# and exits 0.
#
# scripts/hosts.sh down and scripts/test.sh's cleanup run it; on a
# cluster, a job epilog can do the same (docs/CLUSTER.md).
set -uo pipefail

dry=0 age=10 host='*'
while [ $# -gt 0 ]; do
	case $1 in
	-n) dry=1 ;;
	--age)
		age=${2:?--age needs seconds}
		shift
		;;
	--host)
		host=${2:?--host needs a host name}
		shift
		;;
	-h | --help)
		sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "mpi-clean.sh: unknown argument $1 (-h for help)" >&2
		exit 2
		;;
	esac
	shift
done
shopt -s nullglob

gone() { # WHAT PATH
	if [ $dry = 1 ]; then
		echo "mpi-clean.sh: would remove $2 ($1)"
	elif rm -rf -- "$2"; then
		echo "mpi-clean.sh: removed $2 ($1)"
	fi
}

# Shared-memory files.
shm=/dev/shm
files=("$shm"/vader_segment.$host.*)
if [ ${#files[@]} -gt 0 ]; then
	# Every file under /dev/shm that some process maps or has open;
	# processes that end meanwhile, or that cannot be read, are skipped.
	held=$(
		{
			# cat goes on past maps it cannot read; awk (mawk) would stop.
			cat /proc/[0-9]*/maps 2>/dev/null | awk -v d="$shm/" 'index($6, d) == 1 {print $6}'
			find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname "$shm/*" -printf '%l\n' 2>/dev/null
		} | sort -u
	)
	now=$(date +%s)
	for f in "${files[@]}"; do
		[ -f "$f" ] || continue
		if [ -n "$held" ] && grep -qxF -- "$f" <<<"$held"; then
			continue
		fi
		mtime=$(stat -c %Y -- "$f" 2>/dev/null) || continue
		[ $((now - mtime)) -ge "$age" ] || continue
		gone "no live process holds it" "$f"
	done
fi

# Session directories.
for base in $(printf '%s\n' "${TMPDIR:-/tmp}" /tmp | sort -u); do
	for d in "$base"/ompi.$host.*/pid.*; do
		[ -d "$d" ] || continue
		pid=${d##*/pid.}
		[[ $pid =~ ^[0-9]+$ ]] || continue
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || comm=""
		case $comm in
		mpirun* | orterun* | orted* | prte*) continue ;;
		esac
		gone "its launcher, pid $pid, is not running" "$d"
		# The host's directory, once it holds no job's.
		[ $dry = 1 ] || rmdir -- "${d%/pid.*}" 2>/dev/null || true
	done
done
exit 0
