/*
 * stdio.c - one lock around wasi-libc's stdio output functions.
 *
 * wasi-libc's FILE locking compiles to nothing (built without threads),
 * so two threads printing at once would corrupt stdout's buffer. heisen cc
 * links with `-Wl,--wrap=` for each function below; the wrappers hold one
 * recursive lock (recursive because fputs calls fwrite, which is wrapped
 * too). Covers what printf-style output reaches: clang turns printf into
 * puts/putchar, and printf/fprintf/vprintf all end in vfprintf.
 *
 * So is libc's exit-time flush (__stdio_exit, which exit calls after the
 * atexit handlers), so that it does not race with threads still
 * printing, as glibc holds each stream's lock while it flushes at exit.
 * What they print after it is lost, as with musl natively.
 *
 * For `heisen check` the lock is what glibc's stream locks are to
 * ThreadSanitizer: invisible (detector.c). Two threads that print order
 * nothing by it, so a race between their other accesses is seen; the
 * wrappers' reads of the program's buffer (fwrite's, puts' and fputs'
 * string) are repeated outside the region, as TSan's interceptors record
 * them. printf's arguments are not: a %s argument another thread writes
 * goes unseen.
 *
 * Limitation: input functions (fgets, scanf, getc ...) and fclose, fseek
 * are not serialised; share a FILE between threads only for output.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A recursive mutex (type 1 in word [1], see pthread.c). */
static pthread_mutex_t io_lock = {{{0, PTHREAD_MUTEX_RECURSIVE}}};

/* call with the lock held, in the library's own region. */
#define IO(call)                                                               \
	do {                                                                   \
		__heisen_nosync_enter();                                       \
		pthread_mutex_lock(&io_lock);                                  \
		call;                                                          \
		pthread_mutex_unlock(&io_lock);                                \
		__heisen_nosync_leave();                                       \
	} while (0)

int __real_vfprintf(FILE *restrict, const char *restrict, va_list);
size_t __real_fwrite(const void *restrict, size_t, size_t, FILE *restrict);
int __real_fputs(const char *restrict, FILE *restrict);
int __real_puts(const char *);
int __real_fputc(int, FILE *);
int __real_putc(int, FILE *);
int __real_putchar(int);
int __real_fflush(FILE *);
void __real___stdio_exit(void);

int __wrap_vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	int r;

	IO(r = __real_vfprintf(f, fmt, ap));
	return r;
}

size_t __wrap_fwrite(const void *restrict p, size_t size, size_t n,
		     FILE *restrict f)
{
	size_t r;

	IO(r = __real_fwrite(p, size, n, f));
	__heisen_touch_read(p, r * size);
	return r;
}

int __wrap_fputs(const char *restrict s, FILE *restrict f)
{
	int r;

	IO(r = __real_fputs(s, f));
	__heisen_touch_read(s, strlen(s) + 1);
	return r;
}

int __wrap_puts(const char *s)
{
	int r;

	IO(r = __real_puts(s));
	__heisen_touch_read(s, strlen(s) + 1);
	return r;
}

int __wrap_fputc(int c, FILE *f)
{
	int r;

	IO(r = __real_fputc(c, f));
	return r;
}

int __wrap_putc(int c, FILE *f)
{
	int r;

	IO(r = __real_putc(c, f));
	return r;
}

int __wrap_putchar(int c)
{
	int r;

	IO(r = __real_putchar(c));
	return r;
}

int __wrap_fflush(FILE *f)
{
	int r;

	IO(r = __real_fflush(f));
	return r;
}

void __wrap___stdio_exit(void) { IO(__real___stdio_exit()); }
