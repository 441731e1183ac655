/*
 * sched.c - the scheduling interface of <sched.h> for a WASI program,
 * which the host schedules as it likes: the answers an unprivileged
 * Linux process gets (include/sched.h has the rules), so that a program
 * that asks for real-time scheduling sees the refusal it handles
 * natively, and one that asks for the default gets it.
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

static int realtime(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static int known(int policy)
{
	return realtime(policy) || policy == SCHED_OTHER ||
	       policy == SCHED_BATCH || policy == SCHED_IDLE;
}

int sched_get_priority_max(int policy)
{
	if (!known(policy)) {
		errno = EINVAL;
		return -1;
	}
	return realtime(policy) ? 99 : 0;
}

int sched_get_priority_min(int policy)
{
	if (!known(policy)) {
		errno = EINVAL;
		return -1;
	}
	return realtime(policy) ? 1 : 0;
}

int __heisen_sched_check(int policy, int prio)
{
	if (!known(policy) || prio < sched_get_priority_min(policy) ||
	    prio > sched_get_priority_max(policy))
		return EINVAL;
	return realtime(policy) ? EPERM : 0;
}

/* -1 with errno for a pid that is not this process, else 0. */
static int this_process(pid_t pid)
{
	if (pid == 0 || pid == getpid())
		return 0;
	errno = pid < 0 ? EINVAL : ESRCH;
	return -1;
}

int sched_getscheduler(pid_t pid)
{
	return this_process(pid) ? -1 : SCHED_OTHER;
}

int sched_getparam(pid_t pid, struct sched_param *p)
{
	if (this_process(pid))
		return -1;
	p->sched_priority = 0;
	return 0;
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	int rc;

	if (this_process(pid))
		return -1;
	if (!p || (rc = __heisen_sched_check(policy, p->sched_priority))) {
		errno = p ? rc : EINVAL;
		return -1;
	}
	return 0;
}

int sched_setparam(pid_t pid, const struct sched_param *p)
{
	return sched_setscheduler(pid, SCHED_OTHER, p);
}

int sched_rr_get_interval(pid_t pid, struct timespec *ts)
{
	if (this_process(pid))
		return -1;
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
	return 0;
}
