# shellcheck shell=bash
# qemu/lib.sh: paths and helpers shared by every script of the harness.
# Sourced, never run.  Callers use `set -euo pipefail`.

# Paths used by the scripts that source this file.
# shellcheck disable=SC2034
MMFI_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
MMFI_BUILD=${MMFI_BUILD:-$MMFI_TOP/build}
MMFI_SRC=$MMFI_BUILD/linux             # git tree made from linux-source
MMFI_INITRAMFS=$MMFI_BUILD/initramfs.cpio.gz
MMFI_RUNDIRS=$MMFI_BUILD/run           # one directory per guest
MMFI_STAP_RUNTIME=$MMFI_BUILD/stap-runtime
# The patched tapsets (qemu/stap-runtime makes them; stap reads this).
MMFI_STAP_TAPSET=$MMFI_BUILD/stap-tapset
export SYSTEMTAP_TAPSET=$MMFI_STAP_TAPSET
MMFI_TARBALL=${MMFI_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
MMFI_FLAVOURS="default kasan kcsan"

# mmfi_flavour NAME: select a kernel flavour: the same tree and series,
# configured with kernel-patches/guest.config plus, for a flavour other
# than "default", kernel-patches/flavour-NAME.config, and built in its own
# directory.  Sets MMFI_FLAVOUR, MMFI_KBUILD (O= build directory),
# MMFI_MODROOT (modules_install output), MMFI_BZIMAGE, MMFI_FLAVOUR_MEM
# (guest memory the flavour needs by default), MMFI_FLAVOUR_APPEND (its
# kernel command-line arguments), MMFI_FLAVOUR_SRC (its source tree).
#
# "patched:NAME" is the default flavour plus one patch more, made by
# 'qemu/build-kernel --patch FILE' (NAME: FILE's name without .patch) in
# build/patched/NAME/: linux (a git worktree of build/linux at the series,
# with FILE applied), kbuild, modroot, and a copy of FILE.  It brings a
# fixed bug back (races/real/*.revert.patch) without touching the series.
mmfi_flavour() {
	local f=$1 name
	mmfi_flavour_valid "$f" ||
		usage_error "unknown kernel flavour '$f' (known: $MMFI_FLAVOURS, patched:NAME)"
	MMFI_FLAVOUR=$f MMFI_FLAVOUR_SRC=$MMFI_SRC
	MMFI_KBUILD=$MMFI_BUILD/kbuild-$f MMFI_MODROOT=$MMFI_BUILD/modroot-$f
	MMFI_FLAVOUR_MEM=1G MMFI_FLAVOUR_APPEND=''
	# The sanitizers boot slowly enough under TCG (ACPI alone takes ~20 s
	# with KASAN) to trip RCU's 21-second stall warning: a false alarm, so
	# wait the maximum.
	case $f in
	default)
		MMFI_KBUILD=$MMFI_BUILD/kbuild MMFI_MODROOT=$MMFI_BUILD/modroot ;;
	kasan)	# 1/8 shadow + quarantine; every report, not only the first
		MMFI_FLAVOUR_MEM=2G
		MMFI_FLAVOUR_APPEND="kasan_multi_shot rcupdate.rcu_cpu_stall_timeout=300" ;;
	kcsan)
		MMFI_FLAVOUR_APPEND="rcupdate.rcu_cpu_stall_timeout=300" ;;
	patched:*)
		name=${f#patched:}
		MMFI_FLAVOUR_SRC=$MMFI_BUILD/patched/$name/linux
		MMFI_KBUILD=$MMFI_BUILD/patched/$name/kbuild
		MMFI_MODROOT=$MMFI_BUILD/patched/$name/modroot ;;
	esac
	MMFI_BZIMAGE=$MMFI_KBUILD/arch/x86/boot/bzImage
}

# mmfi_flavour_valid NAME: true if NAME names a flavour (a patched one
# need not be built yet).
mmfi_flavour_valid() {
	[[ " $MMFI_FLAVOURS " == *" $1 "* || $1 =~ ^patched:[A-Za-z0-9][A-Za-z0-9._+-]*$ ]]
}

# mmfi_flavour_make: how to build the selected flavour, for messages.
mmfi_flavour_make() {
	case $MMFI_FLAVOUR in
	default) echo "make kernel" ;;
	patched:*) echo "qemu/build-kernel --patch FILE (FILE: ${MMFI_FLAVOUR#patched:}.patch)" ;;
	*) echo "make kernel FLAVOUR=$MMFI_FLAVOUR" ;;
	esac
}

