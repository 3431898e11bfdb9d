# shellcheck shell=bash
# Variables here are used by the tests that source this file.
# shellcheck disable=SC2034
# tests/guest/lib.bash: helpers for guest tests of the fault-injection
# series.  Sourced; tests run as root inside the guest.
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
grep -qw 'mmfi.guest=1' /proc/cmdline || fail "not in the mmfi guest"

FS=/sys/kernel/debug/failslab

# kmsg_of TAG NAME FILE: write NAME to FILE (a test module's debugfs trigger)
# and print the kernel log from a unique mark logged just before.
kmsg_of() {
	local mark="$1: $2 $RANDOM$RANDOM"
	echo "$mark" >/dev/kmsg
	echo "$2" >"$3"
	dmesg | sed -n "/$mark/,\$p"
}
TRACING=/sys/kernel/tracing
COUNTERS=" calls matched injected "

# fi_is_config FILE: true if FILE of a capability holds configuration (a
# writable file, not a counter).
fi_is_config() { [[ -f $1 && -w $1 && $COUNTERS != *" ${1##*/} "* ]]; }

# fi_files DIR: the files of a capability that hold configuration.
fi_files() {
	local f
	for f in "$1"/*; do
		fi_is_config "$f" && echo "$f"
	done
	return 0
}

# fi_read FILE VAR: FILE's contents without the trailing newlines, in VAR,
# without a fork.
fi_read() {
	local -n fi_val=$2
	IFS= read -r -d '' fi_val <"$1" || true
	while [[ $fi_val == *$'\n' ]]; do fi_val=${fi_val%$'\n'}; done
}

# fi_snapshot_to VAR DIR: every configuration file of DIR and its value, in
# VAR, without a fork (the fuzz test takes thousands of them).
fi_snapshot_to() {
	local -n fi_snap=$1
	local f v
	fi_snap=
	for f in "$2"/*; do
		fi_is_config "$f" || continue
		IFS= read -r -d '' v <"$f" || true
		fi_snap+="${f##*/}=$v|"
	done
}

# fi_save DIR: remember DIR's configuration; fi_restore puts it back (on
# EXIT too).  Probability goes to 0 first and back last.
declare -A FI_SAVED=()
FI_DIR=
fi_save() {
	local f
	FI_DIR=$1
	for f in "$FI_DIR"/*; do
		fi_is_config "$f" && fi_read "$f" "FI_SAVED[$f]"
	done
	trap fi_restore EXIT
}
fi_restore() {
	local f
	[[ -n $FI_DIR ]] || return 0
	echo 0 >"$FI_DIR/probability"
	for f in "${!FI_SAVED[@]}"; do
		[[ $f == */probability ]] && continue
		echo "${FI_SAVED[$f]}" >"$f" 2>/dev/null || echo "warning: could not restore $f" >&2
	done
	echo "${FI_SAVED[$FI_DIR/probability]}" >"$FI_DIR/probability"
	echo 0 >"$FI_DIR/calls"
	echo 0 >$TRACING/events/fault_inject/enable 2>/dev/null || true
}

# fi_arm_quiet DIR: the usual base: every call may fail, quietly.
fi_arm_base() {
	echo 0 >"$1/verbose"
	echo 1 >"$1/interval"
	echo 0 >"$1/space"
	[[ -f $1/ignore-gfp-wait ]] && echo N >"$1/ignore-gfp-wait"
	echo 0 >"$1/calls"
	return 0
}

# marked_start SCRIPT: start bash -c SCRIPT, held until marked_go; prints
# nothing, sets MARKED_PID (so filters can name it before it runs).
marked_start() {
	local fifo
	fifo=$(mktemp -u /dev/shm/go.XXXXXX)
	mkfifo "$fifo"
	MARKED_FIFO=$fifo
	bash -c 'read -r _ <"$0"; rm -f "$0"; eval "$1"' "$fifo" "$1" &
	MARKED_PID=$!
}
marked_go() {	# release the task, wait for it; sets MARKED_RC
	echo go >"$MARKED_FIFO"
	MARKED_RC=0
	wait "$MARKED_PID" || MARKED_RC=$?
}

# expect_eq WHAT GOT WANT
expect_eq() { [[ $2 == "$3" ]] || fail "$1 is '$2', expected '$3'"; ok "$1 = $3"; }
counter() { cat "$1/$2"; }
trace_on() {
	echo >$TRACING/trace
	echo 1 >$TRACING/events/fault_inject/fault_inject/enable
}
trace_events() { grep -v '^#' $TRACING/trace | grep 'fault_inject:' || true; }
