/*
 * wasi_fs.c - the WASI host's state without the engine: errno mapping,
 * argument and environment vectors, the fd table and path resolution
 * beneath a granted directory. See wasi_int.h.
 */
#include "wasi_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint16_t wasi_errno(int e)
{
	switch (e) {
	case 0: return WASI_ESUCCESS;
#define X(name, v)                                                           \
	case E##name: return WASI_E##name;
		WASI_ERRNO_LIST(X)
#undef X
	}
	return WASI_EIO;
}

void wasi_config_init(wasi_config *c)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < 3; i++)
		c->stdio[i] = i;
}

/* ---- string vectors -------------------------------------------------- */

wasm_status wasi_strvec_init(wasi_strvec *v, const char *const *s,
			     uint32_t n, wasm_err *err)
{
	size_t size = 0;

	memset(v, 0, sizeof *v);
	for (uint32_t i = 0; i < n; i++) {
		size += strlen(s[i]) + 1;
		if (size > UINT32_MAX)
			return wasm_err_set(err, WASM_LIMIT, WASM_NO_OFFSET,
					    "arguments or environment larger "
					    "than 4 GiB");
	}
	v->bytes = wasm_malloc(size);
	v->offs = wasm_calloc(n ? n : 1, sizeof *v->offs);
	if (!v->bytes || !v->offs) {
		wasi_strvec_fini(v);
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for arguments");
	}
	for (uint32_t i = 0; i < n; i++) {
		size_t k = strlen(s[i]) + 1;
		v->offs[i] = v->size;
		memcpy(v->bytes + v->size, s[i], k);
		v->size += (uint32_t)k;
	}
	v->count = n;
	return WASM_OK;
}

void wasi_strvec_fini(wasi_strvec *v)
{
	wasm_free(v->bytes);
	wasm_free(v->offs);
	memset(v, 0, sizeof *v);
}

uint16_t wasi_strvec_sizes(const wasi_strvec *v, const wasi_mem *m,
			   uint32_t cnt_ptr, uint32_t size_ptr)
{
	if (!wasi_mem_ok(m, cnt_ptr, 4) || !wasi_mem_ok(m, size_ptr, 4))
		return WASI_EFAULT;
	wasi_st32(m->base + cnt_ptr, v->count);
	wasi_st32(m->base + size_ptr, v->size);
	return WASI_ESUCCESS;
}

uint16_t wasi_strvec_get(const wasi_strvec *v, const wasi_mem *m,
			 uint32_t ptrs, uint32_t buf)
{
	/* buf + size must itself fit in 32 bits: the pointers we write are
	 * 32-bit guest addresses. */
	if (!wasi_mem_ok(m, ptrs, (uint64_t)v->count * 4) ||
	    !wasi_mem_ok(m, buf, v->size) ||
	    (uint64_t)buf + v->size > UINT32_MAX + 1ull)
		return WASI_EFAULT;
	for (uint32_t i = 0; i < v->count; i++)
		wasi_st32(m->base + ptrs + 4 * (uint64_t)i, buf + v->offs[i]);
	memcpy(m->base + buf, v->bytes, v->size);
	return WASI_ESUCCESS;
}

/* ---- the fd table -------------------------------------------------------- */

uint8_t wasi_filetype(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFBLK: return WASI_FT_BLOCK;
	case S_IFCHR: return WASI_FT_CHAR;
	case S_IFDIR: return WASI_FT_DIR;
	case S_IFREG: return WASI_FT_FILE;
	case S_IFSOCK: return WASI_FT_SOCK_STREAM;
	case S_IFLNK: return WASI_FT_SYMLINK;
	}
	return WASI_FT_UNKNOWN;
}

static void fd_free(wasi_fd *f)
{
	if (f->owned)
		close(f->host);
	wasm_free(f->preopen);
	wasm_free(f);
}

/* Put f in the lowest free slot >= from. Returns the slot or -1 with
 * errno (EMFILE, ENOMEM). */