# Exit statuses of qemu/run and friends, besides the command's own status.
MMFI_EXIT_USAGE=2       # bad option
MMFI_EXIT_DIED=123      # guest kernel panicked or died before the command finished
MMFI_EXIT_TIMEOUT=124   # --timeout expired; QEMU was killed
MMFI_EXIT_HARNESS=125   # the harness itself failed (no kernel, QEMU did not start, ...)

mmfi_prog=${mmfi_prog:-$(basename "$0")}

msg()  { printf '%s: %s\n' "$mmfi_prog" "$*" >&2; }
die()  { msg "$*"; exit "$MMFI_EXIT_HARNESS"; }
usage_error() { msg "$*"; msg "try '$mmfi_prog --help'"; exit "$MMFI_EXIT_USAGE"; }
step() { printf '[%s] %s\n' "$mmfi_prog" "$*" >&2; }

# mmfi_cc: the C compiler kernel and module builds use, through ccache when
# it is installed.
mmfi_cc() { if command -v ccache >/dev/null; then echo "ccache gcc"; else echo gcc; fi; }

# MMFI_FLAVOUR in the environment chooses the flavour; --flavour options
# call mmfi_flavour again.  MMFI_FLAVOUR_SET says one was asked for.
MMFI_FLAVOUR_SET=0
[[ -n ${MMFI_FLAVOUR:-} ]] && MMFI_FLAVOUR_SET=1
mmfi_flavour "${MMFI_FLAVOUR:-default}"

# mmfi_flavour_option VALUE: handle a --flavour option.
mmfi_flavour_option() {
	[[ -n ${1:-} ]] || usage_error "--flavour needs a name (one of: $MMFI_FLAVOURS, patched:NAME)"
	mmfi_flavour "$1"
	MMFI_FLAVOUR_SET=1
}

# mmfi_require_kernel: fail unless a guest kernel and initramfs exist.
mmfi_require_kernel() {
	[[ -f $MMFI_BZIMAGE ]] ||
		die "no $MMFI_FLAVOUR guest kernel at $MMFI_BZIMAGE: run '$(mmfi_flavour_make)' first"
	[[ -f $MMFI_INITRAMFS ]] ||
		die "no initramfs at $MMFI_INITRAMFS: run 'make kernel' first"
}

# mmfi_accel: choose the accelerator: sets MMFI_ACCEL_USE (kvm|tcg) and
# MMFI_ACCEL_WHY.  MMFI_ACCEL=kvm|tcg overrides the detection.
mmfi_accel() {
	if [[ -n ${MMFI_ACCEL:-} ]]; then
		case $MMFI_ACCEL in
		kvm|tcg) ;;
		*) usage_error "MMFI_ACCEL must be 'kvm' or 'tcg', not '$MMFI_ACCEL'" ;;
		esac
		MMFI_ACCEL_USE=$MMFI_ACCEL MMFI_ACCEL_WHY="MMFI_ACCEL=$MMFI_ACCEL"
	elif [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		MMFI_ACCEL_USE=tcg MMFI_ACCEL_WHY="no usable /dev/kvm"
	elif [[ -d /sys/module/kvm_pvm ]]; then
		# Nested "PVM" KVM: a normal kernel hangs before its first printk.
		MMFI_ACCEL_USE=tcg
		MMFI_ACCEL_WHY="/dev/kvm is backed by kvm_pvm, which cannot boot a normal kernel"
	else
		MMFI_ACCEL_USE=kvm MMFI_ACCEL_WHY="/dev/kvm is usable"
	fi
}

# mmfi_tcg_thread: the TCG threading mode, single unless MMFI_TCG_THREAD
# says multi.  With one host thread per vCPU (multi), QEMU 7.2 sometimes
# keeps running a stale translation of code that another vCPU has just
# patched: the vCPU loops on an int3 that text_poke_bp() already removed,
# with interrupts off, and the patching CPU waits forever for it (seen in
# guest/inject-run while failslab's static key flipped: kprobe_int3_handler
# backs RIP up over the vanished int3, and the old block runs again).
# Everything this toolkit does patches kernel text (static keys, ftrace,
# kprobes, stap), so single-threaded TCG, which runs the vCPUs in turn, is
# the default.
mmfi_tcg_thread() {
	MMFI_TCG_THREAD_USE=${MMFI_TCG_THREAD:-single}
	case $MMFI_TCG_THREAD_USE in
	single|multi) ;;
	*) usage_error "MMFI_TCG_THREAD must be 'single' or 'multi', not '$MMFI_TCG_THREAD'" ;;
	esac
}

