/*
 * sys/stat.h - wasi-libc's <sys/stat.h>, completed for heisen's guests:
 * chmod() and fchmod() succeed without changing anything when the file
 * exists (WASI files have no permission bits: stat() reports fixed
 * ones), else fail as stat() and fstat() do (ENOENT, EBADF ...).
 * Defined in unistd.c.
 */
#ifndef HEISEN_GUEST_SYS_STAT_H
#define HEISEN_GUEST_SYS_STAT_H

#include_next <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

int chmod(const char *, mode_t);
int fchmod(int, mode_t);

#ifdef __cplusplus
}
#endif

#endif
