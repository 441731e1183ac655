/*
 * unistd.h - wasi-libc's <unistd.h>, completed for heisen's guests with
 * what POSIX programs call and WASI has no notion of (unistd.c):
 *   getpid()   42, the same for every call and every thread: a WASI
 *              program is one process and is not told its host pid (42
 *              is what wasi-libc's own getpid emulation returns)
 *   getppid()  1, as for a process whose parent has gone
 *   chown(), fchown(), lchown()
 *              succeed without changing anything when the file exists
 *              (WASI files have no owners), else fail as stat(), fstat()
 *              and lstat() do (ENOENT, EBADF ...)
 *   pause()    sleeps until a signal handler has run (see signal.h), then
 *              returns -1 with EINTR; a cancellation point
 * sleep() and usleep() are wasi-libc's declarations with the guest
 * library's definitions (signal.c): cancellation points, and safe points
 * where a signal's handler runs and ends them early.
 */
#ifndef HEISEN_GUEST_UNISTD_H
#define HEISEN_GUEST_UNISTD_H

/* Declares getpid() without wasi-libc's deprecation warning: the guest
 * library defines it. */
#ifndef _WASI_EMULATED_GETPID
#define _WASI_EMULATED_GETPID
#endif
#include_next <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

pid_t getppid(void);
int chown(const char *, uid_t, gid_t);
int fchown(int, uid_t, gid_t);
int lchown(const char *, uid_t, gid_t);
int pause(void);

#ifdef __cplusplus
}
#endif

#endif
