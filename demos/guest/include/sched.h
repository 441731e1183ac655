/*
 * sched.h - wasi-libc's <sched.h>, completed for heisen's guests with the
 * scheduling interface POSIX programs call and WASI has no notion of
 * (sched.c). A guest is scheduled as an unprivileged Linux process's
 * threads are by default: SCHED_OTHER, priority 0, nothing else granted.
 *   sched_get_priority_min/max
 *               Linux's ranges: 0..0 for SCHED_OTHER, SCHED_BATCH and
 *               SCHED_IDLE, 1..99 for SCHED_FIFO and SCHED_RR; EINVAL for
 *               another policy
 *   sched_getscheduler, sched_getparam
 *               SCHED_OTHER and priority 0, for pid 0 or getpid(); ESRCH
 *               for another pid
 *   sched_setscheduler, sched_setparam
 *               succeed, changing nothing, for SCHED_OTHER, SCHED_BATCH or
 *               SCHED_IDLE at priority 0; EPERM for SCHED_FIFO and
 *               SCHED_RR at a valid priority (an unprivileged process's
 *               answer); EINVAL otherwise
 *   sched_rr_get_interval
 *               0 s: no thread runs under SCHED_RR
 * The same rules hold for pthread_attr_setschedpolicy and the other
 * pthread scheduling calls (pthread.h).
 */
#ifndef HEISEN_GUEST_SCHED_H
#define HEISEN_GUEST_SCHED_H

#include_next <sched.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sched_param {
	int sched_priority;
};

#define SCHED_OTHER 0
#define SCHED_FIFO  1
#define SCHED_RR    2
#define SCHED_BATCH 3
#define SCHED_IDLE  5

int sched_get_priority_max(int);
int sched_get_priority_min(int);
int sched_getparam(pid_t, struct sched_param *);
int sched_getscheduler(pid_t);
int sched_setparam(pid_t, const struct sched_param *);
int sched_setscheduler(pid_t, int, const struct sched_param *);
int sched_rr_get_interval(pid_t, struct timespec *);

#ifdef __cplusplus
}
#endif

#endif