# mmfi_tcg_lpj: the lpj= for a TCG guest, whose TSC is the host's: TSC
# cycles per jiffy.  Without it each secondary CPU times its delay loop
# against the tick while sharing QEMU's thread with the other vCPUs, and
# got a loops_per_jiffy hundreds of times too small: udelay() and mdelay()
# on those CPUs returned almost at once (a 400 us delay measured 108 us).
mmfi_tcg_lpj() {
	local helper=$MMFI_BUILD/tsc-khz src=$MMFI_TOP/qemu/tsc-khz.c khz hz
	if [[ ! -x $helper || $src -nt $helper ]]; then
		mkdir -p "$MMFI_BUILD"
		if ! { gcc -O2 -Wall -Wextra -o "$helper.tmp" "$src" && mv "$helper.tmp" "$helper"; }; then
			msg "warning: cannot build $helper: udelay() will be off in the guest"
			return 1
		fi
	fi
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$MMFI_KBUILD/.config" 2>/dev/null)
	# The measurement takes 50 ms; the rate does not change until the
	# host reboots, so it is kept per host boot.
	local boot cache=$MMFI_BUILD/tsc-khz.cache cached_boot cached_khz
	boot=$(</proc/sys/kernel/random/boot_id)
	if [[ -f $cache && ! $src -nt $cache ]] && read -r cached_boot cached_khz <"$cache" &&
		[[ $cached_boot == "$boot" ]]; then
		khz=$cached_khz
	else
		khz=$("$helper") || return 1
		echo "$boot $khz" >"$cache.$$" && mv "$cache.$$" "$cache"
	fi
	[[ $hz =~ ^[0-9]+$ && $khz =~ ^[0-9]+$ ]] || return 1
	echo $((khz * 1000 / hz))
}

# === Guests ===============================================================
# A guest is a run directory build/run/ID holding:
#   qemu.pid  console.log (in the out dir)  ready (written by the guest)
#   ctl.in ctl.out  FIFOs of the mmfi.ctl virtio-serial port (exec agent)
#   stapsh.sock     socket of the org.systemtap.stapsh.0 port
#   req/NAME/{cmd,stdout,stderr,status}   one command run in the guest
#   mode (shell|cmd|daemon)  outdir (path of the out directory)  modules

# mmfi_guest_new: create a run directory, print its path.
mmfi_guest_new() {
	local dir
	mkdir -p "$MMFI_RUNDIRS"
	mmfi_guest_prune
	dir=$(mktemp -d "$MMFI_RUNDIRS/$(date +%Y%m%d-%H%M%S)-XXXX")
	mkdir -p "$dir/req"
	mkfifo "$dir/ctl.in" "$dir/ctl.out"
	echo "$dir"
}

# mmfi_guest_alive DIR: true if the guest's QEMU still runs.
mmfi_guest_alive() {
	local pid
	pid=$(cat "$1/qemu.pid" 2>/dev/null) || return 1
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null &&
		[[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == qemu-system* ]]
}

# mmfi_guest_prune: remove run directories of dead guests, keeping the
# newest 20 for their logs.
mmfi_guest_prune() {
	local d n=0
	local dirs
	mapfile -t dirs < <(ls -1dt "$MMFI_RUNDIRS"/*/ 2>/dev/null)
	for d in "${dirs[@]}"; do
		n=$((n + 1))
		((n > 20)) || continue
		mmfi_guest_alive "$d" || rm -rf "$d"
	done
}

# mmfi_guest_find [FILE]: print the newest running guest that accepts
# attaching (an interactive 'qemu/run'), or with FILE the newest running
# guest of any kind whose run directory has FILE (gdb.port: one started
# with --gdb); or fail.  Guests of other checkouts do not count: build/run
# is per checkout.  MMFI_GUEST=DIR picks one.
# shellcheck disable=SC2120  # FILE is given by qemu/gdb, not in this file
mmfi_guest_find() {
	local d want=${1:-}
	if [[ -n ${MMFI_GUEST:-} ]]; then
		mmfi_guest_alive "$MMFI_GUEST" || die "MMFI_GUEST=$MMFI_GUEST is not a running guest"
		[[ -z $want || -f $MMFI_GUEST/$want ]] || die "MMFI_GUEST=$MMFI_GUEST has no $want"
		echo "${MMFI_GUEST%/}"
		return 0
	fi
	local dirs
	mapfile -t dirs < <(ls -1dt "$MMFI_RUNDIRS"/*/ 2>/dev/null)
	for d in "${dirs[@]}"; do
		d=${d%/}
		if [[ -n $want ]]; then
			[[ -f $d/$want ]] || continue
		else
			[[ -f $d/ready ]] || continue
			# Daemon guests belong to the qemu/stap, qemu/trace or qemu/exec
			# that booted them: only interactive shells are shared.
			[[ "$(cat "$d/mode" 2>/dev/null)" == shell ]] || continue
			if ((MMFI_FLAVOUR_SET)) &&
			   [[ "$(cat "$d/flavour" 2>/dev/null || echo default)" != "$MMFI_FLAVOUR" ]]; then
				continue
			fi
		fi
		mmfi_guest_alive "$d" && { echo "$d"; return 0; }
	done
	return 1
}

