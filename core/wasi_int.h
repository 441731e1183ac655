/*
 * wasi_int.h - the parts of the WASI host that do not need the engine:
 * the errno table, guest-memory access, the file descriptor table, path
 * resolution beneath a directory, and the preview1 functions themselves
 * as plain functions over (state, memory view, arguments). core/wasi.c
 * binds them to the engine; tests/unit/test_wasi.c calls them directly on
 * a host buffer standing in for linear memory.
 *
 * Internal to core/: other folders use core/wasi.h.
 */
#ifndef HEISEN_CORE_WASI_INT_H
#define HEISEN_CORE_WASI_INT_H

#include "wasi.h"

#include <pthread.h>

/* ---- errno ------------------------------------------------------------ */

/* WASI preview1 errno values with their host errno, one row each:
 * X(NAME, wasi value). Host errno is E##NAME. The enum, host->WASI
 * mapping and the names used by tests all expand this list. */
#define WASI_ERRNO_LIST(X)                                                   \
	X(2BIG, 1) X(ACCES, 2) X(ADDRINUSE, 3) X(ADDRNOTAVAIL, 4)            \
	X(AFNOSUPPORT, 5) X(AGAIN, 6) X(ALREADY, 7) X(BADF, 8)               \
	X(BADMSG, 9) X(BUSY, 10) X(CANCELED, 11) X(CHILD, 12)                \
	X(CONNABORTED, 13) X(CONNREFUSED, 14) X(CONNRESET, 15)               \
	X(DEADLK, 16) X(DESTADDRREQ, 17) X(DOM, 18) X(DQUOT, 19)             \
	X(EXIST, 20) X(FAULT, 21) X(FBIG, 22) X(HOSTUNREACH, 23)             \
	X(IDRM, 24) X(ILSEQ, 25) X(INPROGRESS, 26) X(INTR, 27)               \
	X(INVAL, 28) X(IO, 29) X(ISCONN, 30) X(ISDIR, 31) X(LOOP, 32)        \
	X(MFILE, 33) X(MLINK, 34) X(MSGSIZE, 35) X(MULTIHOP, 36)             \
	X(NAMETOOLONG, 37) X(NETDOWN, 38) X(NETRESET, 39)                    \
	X(NETUNREACH, 40) X(NFILE, 41) X(NOBUFS, 42) X(NODEV, 43)            \
	X(NOENT, 44) X(NOEXEC, 45) X(NOLCK, 46) X(NOLINK, 47)                \
	X(NOMEM, 48) X(NOMSG, 49) X(NOPROTOOPT, 50) X(NOSPC, 51)             \
	X(NOSYS, 52) X(NOTCONN, 53) X(NOTDIR, 54) X(NOTEMPTY, 55)            \
	X(NOTRECOVERABLE, 56) X(NOTSOCK, 57) X(NOTSUP, 58) X(NOTTY, 59)      \
	X(NXIO, 60) X(OVERFLOW, 61) X(OWNERDEAD, 62) X(PERM, 63)             \
	X(PIPE, 64) X(PROTO, 65) X(PROTONOSUPPORT, 66) X(PROTOTYPE, 67)      \
	X(RANGE, 68) X(ROFS, 69) X(SPIPE, 70) X(SRCH, 71) X(STALE, 72)       \
	X(TIMEDOUT, 73) X(TXTBSY, 74) X(XDEV, 75)

enum {
	WASI_ESUCCESS = 0,
#define X(name, v) WASI_E##name = v,
	WASI_ERRNO_LIST(X)
#undef X
	WASI_ENOTCAPABLE = 76, /* no host equivalent: outside the sandbox */
	/* Not an errno: the proc is stopping (timeout, exit or trap on
	 * another thread) while this call waited. The binding ends the
	 * calling thread with the proc's status instead of returning. */
	WASI_STOPPING = 0xFFFF,
};

/* The WASI errno for a host errno (EIO for one without an equivalent). */
uint16_t wasi_errno(int host_errno);

/* ---- guest memory ------------------------------------------------------ */

/* A view of the calling instance's memory 0: base and size at the time of
 * the call. Memories only grow and their base never moves, so a view
 * stays valid for the whole call. */
