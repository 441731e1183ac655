/*
 * util.c - errors, allocation hooks, byte buffers and whole-file I/O.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void wasm_err_clear(wasm_err *e)
{
	e->status = WASM_OK;
	e->offset = WASM_NO_OFFSET;
	e->section = NULL;
	e->func = WASM_NO_FUNC;
	e->msg[0] = '\0';
}

wasm_status wasm_err_set(wasm_err *e, wasm_status st, size_t offset,
			 const char *fmt, ...)
{
	va_list ap;

	e->status = st;
	e->offset = offset;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return st;
}

void wasm_err_format(const wasm_err *e, const char *file, char *buf, size_t cap)
{
	size_t n = 0;

	if (cap == 0)
		return;
	buf[0] = '\0';
#define PUT(...)                                                               \
	do {                                                                   \
		if (n < cap) {                                                 \
			int k_ = snprintf(buf + n, cap - n, __VA_ARGS__);      \
			n += k_ > 0 ? (size_t)k_ : 0;                          \
		}                                                              \
	} while (0)
	if (file)
		PUT("%s: ", file);
	if (e->offset != WASM_NO_OFFSET) {
		PUT("offset 0x%zx", e->offset);
		if (e->section && e->func != WASM_NO_FUNC)
			PUT(" (%s, func %u)", e->section, e->func);
		else if (e->section)
			PUT(" (%s)", e->section);
		PUT(": ");
	}
	PUT("%s", e->msg);
#undef PUT
}

const char *wasm_status_name(wasm_status st)
{
	switch (st) {
	case WASM_OK: return "ok";
	case WASM_MALFORMED: return "malformed";
	case WASM_INVALID: return "invalid";
	case WASM_IO: return "i/o error";
	case WASM_NOMEM: return "out of memory";
	case WASM_LIMIT: return "limit exceeded";
	}
	return "error";
}

/* Countdown for wasm_alloc_fail_after; negative means never fail. */
static long alloc_budget = -1;

static bool alloc_allowed(void)
{
	if (alloc_budget < 0)
		return true;
	if (alloc_budget == 0)
		return false;
	alloc_budget--;
	return true;
}

void wasm_alloc_fail_after(long n) { alloc_budget = n; }

void *wasm_malloc(size_t n)
{
	if (!alloc_allowed())
		return NULL;
	return malloc(n ? n : 1);
}

void *wasm_calloc(size_t n, size_t size)
{
	if (!alloc_allowed())
		return NULL;
	if (n == 0 || size == 0)
		return calloc(1, 1);
	return calloc(n, size);
}

char *wasm_strndup(const char *p, size_t n)
{
	char *q = wasm_malloc(n + 1);

	if (q) {
		memcpy(q, p, n);
		q[n] = '\0';
	}
	return q;
}

char *wasm_strdup(const char *s)
{
	return s ? wasm_strndup(s, strlen(s)) : NULL;
}

void *wasm_realloc(void *p, size_t n)
{
	if (!alloc_allowed())
		return NULL;
	return realloc(p, n ? n : 1);
}

void wasm_free(void *p) { free(p); }

void wasm_buf_fini(wasm_buf *b)
{
	wasm_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

bool wasm_buf_reserve(wasm_buf *b, size_t extra)
{
	size_t want, cap;
	uint8_t *p;

	if (b->oom)
		return false;
	if (extra > SIZE_MAX - b->len) {
		b->oom = true;
		return false;
	}
	want = b->len + extra;
	if (want <= b->cap)
		return true;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = wasm_realloc(b->data, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
#ifdef MADV_HUGEPAGE
	/* A big buffer (the rewriter's 60 MB output) is filled page by
	 * page: huge pages take 512x fewer faults. Advice only. */
	if (cap >= ((size_t)8 << 20)) {
		uintptr_t a = ((uintptr_t)p + 0x1fffff) & ~(uintptr_t)0x1fffff;
		uintptr_t e = ((uintptr_t)p + cap) & ~(uintptr_t)0x1fffff;
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
#endif
	return true;
}

void wasm_buf_put(wasm_buf *b, const void *p, size_t n)
{
	if (n == 0 || !wasm_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void wasm_buf_byte(wasm_buf *b, uint8_t v)
{
	if (b->len < b->cap && !b->oom) {
		b->data[b->len++] = v;
		return;
	}
	wasm_buf_put(b, &v, 1);
}

void wasm_buf_u64(wasm_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = byte | (v ? 0x80 : 0);
	} while (v);
	wasm_buf_put(b, tmp, n);
}

void wasm_buf_u32(wasm_buf *b, uint32_t v) { wasm_buf_u64(b, v); }

void wasm_buf_s64(wasm_buf *b, int64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	bool more = true;

	while (more) {
		uint8_t byte = v & 0x7f;
		/* Arithmetic shift of a negative value: implementation-defined
		 * in C17 but arithmetic on every compiler we build with; do it
		 * explicitly to stay portable. */
		v = v < 0 ? ~(~v >> 7) : v >> 7;
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
			more = false;
		else
			byte |= 0x80;
		tmp[n++] = byte;
	}
	wasm_buf_put(b, tmp, n);
}

void wasm_buf_s32(wasm_buf *b, int32_t v) { wasm_buf_s64(b, v); }

uint8_t *wasm_buf_take(wasm_buf *b, size_t *len)
{
	uint8_t *p = b->data;

	*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

wasm_status wasm_read_file(const char *path, uint8_t **data, size_t *len,
			   wasm_err *err)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd;
	wasm_status rc = WASM_OK;

	*data = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot stat: %s", strerror(errno));
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "is a directory, expected a .wasm file");
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "not a regular file");
		goto done;
	}
	buf = wasm_malloc((size_t)st.st_size);
	if (!buf) {
		rc = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory reading %lld bytes",
				  (long long)st.st_size);
		goto done;
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					  "read failed: %s", strerror(errno));
			goto done;
		}
		if (k == 0)
			break; /* the file shrank under us: take what is there
				*/
		got += (size_t)k;
	}
	*data = buf;
	*len = got;
	buf = NULL;
done:
	wasm_free(buf);
	close(fd);
	return rc;
}

wasm_status wasm_write_file(const char *path, const uint8_t *data, size_t len,
			    wasm_err *err)
{
	char tmp[4096];
	size_t done = 0;
	int fd;

	if (snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path) >= (int)sizeof tmp)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "path too long");
	fd = mkstemp(tmp);
	if (fd < 0)
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot create a file next to it: %s",
				    strerror(errno));
	while (done < len) {
		ssize_t k = write(fd, data + done, len - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			close(fd);
			unlink(tmp);
			return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					    "write failed: %s", strerror(e));
		}
		done += (size_t)k;
	}
	if (fchmod(fd, 0644) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				    "cannot write: %s", strerror(e));
	}
	return WASM_OK;
}
