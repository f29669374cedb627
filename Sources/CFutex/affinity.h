#ifndef SENSORBRIDGE_CFUTEX_AFFINITY_H
#define SENSORBRIDGE_CFUTEX_AFFINITY_H
// Which CPU a thread runs on, and keeping the calling thread on one: for SampleRing's consumer,
// which shares its producer's CPU while values are paced. `cpu_set_t` is manipulated only
// through macros, which Swift cannot call, so the three calls live here.
#define _GNU_SOURCE 1
#include <sched.h>
#include <unistd.h>

/// The CPU the calling thread is running on now (read from the kernel's restartable-sequence
/// area: no system call), or -1 when the kernel cannot say.
static inline int ccpu_current(void) {
    return sched_getcpu();
}

/// Keeps the calling thread on `cpu` from now on. Returns 0, or -1 when the kernel refuses (a
/// CPU outside the process's cpuset, or one that went offline).
static inline int ccpu_pin_calling_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/// Lets the calling thread run wherever the process's main thread may (the CPUs `taskset` or
/// the cpuset left it). Returns 0, or -1 when the kernel refuses.
static inline int ccpu_unpin_calling_thread(void) {
    cpu_set_t set;
    if (sched_getaffinity(getpid(), sizeof set, &set) != 0) return -1;
    return sched_setaffinity(0, sizeof set, &set);
}
#endif
