#!/usr/bin/env bash
# qemu/stap compiles a one-liner on the host and runs it in the guest,
# with and without a workload; guru mode works.  The cases boot guests of
# their own and run at once, one worker per host CPU (sections_at_once).
. "$(dirname "$0")/../lib.sh"

hello() {
	expect_status 0 qemu/stap --new -e 'probe begin { printf("hello from %s\n", execname()); exit() }'
	expect_grep '^hello from ' "$T/out"
}

# A workload runs while the probe is live; the probe sees its mkdir.
workload() {
	expect_status 0 qemu/stap --new -e 'global n
probe kernel.function("do_mkdirat") { if (execname() == "mkdir") n++ }
probe end { printf("mkdirs=%d\n", n) }' -- mkdir -p /tmp/a /tmp/b /tmp/c
	expect_grep '^mkdirs=[1-9]' "$T/out"
}

# Guru mode: embedded C.
guru() {
	local rel
	expect_status 0 qemu/stap --new -g -e '%{ #include <linux/utsname.h> %}
function rel:string() %{ strlcpy(STAP_RETVALUE, init_utsname()->release, MAXSTRINGLEN); %}
probe begin { printf("release=%s\n", rel()); exit() }'
	rel=$(make -s -C build/linux O="$TOP/build/kbuild" kernelrelease)
	grep -qxF "release=$rel" "$T/out" || fail "guru mode printed '$(cat "$T/out")', not release=$rel"
	echo "ok: release=$rel"
}

# The workload's own output reaches us too.
output() {
	expect_status 0 qemu/stap --new -e 'probe end { printf("probe-end\n") }' -- echo workload-says-hi
	expect_grep '^workload-says-hi$' "$T/out"
	expect_grep '^probe-end$' "$T/out"
}

# A script that does not compile fails with stap's message and status.
no_compile() {
	expect_status 1 qemu/stap --new -e 'probe nonsense.point { }'
	expect_grep 'semantic error|parse error' "$T/err"
}

sections_at_once workload guru hello output no_compile
no_qemu_left
