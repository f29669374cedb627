// What a thread wake-up costs on this machine, for the bluez benchmark's CPU per notification:
// two threads ping-pong through a pipe, an eventfd or a futex (each waiting in poll or
// FUTEX_WAIT), the first sleeping GAP microseconds before each ping as a sensor's notifications
// are apart; mode 3 only sleeps. Prints CPU time per wake-up of each thread (CLOCK_THREAD_CPUTIME_ID).
//   gcc -O2 -o /tmp/wakeup-cost scripts/wakeup-cost.c -lpthread
//   /tmp/wakeup-cost MODE [GAP_US [ROUNDS]]   # MODE 0 pipe, 1 eventfd, 2 futex, 3 timer sleep only
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <time.h>
#include <sys/resource.h>

static int N = 20000;
static int mode; // 0 pipe+poll, 1 eventfd+poll, 2 futex
static int p1[2], p2[2];
static int e1, e2;
static _Atomic int f1, f2;
static int gap_us = 0;

static void fwait(_Atomic int *f) { while (atomic_exchange(f, 0) == 0) syscall(SYS_futex, f, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0); }
static void fwake(_Atomic int *f) { atomic_store(f, 1); syscall(SYS_futex, f, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

static void sig(int which) {
  if (mode == 0) { char c = 1; (void)!write(which ? p2[1] : p1[1], &c, 1); }
  else if (mode == 1) { uint64_t one = 1; (void)!write(which ? e2 : e1, &one, 8); }
  else fwake(which ? &f2 : &f1);
}
static void wt(int which) {
  if (mode == 0) { struct pollfd p = { which ? p2[0] : p1[0], POLLIN, 0 }; poll(&p, 1, -1); char b[8]; (void)!read(p.fd, b, 8); }
  else if (mode == 1) { struct pollfd p = { which ? e2 : e1, POLLIN, 0 }; poll(&p, 1, -1); uint64_t v; (void)!read(p.fd, &v, 8); }
  else fwait(which ? &f2 : &f1);
}
static double tcpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double thr_cpu[2];
static void *other(void *unused) {
  (void)unused;
  double c0 = tcpu();
  for (int i = 0; i < N; i++) { wt(0); sig(1); }
  thr_cpu[1] = tcpu() - c0;
  return NULL;
}
int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s MODE [GAP_US [ROUNDS]]\n", argv[0]); return 2; }
  mode = atoi(argv[1]); if (argc > 2) gap_us = atoi(argv[2]); if (argc > 3) N = atoi(argv[3]);
  if (pipe(p1) || pipe(p2)) return 1;
  e1 = eventfd(0, 0); e2 = eventfd(0, 0);
  if (mode == 3) { // a timer wake-up alone: the sleeping thread's cost with nobody to signal
    double c0 = tcpu(); for (int i = 0; i < N; i++) usleep(gap_us);
    printf("sleep only    gap %5d us: CPU per timer wake-up %.1f us\n", gap_us, (tcpu() - c0) / N * 1e6); return 0; }
  pthread_t t; pthread_create(&t, NULL, other, NULL);
  struct timespec w0, w1; clock_gettime(CLOCK_MONOTONIC, &w0);
  double c0 = tcpu();
  for (int i = 0; i < N; i++) { if (gap_us) usleep(gap_us); sig(0); wt(1); }
  thr_cpu[0] = tcpu() - c0;
  clock_gettime(CLOCK_MONOTONIC, &w1);
  pthread_join(t, NULL);
  double wall = (w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) / 1e9;
  const char *names[] = {"pipe+poll", "eventfd+poll", "futex"};
  printf("%-13s gap %5d us: round trip %.1f us wall; CPU per wake-up: woken thread %.1f us, main %.1f us (incl. usleep)\n",
    names[mode], gap_us, (wall / N - gap_us / 1e6) * 1e6, thr_cpu[1] / N * 1e6, thr_cpu[0] / N * 1e6);
  return 0;
}
