/*
 * wasi_funcs.c - the WASI preview1 functions, as plain functions over the
 * run's state (wasi_ctx), a view of the caller's memory and the call's
 * arguments. core/wasi.c binds them to the engine by name.
 *
 * Every guest pointer and length is checked with wasi_mem_ok before use;
 * structures the guest passes in (iovecs, subscriptions) are copied out
 * once and the copies checked, because another thread may rewrite shared
 * memory while we read it. Layouts follow the preview1 witx.
 */
#include "wasi_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h> /* renameat */
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define A32(i) ((uint32_t)args[i])
#define A64(i) ((uint64_t)args[i])

/* fdflags, oflags, lookupflags, fstflags, rights (witx). */
enum {
	FDFLAG_APPEND = 1,
	FDFLAG_DSYNC = 2,
	FDFLAG_NONBLOCK = 4,
	FDFLAG_RSYNC = 8,
	FDFLAG_SYNC = 16,
	OFLAG_CREAT = 1,
	OFLAG_DIRECTORY = 2,
	OFLAG_EXCL = 4,
	OFLAG_TRUNC = 8,
	LOOKUP_SYMLINK_FOLLOW = 1,
	FST_ATIM = 1,
	FST_ATIM_NOW = 2,
	FST_MTIM = 4,
	FST_MTIM_NOW = 8,
};
#define RIGHT_FD_READ (1ull << 1)
#define RIGHT_FD_WRITE (1ull << 6)
#define RIGHT_FD_ALLOCATE (1ull << 8)
#define RIGHT_FD_READDIR (1ull << 14)
#define RIGHT_FD_FILESTAT_SET_SIZE (1ull << 22)

/* Most iovecs in one read or write (Linux's IOV_MAX). */
#define WASI_IOV_MAX 1024
/* Longest wait slice before checking whether the proc is stopping: a
 * timeout or exit is noticed within this much of a blocked call. */
#define WAIT_SLICE_MS 50

static uint64_t ts_ns(struct timespec ts)
{
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(ts);
}

/* ---- args, environ, clocks, random, sched ----------------------------- */

static uint16_t args_sizes_get(wasi_ctx *c, const wasi_mem *m,
			       const uint64_t *args)
{
	return wasi_strvec_sizes(&c->args, m, A32(0), A32(1));
}

static uint16_t args_get(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return wasi_strvec_get(&c->args, m, A32(0), A32(1));
}

static uint16_t environ_sizes_get(wasi_ctx *c, const wasi_mem *m,
				  const uint64_t *args)
{
	return wasi_strvec_sizes(&c->env, m, A32(0), A32(1));
}

static uint16_t environ_get(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	return wasi_strvec_get(&c->env, m, A32(0), A32(1));
}

static bool host_clock(uint32_t id, clockid_t *out)
{
	static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,
					CLOCK_PROCESS_CPUTIME_ID,
					CLOCK_THREAD_CPUTIME_ID};
	if (id >= sizeof ids / sizeof ids[0])
		return false;
	*out = ids[id];
	return true;
}

static uint16_t clock_res_get(wasi_ctx *c, const wasi_mem *m,
			      const uint64_t *args)
{
	clockid_t id;
	struct timespec ts;

	if (!host_clock(A32(0), &id))
		return WASI_EINVAL;
	if (!wasi_mem_ok(m, A32(1), 8))
		return WASI_EFAULT;
	if (clock_getres(id, &ts))
		return wasi_errno(errno);
	wasi_st64(m->base + A32(1), ts_ns(ts));
	return 0;
}

eng_proc *wasi_serial(const wasi_mem *m)
{
	eng_proc *p = m->thread ? eng_thread_proc(m->thread) : NULL;

	return p && eng_proc_serial(p) ? p : NULL;
}

static uint16_t clock_time_get(wasi_ctx *c, const wasi_mem *m,
			       const uint64_t *args)
{
	clockid_t id;
	struct timespec ts;
	eng_proc *sp = wasi_serial(m);

	/* args[1] is the precision the guest would accept: ignored, we
	 * always give the best. */
	if (!host_clock(A32(0), &id))
		return WASI_EINVAL;
	if (!wasi_mem_ok(m, A32(2), 8))
		return WASI_EFAULT;
	if (sp) {
		wasi_st64(m->base + A32(2),
			  eng_proc_vclock(sp) +
			      (id == CLOCK_REALTIME
				   ? WASI_SERIAL_EPOCH_S * 1000000000ull
				   : 0));
		return 0;
	}
	if (clock_gettime(id, &ts))
		return wasi_errno(errno);
	wasi_st64(m->base + A32(2), ts_ns(ts));
	return 0;
}