typedef struct wasi_mem {
	uint8_t *base;
	uint64_t size;
	/* The calling thread: a serial run's clocks, random bytes and
	 * sleeps are its proc's (wasi_serial). */
	eng_thread *thread;
} wasi_mem;

/* Serial runs (engine.h's serial execution) see nothing of the host that
 * differs between runs: the clocks read virtual time (the realtime clock
 * from WASI_SERIAL_EPOCH_S), random_get a stream from the run's seed, and
 * sleeps pass virtual time. The proc when m's caller runs serially, else
 * NULL. */
#define WASI_SERIAL_EPOCH_S 1700000000ull
eng_proc *wasi_serial(const wasi_mem *m);

/* Whether [ptr, ptr+len) lies inside the memory. ptr and len come from
 * the guest as u32 but are checked in 64 bits so that nothing wraps. */
static inline bool wasi_mem_ok(const wasi_mem *m, uint64_t ptr, uint64_t len)
{
	return ptr <= m->size && len <= m->size - ptr;
}

/* Little-endian loads and stores; the caller checked the range. Guest
 * memory may be shared and written by other threads meanwhile: read each
 * value once into a local and check the local. */
static inline uint32_t wasi_ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline uint64_t wasi_ld64(const uint8_t *p)
{
	return (uint64_t)wasi_ld32(p) | (uint64_t)wasi_ld32(p + 4) << 32;
}
static inline void wasi_st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void wasi_st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}
static inline void wasi_st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* ---- string vectors (args, environ) ------------------------------------ */

/* Strings laid out as args_get/environ_get deliver them: `bytes` holds
 * every string with its NUL, back to back. */
typedef struct wasi_strvec {
	uint32_t count;
	uint32_t size;  /* bytes, NULs included */
	char *bytes;    /* owned */
	uint32_t *offs; /* count offsets into bytes, owned */
} wasi_strvec;

wasm_status wasi_strvec_init(wasi_strvec *v, const char *const *s,
			     uint32_t n, wasm_err *err);
void wasi_strvec_fini(wasi_strvec *v);
/* The *_sizes_get half: count at cnt_ptr, byte size at size_ptr. */
uint16_t wasi_strvec_sizes(const wasi_strvec *v, const wasi_mem *m,
			   uint32_t cnt_ptr, uint32_t size_ptr);
/* The *_get half: count pointers at ptrs (each pointing into buf) and the
 * strings at buf. EFAULT if either area is out of bounds; nothing is
 * written then. */
uint16_t wasi_strvec_get(const wasi_strvec *v, const wasi_mem *m,
			 uint32_t ptrs, uint32_t buf);

/* ---- file descriptors ----------------------------------------------- */

/* WASI file types. */
enum {
	WASI_FT_UNKNOWN = 0,
	WASI_FT_BLOCK = 1,
	WASI_FT_CHAR = 2,
	WASI_FT_DIR = 3,
	WASI_FT_FILE = 4,
	WASI_FT_SOCK_DGRAM = 5,
	WASI_FT_SOCK_STREAM = 6,
	WASI_FT_SYMLINK = 7,
};

/* Rights bits the host looks at (witx `rights`). */
#define WASI_RIGHT_FD_SEEK (1ull << 2)
#define WASI_RIGHT_FD_TELL (1ull << 5)

/* The WASI file type of a host st_mode. */
uint8_t wasi_filetype(unsigned mode);

/* One open guest fd. Shared by the threads of a run: a call takes a
 * reference (wasi_fd_get) for as long as it uses the host fd, so that a
 * concurrent fd_close cannot close it, and a reused host fd number
 * cannot be hit, underneath a read. */
typedef struct wasi_fd {
	int host;          /* host file descriptor */
	uint8_t type;      /* WASI_FT_* */
	bool owned;        /* close host when the last reference goes */
	uint16_t fdflags;  /* WASI fdflags the guest set */
	uint64_t rights;   /* rights reported by fd_fdstat_get */
	uint64_t inherit;  /* rights_inheriting */
	char *preopen;     /* guest name of a preopened directory, or NULL */
	int refs;          /* table reference + calls in progress */
} wasi_fd;

