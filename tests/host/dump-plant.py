# drgn script for tests/host/qemu-dump.sh: print what tests/modules/dump-plant
# planted, read from a memory dump: the magic of every allocated object of
# the slab cache "dump_plant", the stack of the thread "dump-plant", and the
# task that panicked the kernel.
import sys

from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.percpu import per_cpu
from drgn.helpers.linux.slab import find_slab_cache, slab_cache_for_each_allocated_object


PLANT_MAGIC = 0x6d6d66692d706c00     # dump_plant.c's


def frames(prog, task):
    return " ".join(f.name or "?" for f in prog.stack_trace(task))


def main(prog):
    cache = find_slab_cache(prog, "dump_plant")
    if cache is None:
        sys.exit("no slab cache dump_plant in this dump")
    # drgn 0.0.22 also yields the free objects of a CPU's slab (it does not
    # follow the per-CPU freelist): the planted ones are told by their magic.
    magics = sorted(o[0].value_() for o in slab_cache_for_each_allocated_object(cache, "u64"))
    for magic in magics:
        if magic >> 8 == PLANT_MAGIC >> 8:
            print(f"object magic {magic:#x}")
    for task in for_each_task(prog):
        if task.comm.string_() == b"dump-plant":
            print(f"dump-plant {task.pid.value_()} stack: {frames(prog, task)}")
    # The task that panicked, by name only: drgn 0.0.22 does not unwind the
    # tasks that were running in QEMU's dumps (crashed_thread() gave CPU 0's
    # halted stack, stack_trace() of the panicking task nothing); crash's
    # bt does (tests/host/qemu-dump.sh).
    task = per_cpu(prog["runqueues"], prog["panic_cpu"].counter.value_()).curr
    print(f"panicked: {task.comm.string_().decode()} {task.pid.value_()}")


main(globals()["prog"])