static uint16_t random_get(wasi_ctx *c, const wasi_mem *m,
			   const uint64_t *args)
{
	uint32_t buf = A32(0), len = A32(1);

	if (!wasi_mem_ok(m, buf, len))
		return WASI_EFAULT;
	if (wasi_serial(m)) {
		for (uint32_t i = 0; i < len; i++) {
			uint64_t x = c->rand_state;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			c->rand_state = x;
			m->base[buf + i] = (uint8_t)(x >> 56);
		}
		return 0;
	}
	for (uint32_t done = 0; done < len;) {
		ssize_t n = getrandom(m->base + buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wasi_errno(errno);
		done += (uint32_t)n;
	}
	return 0;
}

static uint16_t sched_yield_(wasi_ctx *c, const wasi_mem *m,
			     const uint64_t *args)
{
	/* Serial: the call was a scheduling point already. */
	if (!wasi_serial(m))
		sched_yield();
	return 0;
}

static uint16_t nosys(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return WASI_ENOSYS;
}

/* ---- fds: reading and writing ------------------------------------------ */

/* Copy n iovecs from guest address iovs into host iovecs pointing into
 * guest memory, checking every buffer. */
static uint16_t load_iovs(const wasi_mem *m, uint32_t iovs, uint32_t n,
			  struct iovec *out)
{
	if (!wasi_mem_ok(m, iovs, (uint64_t)n * 8))
		return WASI_EFAULT;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = m->base + iovs + 8 * (uint64_t)i;
		uint32_t buf = wasi_ld32(p), len = wasi_ld32(p + 4);
		if (!wasi_mem_ok(m, buf, len))
			return WASI_EFAULT;
		out[i].iov_base = m->base + buf;
		out[i].iov_len = len;
	}
	return 0;
}

/* For fds that can block (pipes, terminals, sockets): wait until ready
 * in slices, so that a timeout or an exit elsewhere can end the call.
 * Regular files and directories never block. */
static uint16_t wait_ready(wasi_ctx *c, const wasi_fd *f, short events)
{
	if (!c->should_stop || f->type == WASI_FT_FILE ||
	    f->type == WASI_FT_DIR || f->type == WASI_FT_BLOCK)
		return 0;
	for (;;) {
		struct pollfd p = {.fd = f->host, .events = events};
		int r = poll(&p, 1, WAIT_SLICE_MS);
		if (r > 0 || (r < 0 && errno != EINTR))
			return 0; /* ready, or let the I/O call report it */
		if (c->should_stop(c->stop_ctx))
			return WASI_STOPPING;
	}
}

enum io_kind { IO_READ, IO_WRITE, IO_PREAD, IO_PWRITE };

/* fd_read, fd_write, fd_pread, fd_pwrite: (fd, iovs, iovs_len,
 * [offset,] result_ptr). */
static uint16_t do_io(wasi_ctx *c, const wasi_mem *m, const uint64_t *args,
		      enum io_kind kind)
{
	bool positioned = kind == IO_PREAD || kind == IO_PWRITE;
	bool write = kind == IO_WRITE || kind == IO_PWRITE;
	uint32_t n = A32(2), res = A32(positioned ? 4 : 3);
	uint64_t off = positioned ? A64(3) : 0;
	struct iovec small[16], *iov = small;
	wasi_fd *f;
	uint16_t rc;
	ssize_t got;

	if (n > WASI_IOV_MAX)
		return WASI_EINVAL;
	if (positioned && off > INT64_MAX)
		return WASI_EINVAL;
	if (!wasi_mem_ok(m, res, 4))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (n > 16 && !(iov = wasm_malloc(n * sizeof *iov))) {
		rc = WASI_ENOMEM;
		goto done;
	}
	if ((rc = load_iovs(m, A32(1), n, iov)))
		goto done;
	if (f->type == WASI_FT_DIR) {
		rc = WASI_EISDIR;
		goto done;
	}
	if (!positioned &&
	    (rc = wait_ready(c, f, write ? POLLOUT : POLLIN)))
		goto done;
	do {
		switch (kind) {
		case IO_READ: got = readv(f->host, iov, (int)n); break;
		case IO_WRITE: got = writev(f->host, iov, (int)n); break;
		case IO_PREAD:
			got = preadv(f->host, iov, (int)n, (off_t)off);
			break;
		default: got = pwritev(f->host, iov, (int)n, (off_t)off);
		}
	} while (got < 0 && errno == EINTR);
	if (got < 0) {
		rc = wasi_errno(errno);
		goto done;
	}
	wasi_st32(m->base + res, (uint32_t)got);
done:
	if (iov != small)
		wasm_free(iov);
	wasi_fd_put(c, f);
	return rc;
}

static uint16_t fd_read(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return do_io(c, m, args, IO_READ);
}
static uint16_t fd_write(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return do_io(c, m, args, IO_WRITE);
}
static uint16_t fd_pread(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return do_io(c, m, args, IO_PREAD);
}
static uint16_t fd_pwrite(wasi_ctx *c, const wasi_mem *m,
			  const uint64_t *args)
{
	return do_io(c, m, args, IO_PWRITE);
}

/* (fd, offset, whence, newoffset_ptr); fd_tell is (fd, ptr). */
static uint16_t seek(wasi_ctx *c, const wasi_mem *m, uint32_t fd,
		     int64_t off, uint32_t whence, uint32_t res)
{
	static const int how[] = {SEEK_SET, SEEK_CUR, SEEK_END};
	wasi_fd *f;
	off_t pos;
	uint16_t rc = 0;

	if (whence > 2)
		return WASI_EINVAL;
	if (!wasi_mem_ok(m, res, 8))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, fd)))
		return WASI_EBADF;
	if (f->type == WASI_FT_DIR)
		rc = WASI_EBADF; /* a directory's position is readdir's */
	else if ((pos = lseek(f->host, (off_t)off, how[whence])) < 0)
		rc = wasi_errno(errno);
	else
		wasi_st64(m->base + res, (uint64_t)pos);
	wasi_fd_put(c, f);
	return rc;
}

