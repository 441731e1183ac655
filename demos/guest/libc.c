/*
 * libc.c - locks around the shared state of wasi-libc that musl guards
 * with its own locks, which Debian's single-threaded build compiles to
 * nothing: the random number generators, the environment, strerror's
 * locale and the time zone and static results of the time functions.
 *
 * heisen cc links with `-Wl,--wrap=` for each function below (as for
 * malloc and stdio output): each wrapper takes its group's lock around
 * the original, so two threads calling random() or getenv() at once no
 * longer race inside libc, as they do not with glibc, which locks these.
 * Calls libc makes to these functions from inside itself (the time zone
 * code's getenv("TZ")) are wrapped too; the groups nest only time ->
 * environment, so no cycle.
 *
 * For `heisen check` these locks are what glibc's are to ThreadSanitizer:
 * invisible (detector.c), so two threads calling random() order nothing.
 * What a call writes of the program's memory (a struct tm, a buffer, a
 * static result) is written again outside the region, as TSan's
 * interceptors record it: a result in a static buffer (localtime's,
 * gmtime's, asctime's struct or string) that one thread reads while
 * another's call overwrites it stays the program's race, as with glibc;
 * the _r functions avoid it.
 * ctime is not wrapped: it calls the wrapped localtime and asctime.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int prng_lock, env_lock, msg_lock, time_lock;

#define LOCKED(lock, call)                                                     \
	do {                                                                   \
		__heisen_nosync_enter();                                       \
		__heisen_lock_word(&(lock), NULL);                             \
		call;                                                          \
		__heisen_unlock_word(&(lock));                                 \
		__heisen_nosync_leave();                                       \
	} while (0)

long __real_random(void);
void __real_srandom(unsigned);
char *__real_initstate(unsigned, char *, size_t);
char *__real_setstate(char *);
int __real_rand(void);
void __real_srand(unsigned);
char *__real_getenv(const char *);
int __real_setenv(const char *, const char *, int);
int __real_unsetenv(const char *);
int __real_putenv(char *);
int __real_clearenv(void);
char *__real_strerror(int);
int __real_strerror_r(int, char *, size_t);
struct tm *__real_localtime(const time_t *);
struct tm *__real_localtime_r(const time_t *restrict, struct tm *restrict);
struct tm *__real_gmtime(const time_t *);
struct tm *__real_gmtime_r(const time_t *restrict, struct tm *restrict);
time_t __real_mktime(struct tm *);
time_t __real_timegm(struct tm *);
char *__real_asctime(const struct tm *);
size_t __real_strftime(char *restrict, size_t, const char *restrict,
		       const struct tm *restrict);

long __wrap_random(void)
{
	long r;
	LOCKED(prng_lock, r = __real_random());
	return r;
}

void __wrap_srandom(unsigned seed) { LOCKED(prng_lock, __real_srandom(seed)); }

char *__wrap_initstate(unsigned seed, char *state, size_t n)
{
	char *r;
	LOCKED(prng_lock, r = __real_initstate(seed, state, n));
	return r;
}

char *__wrap_setstate(char *state)
{
	char *r;
	LOCKED(prng_lock, r = __real_setstate(state));
	return r;
}

int __wrap_rand(void)
{
	int r;
	LOCKED(prng_lock, r = __real_rand());
	return r;
}

void __wrap_srand(unsigned seed) { LOCKED(prng_lock, __real_srand(seed)); }

char *__wrap_getenv(const char *name)
{
	char *r;
	LOCKED(env_lock, r = __real_getenv(name));
	return r;
}

int __wrap_setenv(const char *name, const char *value, int overwrite)
{
	int r;
	LOCKED(env_lock, r = __real_setenv(name, value, overwrite));
	return r;
}

int __wrap_unsetenv(const char *name)
{
	int r;
	LOCKED(env_lock, r = __real_unsetenv(name));
	return r;
}

int __wrap_putenv(char *s)
{
	int r;
	LOCKED(env_lock, r = __real_putenv(s));
	return r;
}

int __wrap_clearenv(void)
{
	int r;
	LOCKED(env_lock, r = __real_clearenv());
	return r;
}

char *__wrap_strerror(int e)
{
	char *r;
	LOCKED(msg_lock, r = __real_strerror(e));
	return r;
}

int __wrap_strerror_r(int e, char *buf, size_t n)
{
	int r;
	LOCKED(msg_lock, r = __real_strerror_r(e, buf, n));
	if (!r && n)
		__heisen_touch_write(buf, strnlen(buf, n - 1) + 1);
	return r;
}

struct tm *__wrap_localtime(const time_t *t)
{
	struct tm *r;
	LOCKED(time_lock, r = __real_localtime(t));
	if (r)
		__heisen_touch_write(r, sizeof *r);
	return r;
}

struct tm *__wrap_localtime_r(const time_t *restrict t, struct tm *restrict tm)
{
	struct tm *r;
	LOCKED(time_lock, r = __real_localtime_r(t, tm));
	if (r)
		__heisen_touch_write(tm, sizeof *tm);
	return r;
}

struct tm *__wrap_gmtime(const time_t *t)
{
	struct tm *r;
	LOCKED(time_lock, r = __real_gmtime(t));
	if (r)
		__heisen_touch_write(r, sizeof *r);
	return r;
}

struct tm *__wrap_gmtime_r(const time_t *restrict t, struct tm *restrict tm)
{
	struct tm *r;
	LOCKED(time_lock, r = __real_gmtime_r(t, tm));
	if (r)
		__heisen_touch_write(tm, sizeof *tm);
	return r;
}

time_t __wrap_mktime(struct tm *tm)
{
	time_t r;
	LOCKED(time_lock, r = __real_mktime(tm));
	__heisen_touch_write(tm, sizeof *tm);
	return r;
}

time_t __wrap_timegm(struct tm *tm)
{
	time_t r;
	LOCKED(time_lock, r = __real_timegm(tm));
	__heisen_touch_write(tm, sizeof *tm);
	return r;
}

char *__wrap_asctime(const struct tm *tm)
{
	char *r;
	LOCKED(time_lock, r = __real_asctime(tm));
	if (r)
		__heisen_touch_write(r, strlen(r) + 1);
	return r;
}

size_t __wrap_strftime(char *restrict s, size_t n, const char *restrict fmt,
		       const struct tm *restrict tm)
{
	size_t r;
	LOCKED(time_lock, r = __real_strftime(s, n, fmt, tm));
	if (r)
		__heisen_touch_write(s, r + 1);
	return r;
}