static int32_t fd_insert(wasi_ctx *c, wasi_fd *f, uint32_t from)
{
	uint32_t slot;

	pthread_mutex_lock(&c->lock);
	for (slot = from; slot < c->nfds && c->fds[slot]; slot++)
		;
	if (slot >= c->nfds) {
		uint32_t n = c->nfds ? c->nfds : 8;
		wasi_fd **fds = NULL;
		while (n <= slot)
			n *= 2;
		if (n > WASI_MAX_FDS)
			n = WASI_MAX_FDS;
		if (slot < n)
			fds = wasm_realloc(c->fds, n * sizeof *fds);
		if (!fds) {
			pthread_mutex_unlock(&c->lock);
			errno = slot < n ? ENOMEM : EMFILE;
			return -1;
		}
		memset(fds + c->nfds, 0, (n - c->nfds) * sizeof *fds);
		c->fds = fds;
		c->nfds = n;
	}
	c->fds[slot] = f;
	pthread_mutex_unlock(&c->lock);
	return (int32_t)slot;
}

static wasi_fd *fd_new(int host, bool owned, uint64_t rights,
		       uint64_t inherit, uint16_t fdflags)
{
	struct stat st;
	wasi_fd *f = wasm_calloc(1, sizeof *f);

	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->host = host;
	f->owned = owned;
	f->rights = rights;
	f->inherit = inherit;
	f->fdflags = fdflags;
	f->refs = 1;
	f->type = fstat(host, &st) ? WASI_FT_UNKNOWN : wasi_filetype(st.st_mode);
	/* wasi-libc's isatty() is "a character device without seek or tell
	 * rights": keep /dev/null seekable so that only terminals are ttys
	 * (and stdout is line-buffered exactly when it is a terminal). */
	if (f->type == WASI_FT_CHAR && isatty(host))
		f->rights &= ~(WASI_RIGHT_FD_SEEK | WASI_RIGHT_FD_TELL);
	return f;
}

int32_t wasi_fd_add(wasi_ctx *c, int host, bool owned, uint64_t rights,
		    uint64_t inherit, uint16_t fdflags)
{
	wasi_fd *f = fd_new(host, owned, rights, inherit, fdflags);
	int32_t fd;

	if (!f)
		return -1;
	if ((fd = fd_insert(c, f, 0)) < 0) {
		f->owned = false; /* the caller keeps host on failure */
		fd_free(f);
	}
	return fd;
}

wasi_fd *wasi_fd_get(wasi_ctx *c, uint32_t fd)
{
	wasi_fd *f = NULL;

	pthread_mutex_lock(&c->lock);
	if (fd < c->nfds && (f = c->fds[fd]))
		f->refs++;
	pthread_mutex_unlock(&c->lock);
	return f;
}

void wasi_fd_put(wasi_ctx *c, wasi_fd *f)
{
	bool last;

	if (!f)
		return;
	pthread_mutex_lock(&c->lock);
	last = --f->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last)
		fd_free(f);
}

/* Add host as guest fd `from` or the next free one above it. */
static wasm_status add_fd_from(wasi_ctx *c, int host, bool owned,
			       uint32_t from, const char *preopen,
			       wasm_err *err)
{
	wasi_fd *f = fd_new(host, owned, WASI_RIGHTS_ALL, WASI_RIGHTS_ALL, 0);

	if (f && preopen && !(f->preopen = wasm_malloc(strlen(preopen) + 1))) {
		f->owned = false;
		fd_free(f);
		f = NULL;
	}
	if (!f || fd_insert(c, f, from) < 0) {
		if (f) {
			f->owned = false;
			fd_free(f);
		}
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory for the fd table");
	}
	if (preopen)
		strcpy(f->preopen, preopen);
	return WASM_OK;
}