static uint16_t fd_seek(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return seek(c, m, A32(0), (int64_t)A64(1), A32(2) & 0xff, A32(3));
}

static uint16_t fd_tell(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return seek(c, m, A32(0), 0, 1, A32(1));
}

/* ---- fds: the table ------------------------------------------------------ */

static uint16_t fd_close(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	uint32_t fd = A32(0);
	wasi_fd *f = NULL;

	pthread_mutex_lock(&c->lock);
	if (fd < c->nfds) {
		f = c->fds[fd];
		c->fds[fd] = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (!f)
		return WASI_EBADF;
	wasi_fd_put(c, f); /* closes now, or when the last call using it ends */
	return 0;
}

static uint16_t fd_renumber(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	uint32_t from = A32(0), to = A32(1);
	wasi_fd *old = NULL;
	uint16_t rc = 0;

	pthread_mutex_lock(&c->lock);
	if (from >= c->nfds || to >= c->nfds || !c->fds[from] || !c->fds[to]) {
		rc = WASI_EBADF;
	} else if (from != to) {
		old = c->fds[to];
		c->fds[to] = c->fds[from];
		c->fds[from] = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	wasi_fd_put(c, old);
	return rc;
}

static uint16_t fd_fdstat_get(wasi_ctx *c, const wasi_mem *m,
			      const uint64_t *args)
{
	uint32_t res = A32(1);
	uint8_t st[24] = {0};
	uint16_t flags = 0;
	wasi_fd *f;
	int fl;

	if (!wasi_mem_ok(m, res, sizeof st))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	/* Ask the host, so that flags set on inherited stdio fds show. */
	if ((fl = fcntl(f->host, F_GETFL)) >= 0) {
		flags |= fl & O_APPEND ? FDFLAG_APPEND : 0;
		flags |= fl & O_NONBLOCK ? FDFLAG_NONBLOCK : 0;
		if ((fl & O_SYNC) == O_SYNC)
			flags |= FDFLAG_SYNC;
		else if (fl & O_DSYNC)
			flags |= FDFLAG_DSYNC;
	}
	st[0] = f->type;
	wasi_st16(st + 2, flags);
	wasi_st64(st + 8, f->rights);
	wasi_st64(st + 16, f->inherit);
	if (f->stdio && wasi_serial(m)) {
		/* A serial run's stdio is the same stream wherever it goes
		 * (wasi-libc's isatty() takes another path for a file than
		 * for a device): /dev/null's answer, never a terminal. */
		memset(st, 0, sizeof st);
		st[0] = WASI_FT_CHAR;
		wasi_st64(st + 8, WASI_RIGHTS_ALL);
		wasi_st64(st + 16, WASI_RIGHTS_ALL);
	}
	wasi_fd_put(c, f);
	memcpy(m->base + res, st, sizeof st);
	return 0;
}

static uint16_t fd_fdstat_set_flags(wasi_ctx *c, const wasi_mem *m,
				    const uint64_t *args)
{
	uint32_t want = A32(1) & 0xffff;
	wasi_fd *f;
	uint16_t rc = 0;
	int fl;

	/* Linux cannot change O_SYNC/O_DSYNC after open. */
	if (want & (FDFLAG_DSYNC | FDFLAG_RSYNC | FDFLAG_SYNC))
		return WASI_ENOTSUP;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if ((fl = fcntl(f->host, F_GETFL)) < 0) {
		rc = wasi_errno(errno);
	} else {
		fl &= ~(O_APPEND | O_NONBLOCK);
		fl |= want & FDFLAG_APPEND ? O_APPEND : 0;
		fl |= want & FDFLAG_NONBLOCK ? O_NONBLOCK : 0;
		if (fcntl(f->host, F_SETFL, fl) < 0)
			rc = wasi_errno(errno);
		else
			f->fdflags = (uint16_t)want;
	}
	wasi_fd_put(c, f);
	return rc;
}

/* filestat: dev, ino, filetype (u8, padded), nlink, size, atim, mtim,
 * ctim: 64 bytes. */
static void put_filestat(uint8_t *p, const struct stat *st)
{
	uint8_t b[64] = {0};
	wasi_st64(b, (uint64_t)st->st_dev);
	wasi_st64(b + 8, (uint64_t)st->st_ino);
	b[16] = wasi_filetype(st->st_mode);
	wasi_st64(b + 24, (uint64_t)st->st_nlink);
	wasi_st64(b + 32, (uint64_t)st->st_size);
	wasi_st64(b + 40, ts_ns(st->st_atim));
	wasi_st64(b + 48, ts_ns(st->st_mtim));
	wasi_st64(b + 56, ts_ns(st->st_ctim));
	memcpy(p, b, sizeof b);
}

static uint16_t fd_filestat_get(wasi_ctx *c, const wasi_mem *m,
				const uint64_t *args)
{
	uint32_t res = A32(1);
	struct stat st;
	wasi_fd *f;
	uint16_t rc = 0;

	if (!wasi_mem_ok(m, res, 64))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (f->stdio && wasi_serial(m)) {
		/* As fd_fdstat_get: a device with nothing else to say. */
		memset(&st, 0, sizeof st);
		st.st_mode = S_IFCHR;
		put_filestat(m->base + res, &st);
	} else if (fstat(f->host, &st)) {
		rc = wasi_errno(errno);
	} else {
		put_filestat(m->base + res, &st);
	}
	wasi_fd_put(c, f);
	return rc;
}

static uint16_t fd_filestat_set_size(wasi_ctx *c, const wasi_mem *m,
				     const uint64_t *args)
{
	wasi_fd *f;
	uint16_t rc = 0;

	if (A64(1) > INT64_MAX)
		return WASI_EFBIG;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (ftruncate(f->host, (off_t)A64(1)))
		rc = wasi_errno(errno);
	wasi_fd_put(c, f);
	return rc;
}

/* Two timespecs for (f)utimensat from WASI times and fstflags. */
static uint16_t set_times(uint64_t atim, uint64_t mtim, uint32_t fl,
			  struct timespec ts[2])
{
	uint64_t t[2] = {atim, mtim};
	for (int i = 0; i < 2; i++) {
		uint32_t set = i ? FST_MTIM : FST_ATIM;
		uint32_t now = i ? FST_MTIM_NOW : FST_ATIM_NOW;
		if ((fl & set) && (fl & now))
			return WASI_EINVAL;
		ts[i].tv_sec = (time_t)(t[i] / 1000000000u);
		ts[i].tv_nsec = (long)(t[i] % 1000000000u);
		if (fl & now)
			ts[i].tv_nsec = UTIME_NOW;
		else if (!(fl & set))
			ts[i].tv_nsec = UTIME_OMIT;
	}
	return 0;
}

static uint16_t fd_filestat_set_times(wasi_ctx *c, const wasi_mem *m,
				      const uint64_t *args)
{
	struct timespec ts[2];
	wasi_fd *f;
	uint16_t rc = set_times(A64(1), A64(2), A32(3), ts);

	if (rc)
		return rc;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (futimens(f->host, ts))
		rc = wasi_errno(errno);
	wasi_fd_put(c, f);
	return rc;
}

/* fd_sync, fd_datasync, fd_advise, fd_allocate: one host call on the fd. */
enum fdop { OP_SYNC, OP_DATASYNC, OP_ADVISE, OP_ALLOCATE };

static uint16_t fd_op(wasi_ctx *c, const uint64_t *args, enum fdop op)
{
	static const int advice[] = {POSIX_FADV_NORMAL, POSIX_FADV_SEQUENTIAL,
				     POSIX_FADV_RANDOM, POSIX_FADV_WILLNEED,
				     POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
	wasi_fd *f;
	int e = 0;

	if ((op == OP_ADVISE || op == OP_ALLOCATE) &&
	    (A64(1) > INT64_MAX || A64(2) > INT64_MAX))
		return WASI_EINVAL;
	if (op == OP_ADVISE && A32(3) > 5)
		return WASI_EINVAL;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	switch (op) {
	case OP_SYNC: e = fsync(f->host) ? errno : 0; break;
	case OP_DATASYNC: e = fdatasync(f->host) ? errno : 0; break;
	case OP_ADVISE:
		e = posix_fadvise(f->host, (off_t)A64(1), (off_t)A64(2),
				  advice[A32(3)]);
		break;
	case OP_ALLOCATE:
		e = posix_fallocate(f->host, (off_t)A64(1), (off_t)A64(2));
		break;
	}
	wasi_fd_put(c, f);
	return wasi_errno(e);
}

static uint16_t fd_sync(wasi_ctx *c, const wasi_mem *m, const uint64_t *args)
{
	return fd_op(c, args, OP_SYNC);
}
static uint16_t fd_datasync(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	return fd_op(c, args, OP_DATASYNC);
}
static uint16_t fd_advise(wasi_ctx *c, const wasi_mem *m,
			  const uint64_t *args)
{
	return fd_op(c, args, OP_ADVISE);
}
static uint16_t fd_allocate(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	return fd_op(c, args, OP_ALLOCATE);
}

/* prestat: tag u8 (0 = directory), u32 name length at 4. */
static uint16_t fd_prestat_get(wasi_ctx *c, const wasi_mem *m,
			       const uint64_t *args)
{
	uint32_t res = A32(1);
	uint8_t b[8] = {0};
	wasi_fd *f;
	uint16_t rc = 0;

	if (!wasi_mem_ok(m, res, 8))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (!f->preopen) {
		rc = WASI_EBADF; /* wasi-libc stops scanning at EBADF */
	} else {
		wasi_st32(b + 4, (uint32_t)strlen(f->preopen));
		memcpy(m->base + res, b, sizeof b);
	}
	wasi_fd_put(c, f);
	return rc;
}

static uint16_t fd_prestat_dir_name(wasi_ctx *c, const wasi_mem *m,
				    const uint64_t *args)
{
	uint32_t buf = A32(1), len = A32(2);
	wasi_fd *f;
	uint16_t rc = 0;
	size_t n;

	if (!wasi_mem_ok(m, buf, len))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (!f->preopen)
		rc = WASI_EBADF;
	else if ((n = strlen(f->preopen)) > len)
		rc = WASI_ENAMETOOLONG;
	else
		memcpy(m->base + buf, f->preopen, n); /* no NUL, as specified */
	wasi_fd_put(c, f);
	return rc;
}

static uint8_t dirent_type(unsigned char t)
{
	switch (t) {
	case DT_BLK: return WASI_FT_BLOCK;
	case DT_CHR: return WASI_FT_CHAR;
	case DT_DIR: return WASI_FT_DIR;
	case DT_REG: return WASI_FT_FILE;
	case DT_SOCK: return WASI_FT_SOCK_STREAM;
	case DT_LNK: return WASI_FT_SYMLINK;
	}
	return WASI_FT_UNKNOWN;
}

/* fd_readdir(fd, buf, buf_len, cookie, bufused_ptr). Each entry is a
 * 24-byte dirent (d_next u64, d_ino u64, d_namlen u32, d_type u8) and the
 * name; the last one may be cut off at buf_len, which tells the caller
 * to retry with a larger buffer. Cookies are the kernel's directory
 * offsets (d_off), so a fresh stream per call can seek to one. */
static uint16_t fd_readdir(wasi_ctx *c, const wasi_mem *m,
			   const uint64_t *args)
{
	uint32_t buf = A32(1), len = A32(2), res = A32(4);
	uint64_t cookie = A64(3);
	uint32_t used = 0;
	uint16_t rc = 0;
	wasi_fd *f;
	DIR *d = NULL;
	int dfd;

	if (!wasi_mem_ok(m, buf, len) || !wasi_mem_ok(m, res, 4))
		return WASI_EFAULT;
	if (!(f = wasi_fd_get(c, A32(0))))
		return WASI_EBADF;
	if (f->type != WASI_FT_DIR) {
		rc = WASI_ENOTDIR;
		goto done;
	}
	if ((dfd = openat(f->host, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) <
		    0 ||
	    !(d = fdopendir(dfd))) {
		rc = wasi_errno(errno);
		if (dfd >= 0)
			close(dfd);
		goto done;
	}
	if (cookie)
		seekdir(d, (long)cookie);
	while (used < len) {
		struct dirent *e;
		uint8_t hdr[24] = {0};
		uint32_t nlen, k;
		errno = 0;
		if (!(e = readdir(d))) {
			if (errno)
				rc = wasi_errno(errno);
			break;
		}
		nlen = (uint32_t)strlen(e->d_name);
		wasi_st64(hdr, (uint64_t)e->d_off);
		wasi_st64(hdr + 8, (uint64_t)e->d_ino);
		wasi_st32(hdr + 16, nlen);
		hdr[20] = dirent_type(e->d_type);
		k = len - used < sizeof hdr ? len - used : sizeof hdr;
		memcpy(m->base + buf + used, hdr, k);
		used += k;
		k = len - used < nlen ? len - used : nlen;
		memcpy(m->base + buf + used, e->d_name, k);
		used += k;
	}
	closedir(d);
	if (!rc)
		wasi_st32(m->base + res, used);
done:
	wasi_fd_put(c, f);
	return rc;
}

/* ---- paths --------------------------------------------------------------- */

/* Resolve the guest path (ptr, len) beneath guest directory fd `fd`. On
 * success the caller owns *f (wasi_fd_put) and *p (wasi_path_fini). */
static uint16_t resolve_at(wasi_ctx *c, const wasi_mem *m, uint32_t fd,
			   uint32_t ptr, uint32_t len, bool follow,
			   wasi_fd **f, wasi_path *p)
{
	uint16_t rc;

	*f = NULL;
	p->dir = -1;
	p->owned = false;
	if (!wasi_mem_ok(m, ptr, len))
		return WASI_EFAULT;
	if (!(*f = wasi_fd_get(c, fd)))
		return WASI_EBADF;
	if ((*f)->type != WASI_FT_DIR)
		rc = WASI_ENOTDIR;
	else
		rc = wasi_path_resolve((*f)->host, (const char *)m->base + ptr,
				       len, follow, p);
	if (rc) {
		wasi_fd_put(c, *f);
		*f = NULL;
	}
	return rc;
}

static void release(wasi_ctx *c, wasi_fd *f, wasi_path *p)
{
	wasi_path_fini(p);
	wasi_fd_put(c, f);
}

/* path_open(dirfd, lookupflags, path, path_len, oflags, rights_base,
 * rights_inheriting, fdflags, opened_fd_ptr). The access mode comes from
 * the rights wasi-libc derives from O_RDONLY/O_WRONLY. */
static uint16_t path_open(wasi_ctx *c, const wasi_mem *m,
			  const uint64_t *args)
{
	uint32_t oflags = A32(4), fdflags = A32(7), res = A32(8);
	uint64_t rights = A64(5);
	bool rd = rights & (RIGHT_FD_READ | RIGHT_FD_READDIR);
	bool wr = rights & (RIGHT_FD_WRITE | RIGHT_FD_ALLOCATE |
			    RIGHT_FD_FILESTAT_SET_SIZE);
	int flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
	wasi_fd *f;
	wasi_path p;
	uint16_t rc;
	int h;
	int32_t fd;

	if (!wasi_mem_ok(m, res, 4))
		return WASI_EFAULT;
	if ((rc = resolve_at(c, m, A32(0), A32(2), A32(3),
			     A32(1) & LOOKUP_SYMLINK_FOLLOW, &f, &p)))
		return rc;
	if (oflags & OFLAG_DIRECTORY)
		wr = false;
	flags |= wr ? (rd ? O_RDWR : O_WRONLY) : O_RDONLY;
	flags |= oflags & OFLAG_CREAT ? O_CREAT : 0;
	flags |= oflags & OFLAG_EXCL ? O_EXCL : 0;
	flags |= oflags & OFLAG_TRUNC ? O_TRUNC : 0;
	flags |= (oflags & OFLAG_DIRECTORY) || p.must_be_dir ? O_DIRECTORY
							     : 0;
	flags |= fdflags & FDFLAG_APPEND ? O_APPEND : 0;
	flags |= fdflags & FDFLAG_NONBLOCK ? O_NONBLOCK : 0;
	flags |= fdflags & FDFLAG_DSYNC ? O_DSYNC : 0;
	flags |= fdflags & FDFLAG_RSYNC ? O_RSYNC : 0;
	flags |= fdflags & FDFLAG_SYNC ? O_SYNC : 0;
	h = openat(p.dir, p.last, flags, 0666);
	if (h < 0) {
		rc = wasi_errno(errno);
	} else if ((fd = wasi_fd_add(c, h, true, rights, A64(6),
				     (uint16_t)fdflags)) < 0) {
		rc = wasi_errno(errno);
		close(h);
	} else {
		wasi_st32(m->base + res, (uint32_t)fd);
	}
	release(c, f, &p);
	return rc;
}

/* path_filestat_get(fd, lookupflags, path, len, buf). */
static uint16_t path_filestat_get(wasi_ctx *c, const wasi_mem *m,
				  const uint64_t *args)
{
	uint32_t res = A32(4);
	struct stat st;
	wasi_fd *f;
	wasi_path p;
	uint16_t rc;

	if (!wasi_mem_ok(m, res, 64))
		return WASI_EFAULT;
	if ((rc = resolve_at(c, m, A32(0), A32(2), A32(3),
			     A32(1) & LOOKUP_SYMLINK_FOLLOW, &f, &p)))
		return rc;
	if (fstatat(p.dir, p.last, &st, AT_SYMLINK_NOFOLLOW))
		rc = wasi_errno(errno);
	else if (p.must_be_dir && !S_ISDIR(st.st_mode))
		rc = WASI_ENOTDIR;
	else
		put_filestat(m->base + res, &st);
	release(c, f, &p);
	return rc;
}

/* path_filestat_set_times(fd, lookupflags, path, len, atim, mtim, fst). */
static uint16_t path_filestat_set_times(wasi_ctx *c, const wasi_mem *m,
					const uint64_t *args)
{
	struct timespec ts[2];
	wasi_fd *f;
	wasi_path p;
	uint16_t rc = set_times(A64(4), A64(5), A32(6), ts);

	if (rc)
		return rc;
	if ((rc = resolve_at(c, m, A32(0), A32(2), A32(3),
			     A32(1) & LOOKUP_SYMLINK_FOLLOW, &f, &p)))
		return rc;
	if (utimensat(p.dir, p.last, ts, AT_SYMLINK_NOFOLLOW))
		rc = wasi_errno(errno);
	release(c, f, &p);
	return rc;
}

enum pathop { OP_MKDIR, OP_UNLINK, OP_RMDIR };

/* path_create_directory, path_unlink_file, path_remove_directory:
 * (fd, path, len). */
static uint16_t path_op(wasi_ctx *c, const wasi_mem *m, const uint64_t *args,
			enum pathop op)
{
	wasi_fd *f;
	wasi_path p;
	uint16_t rc;
	int r;

	if ((rc = resolve_at(c, m, A32(0), A32(1), A32(2), false, &f, &p)))
		return rc;
	switch (op) {
	case OP_MKDIR: r = mkdirat(p.dir, p.last, 0777); break;
	case OP_UNLINK:
		/* "file/" names a directory that is not there. */
		if (p.must_be_dir) {
			errno = ENOTDIR;
			r = -1;
		} else {
			r = unlinkat(p.dir, p.last, 0);
		}
		break;
	default: r = unlinkat(p.dir, p.last, AT_REMOVEDIR); break;
	}
	if (r)
		rc = wasi_errno(errno);
	release(c, f, &p);
	return rc;
}

static uint16_t path_create_directory(wasi_ctx *c, const wasi_mem *m,
				      const uint64_t *args)
{
	return path_op(c, m, args, OP_MKDIR);
}
static uint16_t path_unlink_file(wasi_ctx *c, const wasi_mem *m,
				 const uint64_t *args)
{
	return path_op(c, m, args, OP_UNLINK);
}
static uint16_t path_remove_directory(wasi_ctx *c, const wasi_mem *m,
				      const uint64_t *args)
{
	return path_op(c, m, args, OP_RMDIR);
}

/* path_rename(fd, old, old_len, new_fd, new, new_len). */
static uint16_t path_rename(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	wasi_fd *f1, *f2;
	wasi_path p1, p2;
	uint16_t rc;

	if ((rc = resolve_at(c, m, A32(0), A32(1), A32(2), false, &f1, &p1)))
		return rc;
	if ((rc = resolve_at(c, m, A32(3), A32(4), A32(5), false, &f2,
			     &p2))) {
		release(c, f1, &p1);
		return rc;
	}
	if (renameat(p1.dir, p1.last, p2.dir, p2.last))
		rc = wasi_errno(errno);
	release(c, f2, &p2);
	release(c, f1, &p1);
	return rc;
}

/* path_link(old_fd, old_flags, old, old_len, new_fd, new, new_len). */
static uint16_t path_link(wasi_ctx *c, const wasi_mem *m,
			  const uint64_t *args)
{
	wasi_fd *f1, *f2;
	wasi_path p1, p2;
	uint16_t rc;

	if ((rc = resolve_at(c, m, A32(0), A32(2), A32(3),
			     A32(1) & LOOKUP_SYMLINK_FOLLOW, &f1, &p1)))
		return rc;
	if ((rc = resolve_at(c, m, A32(4), A32(5), A32(6), false, &f2,
			     &p2))) {
		release(c, f1, &p1);
		return rc;
	}
	if (linkat(p1.dir, p1.last, p2.dir, p2.last, 0))
		rc = wasi_errno(errno);
	release(c, f2, &p2);
	release(c, f1, &p1);
	return rc;
}

/* path_symlink(target, target_len, fd, path, path_len). The target is
 * stored as given: harmless, since the host never lets the kernel follow
 * a symlink on the guest's behalf. */
static uint16_t path_symlink(wasi_ctx *c, const wasi_mem *m,
			     const uint64_t *args)
{
	uint32_t tp = A32(0), tl = A32(1);
	char *target;
	wasi_fd *f;
	wasi_path p;
	uint16_t rc;

	if (!wasi_mem_ok(m, tp, tl))
		return WASI_EFAULT;
	if (tl > WASI_PATH_MAX)
		return WASI_ENAMETOOLONG;
	if (!(target = wasm_malloc((size_t)tl + 1)))
		return WASI_ENOMEM;
	memcpy(target, m->base + tp, tl);
	target[tl] = '\0';
	if (memchr(target, '\0', tl)) {
		wasm_free(target);
		return WASI_EINVAL;
	}
	if (!(rc = resolve_at(c, m, A32(2), A32(3), A32(4), false, &f, &p))) {
		if (symlinkat(target, p.dir, p.last))
			rc = wasi_errno(errno);
		release(c, f, &p);
	}
	wasm_free(target);
	return rc;
}

/* path_readlink(fd, path, len, buf, buf_len, bufused_ptr): the link's
 * contents, cut at buf_len. */
static uint16_t path_readlink(wasi_ctx *c, const wasi_mem *m,
			      const uint64_t *args)
{
	uint32_t buf = A32(3), len = A32(4), res = A32(5);
	char tmp[WASI_PATH_MAX];
	wasi_fd *f;
	wasi_path p;
	uint16_t rc;
	ssize_t n;

	if (!wasi_mem_ok(m, buf, len) || !wasi_mem_ok(m, res, 4))
		return WASI_EFAULT;
	if ((rc = resolve_at(c, m, A32(0), A32(1), A32(2), false, &f, &p)))
		return rc;
	if ((n = readlinkat(p.dir, p.last, tmp, sizeof tmp)) < 0) {
		rc = wasi_errno(errno);
	} else {
		uint32_t k = (uint64_t)n < len ? (uint32_t)n : len;
		memcpy(m->base + buf, tmp, k);
		wasi_st32(m->base + res, k);
	}
	release(c, f, &p);
	return rc;
}

/* ---- poll_oneoff ------------------------------------------------------ */

/* poll_oneoff(in, out, nsubscriptions, nevents_ptr).
 * Subscription (48 bytes): userdata u64, tag u8 at 8 (0 clock, 1 fd_read,
 * 2 fd_write), then at 16 either clock (id u32, timeout u64 at 24,
 * precision u64 at 32, flags u16 at 40, 1 = absolute) or fd u32.
 * Event (32 bytes): userdata u64, error u16 at 8, type u8 at 10,
 * nbytes u64 at 16, flags u16 at 24.
 * How it works: fd subscriptions are always ready (a following read may
 * still block, where wait_ready takes over); with none, the call sleeps
 * until the earliest clock, in slices so that a stopping proc is seen.
 * Limitation: CPU-time clocks are timed as if they were monotonic. */
#define POLL_MAX_SUBS 4096

typedef struct sub {
	uint64_t userdata;
	uint8_t tag;
	uint16_t error;
	uint64_t deadline; /* clock: monotonic ns */
} sub;

static uint16_t poll_oneoff(wasi_ctx *c, const wasi_mem *m,
			    const uint64_t *args)
{
	uint32_t in = A32(0), out = A32(1), n = A32(2), res = A32(3);
	uint32_t nev = 0;
	eng_proc *sp = wasi_serial(m);
	uint64_t now = sp ? eng_proc_vclock(sp) : mono_ns(), wake = UINT64_MAX;
	bool immediate = false;
	uint16_t rc = 0;
	sub *s;

	if (n == 0 || n > POLL_MAX_SUBS)
		return WASI_EINVAL;
	if (!wasi_mem_ok(m, in, (uint64_t)n * 48) ||
	    !wasi_mem_ok(m, out, (uint64_t)n * 32) || !wasi_mem_ok(m, res, 4))
		return WASI_EFAULT;
	if (!(s = wasm_calloc(n, sizeof *s)))
		return WASI_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = m->base + in + 48 * (uint64_t)i;
		s[i].userdata = wasi_ld64(p);
		s[i].tag = p[8];
		if (s[i].tag == 0) {
			uint32_t id = wasi_ld32(p + 16);
			uint64_t t = wasi_ld64(p + 24);
			bool abs = p[40] & 1;
			struct timespec ts;
			if (id > 3) {
				s[i].error = WASI_EINVAL;
				immediate = true;
				continue;
			}
			if (!abs) {
				s[i].deadline = t > UINT64_MAX - now ? UINT64_MAX
								   : now + t;
			} else if (id == 0) {
				uint64_t real;
				clock_gettime(CLOCK_REALTIME, &ts);
				real = sp ? now + WASI_SERIAL_EPOCH_S *
						      1000000000ull
					  : ts_ns(ts);
				s[i].deadline = t <= real ? now
					      : t - real > UINT64_MAX - now
						      ? UINT64_MAX
						      : now + (t - real);
			} else {
				s[i].deadline = t;
			}
			if (s[i].deadline < wake)
				wake = s[i].deadline;
		} else if (s[i].tag == 1 || s[i].tag == 2) {
			wasi_fd *f = wasi_fd_get(c, wasi_ld32(p + 16));
			s[i].error = f ? 0 : WASI_EBADF;
			wasi_fd_put(c, f);
			immediate = true;
		} else {
			s[i].error = WASI_EINVAL;
			immediate = true;
		}
	}
	if (sp && !immediate && wake > now &&
	    eng_sched_sleep(m->thread, wake) != ENG_OK) {
		rc = WASI_STOPPING;
		goto done;
	}
	while (!sp && !immediate && (now = mono_ns()) < wake) {
		uint64_t left = wake - now, slice = WAIT_SLICE_MS * 1000000ull;
		struct timespec ts;
		if (!c->should_stop)
			slice = left;
		if (left < slice)
			slice = left;
		ts.tv_sec = (time_t)(slice / 1000000000u);
		ts.tv_nsec = (long)(slice % 1000000000u);
		nanosleep(&ts, NULL);
		if (c->should_stop && c->should_stop(c->stop_ctx)) {
			rc = WASI_STOPPING;
			goto done;
		}
	}
	now = sp ? eng_proc_vclock(sp) : mono_ns();
	for (uint32_t i = 0; i < n; i++) {
		uint8_t e[32] = {0};
		if (s[i].tag == 0 && !s[i].error && s[i].deadline > now)
			continue;
		wasi_st64(e, s[i].userdata);
		wasi_st16(e + 8, s[i].error);
		e[10] = s[i].tag;
		memcpy(m->base + out + 32 * (uint64_t)nev++, e, sizeof e);
	}
	wasi_st32(m->base + res, nev);
done:
	wasm_free(s);
	return rc;
}

/* ---- the table ------------------------------------------------------------- */

#define F(name, sig) {#name, sig, name}
const wasi_func wasi_funcs[] = {
	F(args_get, "ii>i"),
	F(args_sizes_get, "ii>i"),
	F(environ_get, "ii>i"),
	F(environ_sizes_get, "ii>i"),
	F(clock_res_get, "ii>i"),
	F(clock_time_get, "iIi>i"),
	F(fd_advise, "iIIi>i"),
	F(fd_allocate, "iII>i"),
	F(fd_close, "i>i"),
	F(fd_datasync, "i>i"),
	F(fd_fdstat_get, "ii>i"),
	F(fd_fdstat_set_flags, "ii>i"),
	F(fd_filestat_get, "ii>i"),
	F(fd_filestat_set_size, "iI>i"),
	F(fd_filestat_set_times, "iIIi>i"),
	F(fd_pread, "iiiIi>i"),
	F(fd_prestat_get, "ii>i"),
	F(fd_prestat_dir_name, "iii>i"),
	F(fd_pwrite, "iiiIi>i"),
	F(fd_read, "iiii>i"),
	F(fd_readdir, "iiiIi>i"),
	F(fd_renumber, "ii>i"),
	F(fd_seek, "iIii>i"),
	F(fd_sync, "i>i"),
	F(fd_tell, "ii>i"),
	F(fd_write, "iiii>i"),
	F(path_create_directory, "iii>i"),
	F(path_filestat_get, "iiiii>i"),
	F(path_filestat_set_times, "iiiiIIi>i"),
	F(path_link, "iiiiiii>i"),
	F(path_open, "iiiiiIIii>i"),
	F(path_readlink, "iiiiii>i"),
	F(path_remove_directory, "iii>i"),
	F(path_rename, "iiiiii>i"),
	F(path_symlink, "iiiii>i"),
	F(path_unlink_file, "iii>i"),
	F(poll_oneoff, "iiii>i"),
	{"proc_raise", "i>i", nosys}, /* signals are not emulated */
	{"sched_yield", ">i", sched_yield_},
	F(random_get, "ii>i"),
	{NULL, NULL, NULL},
};
#undef F

const wasi_func *wasi_func_find(const char *name, size_t len)
{
	for (const wasi_func *f = wasi_funcs; f->name; f++)
		if (strlen(f->name) == len && !memcmp(f->name, name, len))
			return f;
	return NULL;
}
