/*
 * signal.c - process-local signals for heisen's guests (the contract is
 * include/signal.h's), and the sleeps that are safe points for them and
 * cancellation points (heisen cc links with -Wl,--wrap= for sleep,
 * usleep, nanosleep and sched_yield, so wasi-libc's never run).
 *
 * A signal sent to a thread is a bit in its record's sig_pending, set
 * atomically by the sender; the thread itself takes the bits that its
 * mask lets through and runs their handlers at safe points, which is
 * the only place Wasm lets the library run code on another thread's
 * behalf. A sender wakes a target asleep in an interruptible wait
 * (__heisen_wait) as pthread_cancel does, reading the target's state
 * with atomics, so `heisen check` orders the sender after what the
 * target did before it slept, as for a cancel.
 *
 * The dispositions are one table under a library lock: the table is
 * shared by every thread and read at each delivery. Handlers run outside
 * the lock, and never where the thread holds a library lock (safe points
 * are entries to and waits in the library's blocking calls).
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOAD(p)	    __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

typedef unsigned long long sigbits;

/* Signals 1.._NSIG-1, at bits 0.._NSIG-2. */
#define BIT(sig)    ((sigbits)1 << ((sig)-1))
#define UNBLOCKABLE (BIT(SIGKILL) | BIT(SIGSTOP))

static int actions_lock;
static struct sigaction actions[_NSIG];

/* wasi-libc's SIG_IGN and SIG_ERR are these functions' addresses (1 is a
 * valid function pointer in Wasm); libwasi-emulated-signal, which
 * defines them too, is linked only for strsignal and psignal. */
void __SIG_IGN(int sig) {}
void __SIG_ERR(int sig) {}

static int valid(int sig) { return sig > 0 && sig < _NSIG; }

static sigbits bits_of(const sigset_t *s)
{
	return (sigbits)s->__bits[0] | (sigbits)s->__bits[1] << 32;
}

static void set_bits(sigset_t *s, sigbits b)
{
	memset(s, 0, sizeof *s);
	s->__bits[0] = (unsigned long)b;
	s->__bits[1] = (unsigned long)(b >> 32);
}

int __heisen_signal_due(struct __pthread *t)
{
	return (LOAD(&t->sig_pending) & ~LOAD(&t->sig_blocked)) != 0;
}

/* What a signal with no handler does: ignored, or the end of the
 * program with the status a shell gives a process killed by it. */
static void default_action(int sig)
{
	static const char msg[] = "heisen guest: ended by a signal with no "
				  "handler\n";

	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU: return;
	}
	write(2, msg, sizeof msg - 1);
	_Exit(128 + sig);
}

/* Run sig's disposition on the calling thread t: 0 when no handler ran,
 * else 1, or 2 for a handler installed without SA_RESTART. */
static int deliver(struct __pthread *t, int sig, int code)
{
	struct sigaction a;
	sigbits old;
	int nosync;

	__heisen_lock_word(&actions_lock, NULL);
	a = actions[sig];
	if ((a.sa_flags & SA_RESETHAND) && a.sa_handler != SIG_IGN) {
		actions[sig].sa_handler = SIG_DFL;
		actions[sig].sa_flags &= ~SA_SIGINFO;
	}
	__heisen_unlock_word(&actions_lock);
	if (a.sa_handler == SIG_IGN)
		return 0;
	if (a.sa_handler == SIG_DFL) {
		default_action(sig);
		return 0;
	}
	old = LOAD(&t->sig_blocked);
	STORE(&t->sig_blocked, (old | bits_of(&a.sa_mask) |
				(a.sa_flags & SA_NODEFER ? 0 : BIT(sig))) &
				   ~UNBLOCKABLE);
	/* The handler is the program's code, even when the safe point is
	 * inside the library's own synchronisation (stdio's lock). */
	nosync = __heisen_nosync_pause();
	if (a.sa_flags & SA_SIGINFO) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		si.si_signo = sig;
		si.si_code = code;
		si.si_pid = getpid();
		a.sa_sigaction(sig, &si, NULL);
	} else {
		a.sa_handler(sig);
	}
	__heisen_nosync_resume(nosync);
	STORE(&t->sig_blocked, old);
	return a.sa_flags & SA_RESTART ? 1 : 2;
}

int __heisen_run_signals(void)
{
	struct __pthread *t = pthread_self();
	int ran = 0, r;
	sigbits due;

	while ((due = LOAD(&t->sig_pending) & ~LOAD(&t->sig_blocked))) {
		int sig = __builtin_ctzll(due) + 1;
		__atomic_fetch_and(&t->sig_pending, ~BIT(sig),
				   __ATOMIC_SEQ_CST);
		if ((r = deliver(t, sig, SI_TKILL)) > ran)
			ran = r;
	}
	return ran;
}

/* ---- dispositions --------------------------------------------------- */

int sigaction(int sig, const struct sigaction *restrict act,
	      struct sigaction *restrict old)
{
	if (!valid(sig) || (act && (sig == SIGKILL || sig == SIGSTOP))) {
		errno = EINVAL;
		return -1;
	}
	__heisen_lock_word(&actions_lock, NULL);
	if (old)
		*old = actions[sig];
	if (act)
		actions[sig] = *act;
	__heisen_unlock_word(&actions_lock);
	return 0;
}