wasm_status wasi_ctx_init(wasi_ctx *c, const wasi_config *cfg, wasm_err *err)
{
	wasm_status st;

	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	/* xorshift's state must not be 0. */
	c->rand_state = cfg->serial_seed ^ 0x2545f4914f6cdd1dull;
	if (!c->rand_state)
		c->rand_state = 1;
	if ((st = wasi_strvec_init(&c->args, cfg->argv, cfg->argc, err)) ||
	    (st = wasi_strvec_init(&c->env, cfg->env, cfg->nenv, err)))
		goto fail;
	/* Stdio keeps its numbers even when one of them is not open; the
	 * host's fds are borrowed, never closed. */
	for (uint32_t i = 0; i < 3; i++) {
		if (cfg->stdio[i] >= 0 &&
		    (st = add_fd_from(c, cfg->stdio[i], false, i, NULL, err)))
			goto fail;
		if (cfg->stdio[i] >= 0)
			c->fds[i]->stdio = true;
	}
	/* Preopens from fd 3 up, where wasi-libc looks for them. */
	for (uint32_t i = 0; i < cfg->ndirs; i++) {
		const wasi_dir *d = &cfg->dirs[i];
		int h = open(d->host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h < 0) {
			st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
					  "cannot grant directory '%s': %s",
					  d->host, strerror(errno));
			goto fail;
		}
		if ((st = add_fd_from(c, h, true, 3, d->guest, err))) {
			close(h);
			goto fail;
		}
	}
	return WASM_OK;
fail:
	wasi_ctx_fini(c);
	return st;
}

void wasi_ctx_fini(wasi_ctx *c)
{
	for (uint32_t i = 0; i < c->nfds; i++)
		wasi_fd_put(c, c->fds[i]);
	wasm_free(c->fds);
	c->fds = NULL;
	c->nfds = 0;
	wasi_strvec_fini(&c->args);
	wasi_strvec_fini(&c->env);
	pthread_mutex_destroy(&c->lock);
}

/* ---- path resolution ----------------------------------------------------- */

/* Most directories open at once during one walk: deeper paths fail with
 * ENAMETOOLONG (a 4 KiB path has at most 2048 components; 256 levels is
 * far beyond real trees). */
#define WALK_DEPTH 256

void wasi_path_fini(wasi_path *p)
{
	if (p->owned)
		close(p->dir);
	p->owned = false;
	p->dir = -1;
}

/* The walk's state: the stack of directories from base (level 0, not
 * ours) to the current one, and the path still to walk in `rest`. */
typedef struct walk {
	int fds[WALK_DEPTH];
	int depth;
	char buf[2][WASI_PATH_MAX + 1];
	int cur; /* which buf holds rest */
	char *rest;
	char target[WASI_PATH_MAX + 1]; /* a symlink's contents */
} walk;

static void walk_pop_all(walk *w)
{
	while (w->depth > 0)
		close(w->fds[w->depth--]);
}

/* Replace the walk's remaining path by target + "/" + rest. */
static uint16_t splice_link(walk *w, const char *target, size_t tlen,
			    const char *rest)
{
	char *dst = w->buf[!w->cur];
	size_t rlen = strlen(rest);

	if (tlen == 0)
		return WASI_ENOENT;
	if (target[0] == '/')
		return WASI_ENOTCAPABLE;
	if (tlen + 1 + rlen > WASI_PATH_MAX)
		return WASI_ENAMETOOLONG;
	memcpy(dst, target, tlen);
	if (rlen) /* "x" stays a final component, "x/rest" does not */
		dst[tlen++] = '/';
	memcpy(dst + tlen, rest, rlen + 1);
	w->cur = !w->cur;
	w->rest = dst;
	return 0;
}

/* Read the symlink `name` in dir into buf; 0 with *len set, or errno. */
static uint16_t read_link(int dir, const char *name, char *buf, size_t cap,
			  size_t *len)
{
	ssize_t n = readlinkat(dir, name, buf, cap);
	if (n < 0)
		return wasi_errno(errno);
	if ((size_t)n >= cap)
		return WASI_ENAMETOOLONG;
	*len = (size_t)n;
	return 0;
}