/* Per-run state shared by every thread of the run. */
typedef struct wasi_ctx {
	pthread_mutex_t lock; /* guards fds, nfds and every refs */
	wasi_fd **fds;        /* index = guest fd; NULL = free slot */
	uint32_t nfds;
	wasi_strvec args, env;
	/* Called by calls that wait (poll_oneoff sleeps, reads from pipes
	 * and terminals) between slices of at most 50 ms: true means the
	 * proc is stopping and the call should return WASI_STOPPING. NULL =
	 * never. */
	bool (*should_stop)(void *stop_ctx);
	void *stop_ctx;
	/* Serial runs: random_get's stream (xorshift state from the
	 * config's seed; one thread runs at a time, so no lock). */
	uint64_t rand_state;
} wasi_ctx;

/* Most fds a guest may hold open at once (EMFILE beyond). */
#define WASI_MAX_FDS 4096

/* Set up args, environment, stdio and the granted directories. Errors:
 * WASM_IO naming the directory that cannot be opened, WASM_NOMEM. */
wasm_status wasi_ctx_init(wasi_ctx *c, const wasi_config *cfg,
			  wasm_err *err);
/* Close every fd the run opened (not the config's stdio fds). */
void wasi_ctx_fini(wasi_ctx *c);

/* Add an open host fd as the lowest free guest fd; takes ownership when
 * owned. Returns the guest fd, or -1 (EMFILE/ENOMEM) leaving host open. */
int32_t wasi_fd_add(wasi_ctx *c, int host, bool owned, uint64_t rights,
		    uint64_t inherit, uint16_t fdflags);
/* A referenced entry for guest fd, or NULL (EBADF). Release with
 * wasi_fd_put. */
wasi_fd *wasi_fd_get(wasi_ctx *c, uint32_t fd);
void wasi_fd_put(wasi_ctx *c, wasi_fd *f);

/* ---- paths --------------------------------------------------------------- */

/* Longest guest path accepted, and most symlinks followed in one lookup. */
#define WASI_PATH_MAX 4096
#define WASI_SYMLOOP_MAX 40

/* Where a guest path leads: the directory holding the final component and
 * that component's name ("." when the path names the directory itself).
 * dir is an O_PATH fd owned by the result, or the base fd. */
typedef struct wasi_path {
	int dir;
	bool owned;
	bool must_be_dir; /* the path ended in '/' */
	char last[256];
} wasi_path;

/* Resolve `path` (len bytes, not NUL-terminated, from the guest) beneath
 * the host directory fd `base`, one component at a time: each
 * intermediate component is opened with O_NOFOLLOW|O_DIRECTORY, a symlink
 * is read and its target spliced into the rest of the path, `..` pops
 * back towards base. Follows a final symlink too when follow is true.
 *
 * How it keeps the guest inside: the kernel never follows a symlink for
 * us, every step is an openat relative to an fd we hold (so renames
 * elsewhere cannot redirect it), and the walk never goes above base.
 * Returns 0, or ENOTCAPABLE (absolute path, `..` above base, a symlink to
 * an absolute path or above base), ENOENT (empty path), EINVAL (a NUL in
 * the path), ENAMETOOLONG, ELOOP, ENOTDIR, or the host error of a step.
 * Limitation: the final component is checked and then used in a second
 * call; if it is swapped for a symlink in between, the operation (which
 * is always done without following) fails with ELOOP or acts on the
 * link itself: it never leaves base. */
uint16_t wasi_path_resolve(int base, const char *path, size_t len,
			   bool follow, wasi_path *out);
void wasi_path_fini(wasi_path *p);

/* ---- the preview1 functions ------------------------------------------ */

/* One implemented function: its import name, its type as a signature
 * string (params '>' results; i = i32, I = i64) and its implementation.
 * args are the call's parameters in slot form (i32 in the low 32 bits).
 * The result is the WASI errno the function returns, or WASI_STOPPING.
 * proc_exit and thread-spawn need the engine and are bound in wasi.c. */
typedef uint16_t (*wasi_impl)(wasi_ctx *c, const wasi_mem *m,
			      const uint64_t *args);
typedef struct wasi_func {
	const char *name;
	const char *sig;
	wasi_impl impl;
} wasi_func;

/* The implemented preview1 functions, terminated by a NULL name. */
extern const wasi_func wasi_funcs[];
/* Look one up by import name, NULL if not implemented. */
const wasi_func *wasi_func_find(const char *name, size_t len);

#endif
