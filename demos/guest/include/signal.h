/*
 * signal.h - process-local signals for heisen's guests, on top of
 * wasi-libc's minimal <signal.h> (signal numbers, SIG_DFL/SIG_IGN/SIG_ERR,
 * sig_atomic_t, psignal, strsignal). WASI delivers no signal from outside
 * the program; these are the ones a program sends itself, implemented by
 * the guest library (signal.c):
 *
 *   - Dispositions: signal() (BSD semantics, as glibc: the handler stays)
 *     and sigaction() with sa_handler or sa_sigaction (SA_SIGINFO: si_signo,
 *     si_code SI_USER or SI_TKILL, si_pid), sa_mask, SA_NODEFER and
 *     SA_RESETHAND; SA_RESTART and the other flags are accepted and change
 *     nothing but sem_wait's EINTR (below). SIGKILL and SIGSTOP cannot
 *     be caught (EINVAL).
 *   - Sending: raise(sig) and kill(getpid(), sig) (also pid 0 and -1) run
 *     the handler in the calling thread before they return; another pid
 *     fails with ESRCH. pthread_kill(t, sig) marks sig pending for t,
 *     which runs the handler at its next safe point: a call into the
 *     guest library that may block (pthread_mutex_lock, pthread_cond_wait
 *     and timedwait, pthread_join, sem_wait and sem_timedwait, sleep,
 *     usleep, nanosleep, pause, sigsuspend, sched_yield) or
 *     pthread_testcancel. A thread asleep in one of those is woken to run
 *     it; a thread that never calls one never runs it (Wasm cannot stop
 *     a thread between two instructions). Blocked in pthread_cond_wait,
 *     it runs the handler without the mutex and then waits on; in
 *     pthread_mutex_lock or pthread_join it runs it and goes on; sleep,
 *     usleep, nanosleep, pause and sigsuspend return early with EINTR
 *     (sleep: the seconds left), and sem_wait and sem_timedwait too when
 *     the handler was installed without SA_RESTART, as on Linux.
 *   - Default actions: a signal with no handler ends the program with
 *     status 128 + sig, as a shell reports a process killed by it, except
 *     SIGCHLD, SIGCONT, SIGURG and SIGWINCH, which are ignored, and the
 *     stop signals (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU), ignored too: a
 *     WASI program cannot be stopped.
 *   - Masks: each thread has one, inherited by the threads it creates.
 *     pthread_sigmask and sigprocmask (the same, for the calling thread)
 *     block and unblock; a blocked signal stays pending (sigpending) and
 *     runs when unblocked. A handler runs with its signal and sa_mask
 *     blocked.
 *   - Not here: sigwait, sigwaitinfo, sigtimedwait, sigqueue, sigaltstack,
 *     real-time queueing (SIGRTMIN..SIGRTMAX are plain signals: one
 *     pending at a time), and signals from outside the program.
 */
#ifndef HEISEN_GUEST_SIGNAL_H
#define HEISEN_GUEST_SIGNAL_H

#ifndef _WASI_EMULATED_SIGNAL
#define _WASI_EMULATED_SIGNAL
#endif
#include_next <signal.h>

#define __NEED_pid_t
#define __NEED_uid_t
#define __NEED_pthread_t
#define __NEED_sigset_t
#include <bits/alltypes.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SI_USER	 0
#define SI_TKILL (-6)

#define SIGRTMIN 34
#define SIGRTMAX 64

#define SA_NOCLDSTOP 1
#define SA_NOCLDWAIT 2
#define SA_SIGINFO   4
#define SA_ONSTACK   0x08000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000

union sigval {
	int sival_int;
	void *sival_ptr;
};

typedef struct {
	int si_signo, si_errno, si_code;
	pid_t si_pid;
	uid_t si_uid;
	int si_status;
	void *si_addr;
	union sigval si_value;
} siginfo_t;

struct sigaction {
	union {
		void (*sa_handler)(int);
		void (*sa_sigaction)(int, siginfo_t *, void *);
	} __sa_handler;
	sigset_t sa_mask;
	int sa_flags;
	void (*sa_restorer)(void);
};
#define sa_handler   __sa_handler.sa_handler
#define sa_sigaction __sa_handler.sa_sigaction

int sigaction(int, const struct sigaction *__restrict,
	      struct sigaction *__restrict);
int kill(pid_t, int);
int pthread_kill(pthread_t, int);

int sigemptyset(sigset_t *);
int sigfillset(sigset_t *);
int sigaddset(sigset_t *, int);
int sigdelset(sigset_t *, int);
int sigismember(const sigset_t *, int);

int sigprocmask(int, const sigset_t *__restrict, sigset_t *__restrict);
int pthread_sigmask(int, const sigset_t *__restrict, sigset_t *__restrict);
int sigpending(sigset_t *);
int sigsuspend(const sigset_t *);

#ifdef __cplusplus
}
#endif

#endif