uint16_t wasi_path_resolve(int base, const char *path, size_t len,
			   bool follow, wasi_path *out)
{
	walk *w;
	uint16_t rc = 0;
	int links = 0;

	memset(out, 0, sizeof *out);
	out->dir = -1;
	if (len == 0)
		return WASI_ENOENT;
	if (len > WASI_PATH_MAX)
		return WASI_ENAMETOOLONG;
	/* ~12 KiB of buffers: on the heap, host calls may run on small
	 * thread stacks. */
	if (!(w = wasm_malloc(sizeof *w)))
		return WASI_ENOMEM;
	/* Copy first, then check the copy: the path is in guest memory,
	 * which another thread may be rewriting while we look at it. */
	memcpy(w->buf[0], path, len);
	w->buf[0][len] = '\0';
	if (memchr(w->buf[0], '\0', len) || w->buf[0][0] == '/') {
		rc = w->buf[0][0] == '/' ? WASI_ENOTCAPABLE : WASI_EINVAL;
		wasm_free(w);
		return rc;
	}
	w->fds[0] = base;
	w->depth = 0;
	w->cur = 0;
	w->rest = w->buf[0];

	for (;;) {
		char name[256];
		size_t n;
		bool last, slash;
		int cur = w->fds[w->depth], fd;
		struct stat st;
		size_t tlen = 0;

		while (*w->rest == '/')
			w->rest++;
		if (!*w->rest) {
			/* Nothing left (path was "x/.." or a link to "."):
			 * the current directory itself. */
			strcpy(out->last, ".");
			out->must_be_dir = true;
			break;
		}
		n = strcspn(w->rest, "/");
		if (n >= sizeof name) {
			rc = WASI_ENAMETOOLONG;
			break;
		}
		memcpy(name, w->rest, n);
		name[n] = '\0';
		w->rest += n;
		slash = *w->rest == '/';
		while (*w->rest == '/')
			w->rest++;
		last = !*w->rest;

		if (!strcmp(name, ".")) {
			if (last) {
				strcpy(out->last, ".");
				out->must_be_dir = true;
				break;
			}
			continue;
		}
		if (!strcmp(name, "..")) {
			if (w->depth == 0) {
				rc = WASI_ENOTCAPABLE;
				break;
			}
			close(w->fds[w->depth--]);
			if (last) {
				strcpy(out->last, ".");
				out->must_be_dir = true;
				break;
			}
			continue;
		}
		if (last && !slash && !follow) {
			strcpy(out->last, name);
			break;
		}
		if (last) {
			/* Followed final component: a symlink is expanded,
			 * anything else (or nothing yet, for creation) is
			 * the answer. */
			if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISLNK(st.st_mode)) {
				strcpy(out->last, name);
				out->must_be_dir = slash;
				break;
			}
		} else {
			fd = openat(cur, name,
				    O_PATH | O_NOFOLLOW | O_DIRECTORY |
					    O_CLOEXEC);
			if (fd >= 0) {
				if (w->depth + 1 == WALK_DEPTH) {
					close(fd);
					rc = WASI_ENAMETOOLONG;
					break;
				}
				w->fds[++w->depth] = fd;
				continue;
			}
			/* O_NOFOLLOW|O_DIRECTORY on a symlink fails with
			 * ENOTDIR (or ELOOP): find out whether it is one. */
			if (errno != ENOTDIR && errno != ELOOP) {
				rc = wasi_errno(errno);
				break;
			}
			if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW)) {
				rc = wasi_errno(errno);
				break;
			}
			if (!S_ISLNK(st.st_mode)) {
				rc = WASI_ENOTDIR;
				break;
			}
		}
		if (++links > WASI_SYMLOOP_MAX) {
			rc = WASI_ELOOP;
			break;
		}
		if ((rc = read_link(cur, name, w->target,
				     sizeof w->target, &tlen)))
			break;
		/* A trailing slash on the link keeps meaning "directory". */
		if ((rc = splice_link(w, w->target, tlen,
				      slash && last ? "." : w->rest)))
			break;
	}
	if (rc) {
		walk_pop_all(w);
	} else {
		out->dir = w->fds[w->depth];
		out->owned = w->depth > 0;
		if (w->depth > 0)
			w->depth--; /* the result keeps the top fd */
		walk_pop_all(w);
	}
	wasm_free(w);
	return rc;
}