void (*signal(int sig, void (*fn)(int)))(int)
{
	struct sigaction a, old;

	memset(&a, 0, sizeof a);
	a.sa_handler = fn;
	a.sa_flags = SA_RESTART;
	if (sigaction(sig, &a, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- sending -------------------------------------------------------- */

int pthread_kill(pthread_t t, int sig)
{
	if (sig == 0)
		return 0;
	if (!valid(sig))
		return EINVAL;
	__atomic_fetch_or(&t->sig_pending, BIT(sig), __ATOMIC_SEQ_CST);
	if (t == pthread_self())
		__heisen_run_signals();
	else
		__heisen_wake(t, 0);
	return 0;
}

int raise(int sig)
{
	int rc = pthread_kill(pthread_self(), sig);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* The program is the only process it can name: a signal to it goes to
 * the calling thread. */
int kill(pid_t pid, int sig)
{
	if (pid != getpid() && pid != 0 && pid != -1) {
		errno = ESRCH;
		return -1;
	}
	return raise(sig);
}

/* ---- sets and masks ------------------------------------------------- */

int sigemptyset(sigset_t *s)
{
	set_bits(s, 0);
	return 0;
}

int sigfillset(sigset_t *s)
{
	set_bits(s, ~(sigbits)0 >> (65 - _NSIG));
	return 0;
}

int sigaddset(sigset_t *s, int sig)
{
	if (!valid(sig)) {
		errno = EINVAL;
		return -1;
	}
	set_bits(s, bits_of(s) | BIT(sig));
	return 0;
}

int sigdelset(sigset_t *s, int sig)
{
	if (!valid(sig)) {
		errno = EINVAL;
		return -1;
	}
	set_bits(s, bits_of(s) & ~BIT(sig));
	return 0;
}

int sigismember(const sigset_t *s, int sig)
{
	if (!valid(sig)) {
		errno = EINVAL;
		return -1;
	}
	return (bits_of(s) & BIT(sig)) != 0;
}

int pthread_sigmask(int how, const sigset_t *restrict set,
		    sigset_t *restrict old)
{
	struct __pthread *t = pthread_self();
	sigbits cur = LOAD(&t->sig_blocked), b;

	if (set) {
		b = bits_of(set);
		if (how == SIG_BLOCK)
			b |= cur;
		else if (how == SIG_UNBLOCK)
			b = cur & ~b;
		else if (how != SIG_SETMASK)
			return EINVAL;
	}
	if (old)
		set_bits(old, cur);
	if (set) {
		STORE(&t->sig_blocked, b & ~UNBLOCKABLE);
		/* POSIX: a pending signal it unblocks runs before the call
		 * returns. */
		__heisen_run_signals();
	}
	return 0;
}

int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict old)
{
	int rc = pthread_sigmask(how, set, old);

	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

int sigpending(sigset_t *s)
{
	struct __pthread *t = pthread_self();

	set_bits(s, LOAD(&t->sig_pending) & LOAD(&t->sig_blocked));
	return 0;
}

/* ---- sleeps: cancellation points and safe points -------------------- */

/* Sleep until a handler has run (-1, EINTR) or, with a deadline on
 * CLOCK_MONOTONIC, until it passes (0). Cancellation acts on entry and
 * while asleep; a signal due on entry runs first, as if sent before the
 * call, without ending the sleep. */
static int nap(const struct timespec *until)
{
	struct __pthread *t = pthread_self();

	__heisen_safe_point();
	for (;;) {
		int64_t ns = until ? __heisen_ns_until(until, 1) : -1;
		if (until && ns <= 0)
			return 0;
		if (__heisen_wait(&t->nap, 0, 0, ns, 1) < 0 &&
		    __heisen_safe_point()) {
			errno = EINTR;
			return -1;
		}
	}
}

int pause(void) { return nap(NULL); }

int sigsuspend(const sigset_t *mask)
{
	struct __pthread *t = pthread_self();
	sigbits old = LOAD(&t->sig_blocked);
	int rc;

	STORE(&t->sig_blocked, bits_of(mask) & ~UNBLOCKABLE);
	rc = nap(NULL);
	STORE(&t->sig_blocked, old);
	return rc;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct timespec until;
	int64_t left;

	if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) {
		errno = EINVAL;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += req->tv_sec;
	until.tv_nsec += req->tv_nsec;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (!nap(&until))
		return 0;
	if (rem) {
		left = __heisen_ns_until(&until, 1);
		if (left < 0)
			left = 0;
		rem->tv_sec = (time_t)(left / 1000000000);
		rem->tv_nsec = (long)(left % 1000000000);
	}
	return -1;
}

unsigned __wrap_sleep(unsigned seconds)
{
	struct timespec ts = {.tv_sec = seconds};

	if (__wrap_nanosleep(&ts, &ts))
		return (unsigned)ts.tv_sec;
	return 0;
}

int __wrap_usleep(useconds_t us)
{
	struct timespec ts = {.tv_sec = us / 1000000,
			      .tv_nsec = (long)(us % 1000000) * 1000};

	return __wrap_nanosleep(&ts, NULL);
}

int __real_sched_yield(void);

/* A safe point, not a cancellation point (POSIX has it so). */
int __wrap_sched_yield(void)
{
	__heisen_run_signals();
	return __real_sched_yield();
}