# mmfi_sock_path DIR NAME: print the path of the guest's socket NAME,
# DIR/NAME.sock or, if that is too long for a socket address (sun_path has
# 108 bytes), one in /tmp; DIR/NAME.path records it.
mmfi_sock_path() {
	local sock=$1/$2.sock
	if ((${#sock} > 100)); then
		sock=$(mktemp -u "/tmp/mmfi-$2-XXXXXX.sock")
	fi
	echo "$sock" >"$1/$2.path"
	echo "$sock"
}

# mmfi_sock_cleanup DIR: remove the sockets of a guest that has ended.
mmfi_sock_cleanup() {
	local f
	for f in "$1"/*.path; do
		[[ -f $f ]] && rm -f "$(cat "$f")"
	done
	return 0
}

# mmfi_qemu_cmdline DIR: fill the array QEMU_CMD for the guest in DIR.
# Reads DIR/mode and DIR/out; uses GUEST_SMP, GUEST_MEM, GUEST_APPEND,
# GUEST_ICOUNT, GUEST_GDB (a port for QEMU's gdbstub), GUEST_VMCORE (1:
# dump the memory of a panicking guest, see qemu/run --vmcore).  The one
# place that knows how a guest is started.
mmfi_qemu_cmdline() {
	local dir=$1 mode out sock append
	mode=$(cat "$dir/mode")
	out=$(cat "$dir/outdir")
	mmfi_accel
	sock=$(mmfi_sock_path "$dir" stapsh)
	# The accelerator; MMFI_ACCEL_DESC names it for the boot line.
	local accel_args lpj lpj_arg=
	if [[ ${GUEST_ICOUNT:-0} == 1 ]]; then
		# Deterministic guest time: one vCPU thread, time = instructions.
		accel_args=(-accel tcg -icount shift=0) MMFI_ACCEL_DESC="tcg icount"
	elif [[ $MMFI_ACCEL_USE == kvm ]]; then
		accel_args=(-accel kvm -cpu host) MMFI_ACCEL_DESC=kvm
	else
		mmfi_tcg_thread
		accel_args=(-accel "tcg,thread=$MMFI_TCG_THREAD_USE")
		MMFI_ACCEL_DESC="tcg thread=$MMFI_TCG_THREAD_USE"
		lpj=$(mmfi_tcg_lpj) && lpj_arg=" lpj=$lpj"
	fi
	# pci=noacpi: PCI interrupts routed from the BIOS's table instead of
	# ACPI's link devices, whose AML takes ~0.15 s of TCG time per link
	# (three links, half a second of every boot).
	append="console=ttyS0 panic=-1 printk.devkmsg=on pci=noacpi mmfi.guest=1$lpj_arg"
	append+=" mmfi.init=$MMFI_TOP/qemu/guest-init mmfi.stapsh=$MMFI_BUILD/stapsh mmfi.mode=$mode"
	# --vmcore: an oops panics, so that it is dumped too (a later oops=
	# in GUEST_APPEND wins).
	[[ ${GUEST_VMCORE:-0} == 1 ]] && append+=" oops=panic"
	append+=" $MMFI_FLAVOUR_APPEND ${GUEST_APPEND:-}"
	QEMU_CMD=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
		"${accel_args[@]}")
	QEMU_CMD+=(-smp "${GUEST_SMP:-2}" -m "${GUEST_MEM:-$MMFI_FLAVOUR_MEM}"
		-kernel "${GUEST_KERNEL:-$MMFI_BZIMAGE}" -initrd "$MMFI_INITRAMFS"
		-append "$append"
		-chardev "file,id=con,path=$out/console.log" -serial chardev:con
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$dir,mount_tag=ctl,security_model=none,multidevs=remap"
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap"
		-device virtio-serial-pci
		-chardev "pipe,id=ctl,path=$dir/ctl" -device virtserialport,chardev=ctl,name=mmfi.ctl
		-chardev "socket,id=stapsh,path=$sock,server=on,wait=off"
		-device virtserialport,chardev=stapsh,name=org.systemtap.stapsh.0
		-pidfile "$dir/qemu.pid")
	# The machine protocol (QMP) for qemu/dump and qemu/qmp; the
	# vmcoreinfo device receives the address of the kernel's vmcoreinfo
	# note (from its fw_cfg driver), which dumps then carry for crash and
	# drgn.
	QEMU_CMD+=(-qmp "unix:$(mmfi_sock_path "$dir" qmp),server=on,wait=off"
		-device vmcoreinfo)
	# --vmcore: pvpanic tells QEMU of a panic, QEMU pauses the guest and
	# the watcher (qemu/qmp watch, on a monitor of its own) dumps it.  The
	# guest starts stopped; the watcher lets it run once it listens.
	if [[ ${GUEST_VMCORE:-0} == 1 ]]; then
		QEMU_CMD+=(-S -device pvpanic -action panic=pause
			-qmp "unix:$(mmfi_sock_path "$dir" qmp-watch),server=on,wait=off")
	fi
	# QEMU's gdbstub, on localhost only; qemu/gdb finds the port here.
	if [[ -n ${GUEST_GDB:-} ]]; then
		QEMU_CMD+=(-gdb "tcp:127.0.0.1:$GUEST_GDB")
		echo "$GUEST_GDB" >"$dir/gdb.port"
	fi
	if [[ $mode == shell ]]; then
		QEMU_CMD+=(-device virtio-serial-pci,id=vs1
			-chardev stdio,id=term,signal=off
			-device virtconsole,bus=vs1.0,chardev=term)
	fi
}

# mmfi_shquote WORD...: the words quoted for any POSIX sh (dash included),
# each as ' word' with ' written as '\''.  printf %q may produce $'...',
# which dash does not understand; staprun runs stap -c commands with /bin/sh.
mmfi_shquote() {
	local w sq="'\\''"
	for w in "$@"; do
		printf " '%s'" "${w//\'/$sq}"
	done
}

# mmfi_write_request DIR NAME CWD CMD...: prepare DIR/req/NAME/cmd, a
# script that runs CMD in CWD (when the guest can see it).
mmfi_write_request() {
	local dir=$1 name=$2 cwd=$3 q
	shift 3
	mkdir -p "$dir/req/$name"
	q=$(printf ' %q' "$@")
	{
		echo "cd $(printf '%q' "$cwd") 2>/dev/null || cd /"
		echo "exec${q}"
	} >"$dir/req/$name/cmd"
}

# mmfi_stream DIR NAME PID DEADLINE: copy DIR/req/NAME/stdout and stderr to
# ours while they grow, until the status file appears.  Returns the
# command's status, MMFI_EXIT_DIED if QEMU (PID) went away first, or
# MMFI_EXIT_TIMEOUT after DEADLINE (seconds since the epoch; 0 = never).
mmfi_stream() {
	local req=$1/req/$2 pid=$3 deadline=$4 done=0
	_mmfi_off_1=0 _mmfi_off_2=0
	while :; do
		[[ -f $req/status ]] && done=1
		_mmfi_copy_new "$req/stdout" 1
		_mmfi_copy_new "$req/stderr" 2
		((done)) && return "$(cat "$req/status")"
		if ! kill -0 "$pid" 2>/dev/null; then
			[[ -f $req/status ]] && continue
			return "$MMFI_EXIT_DIED"
		fi
		if ((deadline > 0 && $(date +%s) >= deadline)); then
			return "$MMFI_EXIT_TIMEOUT"
		fi
		sleep 0.05
	done
}

# _mmfi_copy_new FILE FD: write what FILE gained since the last call to FD
# (the offset is kept in _mmfi_off_FD).
_mmfi_copy_new() {
	local f=$1 fd=$2 size off_var=_mmfi_off_$2
	size=$(stat -c %s "$f" 2>/dev/null) || return 0
	if ((size > ${!off_var})); then
		tail -c +$((${!off_var} + 1)) "$f" | head -c $((size - ${!off_var})) >&"$fd"
		printf -v "$off_var" '%s' "$size"
	fi
}

# mmfi_qemu_stop PID: make sure a QEMU process is gone.
mmfi_qemu_stop() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 40); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

# mmfi_console_verdict OUT: describe how the guest died, from its console.
mmfi_console_verdict() {
	local log=$1/console.log
	if grep -q 'Kernel panic - not syncing' "$log" 2>/dev/null; then
		grep -m1 'Kernel panic - not syncing' "$log" | sed 's/^\[[ 0-9.]*\] //'
	elif grep -qE 'BUG:|Oops:|general protection fault' "$log" 2>/dev/null; then
		echo "the kernel oopsed: $(grep -m1 -E 'BUG:|Oops:|general protection fault' "$log")"
	else
		echo "the guest stopped without reporting a status"
	fi
}

# mmfi_guest_prepare MODE OUT CMD...: make a run directory for a guest in
# MODE (cmd: run CMD and power off; shell: CMD on this terminal; daemon:
# wait for requests) with its out directory OUT ("" = DIR/out); print it.
mmfi_guest_prepare() {
	local mode=$1 out=$2 dir
	shift 2
	dir=$(mmfi_guest_new)
	echo "$mode" >"$dir/mode"
	[[ -n $out ]] || out=$dir/out
	mkdir -p "$out" || die "cannot create the out directory '$out'"
	out=$(cd "$out" && pwd -P)
	echo "$out" >"$dir/outdir"
	echo "$MMFI_MODROOT/lib/modules" >"$dir/modules"
	echo "$MMFI_FLAVOUR" >"$dir/flavour"
	# A reused out directory: nothing of an earlier run may pass for this one's.
	rm -f "$out/console.log" "$out/vmcore" "$out/vmcore.info"
	echo "${GUEST_KERNEL:-$MMFI_BZIMAGE}" >"$dir/kernel"
	mmfi_write_request "$dir" main "$PWD" "$@"
	echo "$dir"
}

# mmfi_guest_start DIR: start QEMU for DIR in the background; sets
# MMFI_QPID, and MMFI_WATCHER when GUEST_VMCORE=1 (mmfi_watcher_stop).  QEMU gets SIGKILL if the calling script dies (PDEATHSIG), so
# no guest outlives the command that booted it.
# _mmfi_qemu_exec PARENT CMD...: run by setpriv --pdeathsig KILL, so QEMU
# dies with the shell that started it.  The signal is armed after the fork:
# if PARENT already exited, nobody would kill this QEMU, so do not start
# it.  Inherited descriptors are closed, among them a flock(1) lock, which
# a QEMU left behind would otherwise hold.
_mmfi_qemu_exec='[ "$PPID" = "$1" ] || exit 1
shift
for fd in /proc/$$/fd/*; do
	fd=${fd##*/}
	[ "$fd" -gt 2 ] && eval "exec $fd>&-"
done
exec "$@"'

mmfi_guest_start() {
	# (Words of "CMD &" are expanded in the forked child: take the pid here.)
	local dir=$1 parent=$BASHPID
	mmfi_qemu_cmdline "$dir"
	msg "guest $(basename "$dir"): $MMFI_FLAVOUR kernel, $MMFI_ACCEL_DESC ($MMFI_ACCEL_WHY), ${GUEST_SMP:-2} CPUs, ${GUEST_MEM:-$MMFI_FLAVOUR_MEM}"
	if [[ $(cat "$dir/mode") == shell ]]; then
		# Without job control, bash gives background jobs /dev/null as
		# stdin unless it is redirected explicitly: pass the terminal on.
		local tty_fd
		exec {tty_fd}<&0
		setpriv --pdeathsig KILL -- bash -c "$_mmfi_qemu_exec" qemu "$parent" \
			"${QEMU_CMD[@]}" <&"$tty_fd" 2>"$dir/qemu.err" &
		exec {tty_fd}<&-
	else
		# A session of its own: the Ctrl-C of a terminal goes to its
		# foreground process group, and QEMU, which handles SIGINT
		# even where bash left it ignored, would end the guest before
		# 'qemu/stap' had the script's probe end run in it.  (setsid
		# does not fork here: a job of a script is no group leader.)
		setsid setpriv --pdeathsig KILL -- bash -c "$_mmfi_qemu_exec" qemu "$parent" \
			"${QEMU_CMD[@]}" </dev/null 2>"$dir/qemu.err" &
	fi
	MMFI_QPID=$!
	[[ -n ${GUEST_GDB:-} ]] && msg "gdbstub on localhost:$GUEST_GDB: 'qemu/gdb' attaches"
	MMFI_WATCHER=''
	if [[ ${GUEST_VMCORE:-0} == 1 ]]; then
		mmfi_dump_watch "$dir" "${GUEST_VMCORE_FORMAT:-$MMFI_DUMP_FORMAT}"
	fi
	return 0
}

# mmfi_gdb_option PORT: GUEST_GDB from --gdb (PORT 1234) or --gdb=PORT.
mmfi_gdb_option() {
	GUEST_GDB=$1
	if ! [[ $GUEST_GDB =~ ^[0-9]{4,5}$ ]] || ((GUEST_GDB < 1024 || GUEST_GDB > 65535)); then
		usage_error "--gdb=PORT needs a port from 1024 to 65535, not '$GUEST_GDB'"
	fi
}

# Memory dumps (qemu/run --vmcore, qemu/dump): one per run, OUT/vmcore,
# described by OUT/vmcore.info.
MMFI_DUMP_FORMAT=kdump-zlib
mmfi_dump_format_check() {
	case $1 in
	elf|kdump-zlib) ;;
	*) usage_error "unknown dump format '$1' (this QEMU writes kdump-zlib or elf)" ;;
	esac
}

# mmfi_dump_pairs DIR: the KEY=VALUE lines vmcore.info starts with: what
# crash and drgn need to open the dump of the guest in DIR.
mmfi_dump_pairs() {
	local dir=$1 flavour
	flavour=$(cat "$dir/flavour" 2>/dev/null || echo default)
	(
		mmfi_flavour "$flavour"
		echo "flavour=$flavour"
		# --kernel FILE: the vmlinux of FILE's build tree, if it has one
		kernel=$(cat "$dir/kernel" 2>/dev/null || echo "$MMFI_BZIMAGE")
		vmlinux=$MMFI_KBUILD/vmlinux
		if [[ $kernel != "$MMFI_BZIMAGE" ]]; then
			vmlinux=$(dirname "$kernel")/../../../vmlinux
			[[ -f $vmlinux ]] && vmlinux=$(realpath "$vmlinux") || vmlinux=''
		fi
		echo "vmlinux=$vmlinux"
		echo "kernel=$kernel"
		echo "modules=$MMFI_MODROOT/lib/modules"
		echo "release=$(cat "$MMFI_KBUILD/include/config/kernel.release" 2>/dev/null)"
		echo "guest=$(basename "$dir")"
	)
}

# mmfi_dump_find [DUMP]: find a memory dump: DUMP is a vmcore file, or a
# directory holding one (an out directory); without DUMP the newest vmcore
# of build/run/*/out.  Sets MMFI_DUMP (the file), MMFI_DUMP_VMLINUX and
# MMFI_DUMP_FLAVOUR from its .info file, or fails.
mmfi_dump_find() {
	local d=${1:-} info
	if [[ -z $d ]]; then
		info=$(find "$MMFI_RUNDIRS" -mindepth 3 -maxdepth 3 -path '*/out/vmcore.info' \
			-printf '%T@ %p\n' 2>/dev/null | sort -rn | head -1 | cut -d' ' -f2-)
		[[ -n $info ]] || die "no memory dump in $MMFI_RUNDIRS: name one, or make one with qemu/dump or qemu/run --vmcore"
		d=${info%.info}
	fi
	[[ -d $d ]] && d=$d/vmcore
	[[ -f $d ]] || usage_error "no memory dump at '$d'"
	[[ -f $d.info ]] || usage_error "'$d' has no $d.info beside it (made by qemu/dump and qemu/run --vmcore)"
	MMFI_DUMP=$(realpath "$d")
	MMFI_DUMP_VMLINUX=$(sed -n 's/^vmlinux=//p' "$d.info")
	MMFI_DUMP_FLAVOUR=$(sed -n 's/^flavour=//p' "$d.info")
	[[ -n $MMFI_DUMP_VMLINUX ]] ||
		die "$d.info names no vmlinux (the guest booted $(sed -n 's/^kernel=//p' "$d.info"), whose build tree has none)"
	[[ -f $MMFI_DUMP_VMLINUX ]] || die "$MMFI_DUMP_VMLINUX (from $d.info) is missing"
	if [[ $MMFI_DUMP_VMLINUX -nt $MMFI_DUMP ]]; then
		msg "warning: $MMFI_DUMP_VMLINUX was rebuilt after the dump was taken"
	fi
}

# mmfi_dump_watch DIR FORMAT: start the watcher of a guest booted with
# GUEST_VMCORE=1 (stopped; the watcher lets it run); sets MMFI_WATCHER.
mmfi_dump_watch() {
	local dir=$1 fmt=$2 out pairs
	out=$(cat "$dir/outdir")
	mapfile -t pairs < <(mmfi_dump_pairs "$dir")
	rm -f "$out/vmcore" "$out/vmcore.info" "$dir/watching"
	MMFI_QMP_READY=$dir/watching "$MMFI_TOP/qemu/qmp" "$(cat "$dir/qmp-watch.path")" watch \
		"$out/vmcore" "$fmt" "$out/vmcore.info" "${pairs[@]}" &
	MMFI_WATCHER=$!
	while [[ ! -f $dir/watching ]]; do
		kill -0 "$MMFI_WATCHER" 2>/dev/null || die "the dump watcher could not start the guest"
		sleep 0.05
	done
}

# mmfi_watcher_stop: end the dump watcher mmfi_guest_start started, if any.
mmfi_watcher_stop() {
	if [[ -n ${MMFI_WATCHER:-} ]]; then
		kill "$MMFI_WATCHER" 2>/dev/null || true
		wait "$MMFI_WATCHER" 2>/dev/null || true
		MMFI_WATCHER=''
	fi
}

# mmfi_vmcore_option [FORMAT]: GUEST_VMCORE and its format from --vmcore or
# --vmcore=FORMAT.
mmfi_vmcore_option() {
	GUEST_VMCORE=1
	if (($#)); then
		mmfi_dump_format_check "$1"
		GUEST_VMCORE_FORMAT=$1
	fi
}

# mmfi_guest_death DIR STATUS: explain why a guest ended early, return the
# status to exit with.
mmfi_guest_death() {
	local dir=$1 rc=$2 out
	out=$(cat "$dir/outdir")
	if ((rc == MMFI_EXIT_TIMEOUT)); then
		msg "timeout: the guest was killed after its time limit"
	elif [[ ! -s $out/console.log ]]; then
		msg "QEMU failed to start the guest: $(head -c 2000 "$dir/qemu.err")"
		rc=$MMFI_EXIT_HARNESS
	else
		msg "guest died: $(mmfi_console_verdict "$out")"
	fi
	msg "console log: $out/console.log"
	[[ -s $out/vmcore.info ]] && msg "memory dump: $out/vmcore (vmcore.info beside it; see qemu/dump --help)"
	return "$rc"
}

# mmfi_guest_wait_ready DIR PID DEADLINE: wait until the guest in DIR is up.
mmfi_guest_wait_ready() {
	local dir=$1 pid=$2 deadline=$3
	while [[ ! -f $dir/ready ]]; do
		kill -0 "$pid" 2>/dev/null || { mmfi_guest_death "$dir" "$MMFI_EXIT_DIED"; return; }
		if ((deadline > 0 && $(date +%s) >= deadline)); then
			mmfi_guest_death "$dir" "$MMFI_EXIT_TIMEOUT"
			return
		fi
		sleep 0.05
	done
}

# mmfi_ctl_send DIR LINE: write LINE to the guest's mmfi.ctl port.  The
# FIFO is opened read-write, which never blocks: a plain write-only open
# would wait forever for a reader if QEMU had already died.
mmfi_ctl_send() {
	local fd
	exec {fd}<>"$1/ctl.in" || return 1
	printf '%s\n' "$2" >&"$fd"
	exec {fd}>&-
}

# mmfi_guest_exec DIR DEADLINE CMD...: run CMD in the running guest of DIR
# through its exec agent, streaming its output; return its status.
mmfi_guest_exec() {
	local dir=$1 deadline=$2 name pid rc=0
	shift 2
	pid=$(cat "$dir/qemu.pid")
	name=x$(date +%s%N)$$
	mmfi_write_request "$dir" "$name" "$PWD" "$@"
	mmfi_ctl_send "$dir" "$name"
	mmfi_stream "$dir" "$name" "$pid" "$deadline" || rc=$?
	if [[ ! -f $dir/req/$name/status ]]; then
		mmfi_guest_death "$dir" "$rc" || rc=$?
	fi
	rm -rf "${dir:?}/req/$name"
	return "$rc"
}

# mmfi_guest_poweroff DIR PID: ask the guest to power off, then make sure.
mmfi_guest_poweroff() {
	local dir=$1 pid=$2
	mmfi_ctl_send "$dir" .poweroff 2>/dev/null || true
	for _ in $(seq 60); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
	mmfi_qemu_stop "$pid"
}

# mmfi_attach_or_boot NEW OUT DEADLINE: use the running guest (see
# mmfi_guest_find) unless NEW is 1 or there is none; then boot a daemon
# guest owned by the caller, with out directory OUT.  Sets MMFI_GUEST_DIR,
# MMFI_QPID and MMFI_GUEST_OWNED.  Owners call mmfi_detach when done.
mmfi_attach_or_boot() {
	local new=$1 out=$2 deadline=$3 dir rc=0
	MMFI_GUEST_OWNED=0
	if [[ $new != 1 ]] && dir=$(mmfi_guest_find); then
		MMFI_GUEST_DIR=$dir
		MMFI_QPID=$(cat "$dir/qemu.pid")
		# Compile (stap) and build against the kernel that guest runs.
		mmfi_flavour "$(cat "$dir/flavour" 2>/dev/null || echo default)"
		msg "attached to the running guest $(basename "$dir") ($MMFI_FLAVOUR kernel)"
		return 0
	fi
	mmfi_require_kernel
	dir=$(mmfi_guest_prepare daemon "$out" sleep infinity)
	MMFI_GUEST_DIR=$dir
	MMFI_GUEST_OWNED=1
	mmfi_guest_start "$dir"
	mmfi_guest_wait_ready "$dir" "$MMFI_QPID" "$deadline" || rc=$?
	return "$rc"
}

# mmfi_detach: power off the guest if mmfi_attach_or_boot booted it.
mmfi_detach() {
	if [[ ${MMFI_GUEST_OWNED:-0} == 1 && -n ${MMFI_QPID:-} ]]; then
		mmfi_guest_poweroff "$MMFI_GUEST_DIR" "$MMFI_QPID"
		mmfi_watcher_stop
		mmfi_sock_cleanup "$MMFI_GUEST_DIR"
		MMFI_GUEST_OWNED=0
	fi
}
