#ifndef SENSORBRIDGE_CFUTEX_H
#define SENSORBRIDGE_CFUTEX_H
// A one-word wake-up token on a Linux futex, for SampleRing's parked consumer. Swift cannot call
// `syscall` (it is variadic), so the two calls live here; the word is touched only through them.
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// Leaves the token in `word` (1) and wakes the thread sleeping in `cfutex_wait`, if any.
/// Never blocks. The corresponding C function is `syscall(SYS_futex, ..., FUTEX_WAKE_PRIVATE, ...)`.
static inline void cfutex_signal(uint32_t *word) {
    __atomic_store_n(word, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/// Takes the token: returns 1 at once when it is there, else sleeps until `cfutex_signal` leaves
/// it or `nanoseconds` pass (measured on CLOCK_MONOTONIC, so wall-clock steps do not stretch it)
/// and returns 1 if the token came, 0 if the time passed without it, and -1 when the sleep ended
/// early without it: a signal handler ran, or a wake-up meant for a token already taken arrived.
static inline int cfutex_wait(uint32_t *word, int64_t nanoseconds) {
    if (__atomic_exchange_n(word, 0, __ATOMIC_ACQUIRE) != 0) return 1;
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000), (long)(nanoseconds % 1000000000) };
    // Sleeps only while the word is still 0: a signal between the exchange above and here is not lost.
    long slept = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &timeout, NULL, 0);
    int timedOut = slept == -1 && errno == ETIMEDOUT;
    if (__atomic_exchange_n(word, 0, __ATOMIC_ACQUIRE) != 0) return 1;
    return timedOut ? 0 : -1;
}
#endif
