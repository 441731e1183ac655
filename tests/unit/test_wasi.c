/*
 * test_wasi.c - the WASI host without the engine: the sandbox (paths
 * cannot leave a granted directory through `..`, symlinks or absolute
 * paths), errno mapping, the argument and environment layout, bounds
 * checks on guest pointers, and the preview1 functions a C program's
 * start-up and file I/O use. A 64 KiB host buffer stands in for linear
 * memory. The last tests run hand-written wasi-threads modules through
 * the engine: compiled once, run several times; threads that end with
 * heisen.thread.exit, and its misuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/wasi_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MEM_SIZE 65536

/* A scratch tree:
 *   ROOT/outside.txt            "secret"      (never reachable)
 *   ROOT/g/file.txt             "hello"       (g is the granted dir)
 *   ROOT/g/sub/inner.txt        "inner"
 *   ROOT/g/up -> ../outside.txt               (escapes by ..)
 *   ROOT/g/abs -> /etc/passwd                 (escapes by absolute path)
 *   ROOT/g/upnew -> ../created.txt            (escape for O_CREAT)
 *   ROOT/g/in -> sub/inner.txt                (stays inside)
 *   ROOT/g/dirlink -> sub
 *   ROOT/g/subup -> sub/..                    (g itself)
 *   ROOT/g/loop -> loop */
typedef struct fixture {
	char root[64];
	char granted[96];
	uint8_t *mem;
	wasi_mem m;
	wasi_ctx ctx;
	int base; /* host fd of the granted directory */
} fixture;

static void put_file(const char *dir, const char *name, const char *text)
{
	char p[256];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_link(const char *dir, const char *name, const char *target)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	char p[256];
	wasi_config cfg;
	wasi_dir dir;
	const char *argv[] = {"prog.wasm", "a b", ""};
	const char *env[] = {"HOME=/nowhere", "X="};
	wasm_err e;

	assert_non_null(fx);
	strcpy(fx->root, "/tmp/heisen-wasi-XXXXXX");
	assert_non_null(mkdtemp(fx->root));
	snprintf(fx->granted, sizeof fx->granted, "%s/g", fx->root);
	assert_int_equal(mkdir(fx->granted, 0700), 0);
	snprintf(p, sizeof p, "%s/sub", fx->granted);
	assert_int_equal(mkdir(p, 0700), 0);
	put_file(fx->root, "outside.txt", "secret");
	put_file(fx->granted, "file.txt", "hello");
	put_file(p, "inner.txt", "inner");
	put_link(fx->granted, "up", "../outside.txt");
	put_link(fx->granted, "abs", "/etc/passwd");
	put_link(fx->granted, "upnew", "../created.txt");
	put_link(fx->granted, "in", "sub/inner.txt");
	put_link(fx->granted, "dirlink", "sub");
	put_link(fx->granted, "subup", "sub/..");
	put_link(fx->granted, "loop", "loop");

	fx->mem = calloc(1, MEM_SIZE);
	assert_non_null(fx->mem);
	fx->m.base = fx->mem;
	fx->m.size = MEM_SIZE;

	wasi_config_init(&cfg);
	cfg.argv = argv;
	cfg.argc = 3;
	cfg.env = env;
	cfg.nenv = 2;
	dir.host = fx->granted;
	dir.guest = "/data";
	cfg.dirs = &dir;
	cfg.ndirs = 1;
	assert_int_equal(wasi_ctx_init(&fx->ctx, &cfg, &e), WASM_OK);
	fx->base = fx->ctx.fds[3]->host;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	char cmd[160];

	wasi_ctx_fini(&fx->ctx);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->root);
	assert_int_equal(system(cmd), 0);
	free(fx->mem);
	free(fx);
	return 0;
}

/* Call a preview1 function by name with up to 9 arguments. */
static uint16_t call(fixture *fx, const char *name, int n, ...)
{
	const wasi_func *f = wasi_func_find(name, strlen(name));
	uint64_t args[9] = {0};
	va_list ap;

	assert_non_null(f);
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		args[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return f->impl(&fx->ctx, &fx->m, args);
}
#define U(x) ((uint64_t)(x))

/* Put a string in guest memory at addr; returns its length. */
static uint32_t guest_str(fixture *fx, uint32_t addr, const char *s)
{
	size_t n = strlen(s);
	memcpy(fx->mem + addr, s, n);
	return (uint32_t)n;
}

/* path_open(3, lookupflags, path) for reading: the errno, *fd set. */
static uint16_t open_ro(fixture *fx, const char *path, bool follow,
			uint32_t oflags, uint32_t *fd)
{
	uint32_t len = guest_str(fx, 1024, path);
	uint16_t rc = call(fx, "path_open", 9, U(3), U(follow), U(1024),
			   U(len), U(oflags), U(1ull << 1 | 1ull << 14),
			   U(~0ull), U(0), U(512));
	*fd = wasi_ld32(fx->mem + 512);
	return rc;
}

/* ---- errno ---------------------------------------------------------- */

static void errno_table_maps_host_errors(void **state)
{
	assert_int_equal(wasi_errno(0), WASI_ESUCCESS);
	assert_int_equal(wasi_errno(E2BIG), 1);
	assert_int_equal(wasi_errno(EACCES), 2);
	assert_int_equal(wasi_errno(EBADF), 8);
	assert_int_equal(wasi_errno(EEXIST), 20);
	assert_int_equal(wasi_errno(EFAULT), 21);
	assert_int_equal(wasi_errno(EINVAL), 28);
	assert_int_equal(wasi_errno(ENOENT), 44);
	assert_int_equal(wasi_errno(ENOSYS), 52);
	assert_int_equal(wasi_errno(ENOTDIR), 54);
	assert_int_equal(wasi_errno(ENOTSUP), 58);
	assert_int_equal(wasi_errno(EOPNOTSUPP), 58);
	assert_int_equal(wasi_errno(EWOULDBLOCK), 6);
	assert_int_equal(wasi_errno(EXDEV), 75);
	/* No WASI equivalent: EIO rather than a wrong specific error. */
	assert_int_equal(wasi_errno(EKEYEXPIRED), WASI_EIO);
	assert_int_equal(wasi_errno(-1), WASI_EIO);
}

/* ---- args and environ -------------------------------------------------- */

static void args_layout_is_pointers_then_strings(void **state)
{
	fixture *fx = *state;
	uint8_t *m = fx->mem;

	assert_int_equal(call(fx, "args_sizes_get", 2, U(0), U(4)), 0);
	assert_int_equal(wasi_ld32(m), 3);
	assert_int_equal(wasi_ld32(m + 4), sizeof "prog.wasm" + sizeof "a b" + 1);
	assert_int_equal(call(fx, "args_get", 2, U(100), U(200)), 0);
	assert_int_equal(wasi_ld32(m + 100), 200);
	assert_int_equal(wasi_ld32(m + 104), 200 + 10);
	assert_int_equal(wasi_ld32(m + 108), 200 + 14);
	assert_memory_equal(m + 200, "prog.wasm\0a b\0\0", 15);

	assert_int_equal(call(fx, "environ_sizes_get", 2, U(0), U(4)), 0);
	assert_int_equal(wasi_ld32(m), 2);
	assert_int_equal(wasi_ld32(m + 4), sizeof "HOME=/nowhere" + sizeof "X=");
	assert_int_equal(call(fx, "environ_get", 2, U(300), U(400)), 0);
	assert_int_equal(wasi_ld32(m + 304), 400 + 14);
	assert_string_equal((char *)m + wasi_ld32(m + 304), "X=");
}

static void args_out_of_bounds_is_efault_and_writes_nothing(void **state)
{
	fixture *fx = *state;
	uint8_t zero[16] = {0};

	/* Pointer array runs off the end by one byte. */
	assert_int_equal(call(fx, "args_get", 2, U(MEM_SIZE - 11), U(0)),
			 WASI_EFAULT);
	assert_memory_equal(fx->mem, zero, sizeof zero);
	/* Strings would run off the end. */
	assert_int_equal(call(fx, "args_get", 2, U(0), U(MEM_SIZE - 14)),
			 WASI_EFAULT);
	assert_memory_equal(fx->mem, zero, sizeof zero);
	assert_int_equal(call(fx, "args_sizes_get", 2, U(MEM_SIZE - 3), U(0)),
			 WASI_EFAULT);
	/* Exactly at the end is fine. */
	assert_int_equal(call(fx, "args_sizes_get", 2, U(MEM_SIZE - 4), U(0)),
			 0);
	/* The high half of a slot is not part of an i32 argument. */
	assert_int_equal(call(fx, "args_sizes_get", 2, U(0xffffffff00000000ull),
			      U(4)),
			 0);
}

/* ---- path resolution ----------------------------------------------------- */

static uint16_t resolve(fixture *fx, const char *path, bool follow,
			wasi_path *p)
{
	return wasi_path_resolve(fx->base, path, strlen(path), follow, p);
}

/* The host path a resolution landed on: dir + last. */
static void landed(const wasi_path *p, char *buf, size_t cap)
{
	char proc[64], dir[256];
	ssize_t n;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", p->dir);
	n = readlink(proc, dir, sizeof dir - 1);
	assert_true(n > 0);
	dir[n] = '\0';
	snprintf(buf, cap, "%s/%s", dir, p->last);
}

static void expect_inside(fixture *fx, const char *path, bool follow,
			  const char *want_rel)
{
	wasi_path p;
	char got[512], want[512];
	uint16_t rc = resolve(fx, path, follow, &p);

	if (rc)
		fail_msg("'%s': errno %u, want success", path, rc);
	landed(&p, got, sizeof got);
	snprintf(want, sizeof want, "%s/%s", fx->granted, want_rel);
	if (strcmp(got, want))
		fail_msg("'%s' resolved to %s, want %s", path, got, want);
	wasi_path_fini(&p);
}

static void expect_errno(fixture *fx, const char *path, bool follow,
			 uint16_t want)
{
	wasi_path p;
	uint16_t rc = resolve(fx, path, follow, &p);
	if (rc != want)
		fail_msg("'%s' (follow %d): errno %u, want %u", path, follow,
			 rc, want);
	assert_int_equal(p.dir, -1);
}

static void paths_inside_resolve(void **state)
{
	fixture *fx = *state;

	expect_inside(fx, "file.txt", false, "file.txt");
	expect_inside(fx, "./file.txt", false, "file.txt");
	expect_inside(fx, "sub//inner.txt", false, "sub/inner.txt");
	expect_inside(fx, "sub/../file.txt", false, "file.txt");
	expect_inside(fx, "sub/..", false, ".");
	expect_inside(fx, ".", false, ".");
	expect_inside(fx, "new-file", true, "new-file"); /* for O_CREAT */
	/* Symlinks that stay inside are followed, intermediate or final. */
	expect_inside(fx, "in", true, "sub/inner.txt");
	expect_inside(fx, "dirlink/inner.txt", false, "sub/inner.txt");
	expect_inside(fx, "subup/file.txt", false, "file.txt");
	/* Not following the final link names the link itself. */
	expect_inside(fx, "up", false, "up");
	expect_inside(fx, "abs", false, "abs");
}

static void paths_cannot_escape(void **state)
{
	fixture *fx = *state;

	expect_errno(fx, "..", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "../outside.txt", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "sub/../../outside.txt", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "sub/../sub/../../g/file.txt", false,
		     WASI_ENOTCAPABLE);
	expect_errno(fx, "/etc/passwd", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "//etc/passwd", true, WASI_ENOTCAPABLE);
	expect_errno(fx, "up", true, WASI_ENOTCAPABLE);
	expect_errno(fx, "abs", true, WASI_ENOTCAPABLE);
	expect_errno(fx, "up/x", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "abs/x", false, WASI_ENOTCAPABLE);
	expect_errno(fx, "upnew", true, WASI_ENOTCAPABLE);
	expect_errno(fx, "loop", true, WASI_ELOOP);
	expect_errno(fx, "loop/x", false, WASI_ELOOP);
	expect_errno(fx, "file.txt/x", false, WASI_ENOTDIR);
	expect_errno(fx, "", false, WASI_ENOENT);
	expect_errno(fx, "nope/x", false, WASI_ENOENT);
}

static void paths_with_nul_are_rejected(void **state)
{
	fixture *fx = *state;
	wasi_path p;

	assert_int_equal(wasi_path_resolve(fx->base, "file.txt\0../x", 13,
					   false, &p),
			 WASI_EINVAL);
}

static void open_reads_inside_and_refuses_outside(void **state)
{
	fixture *fx = *state;
	uint32_t fd;
	char created[160];

	assert_int_equal(open_ro(fx, "sub/../file.txt", false, 0, &fd), 0);
	assert_true(fd > 3);
	/* iovec {buf 2048, len 100} at 600; nread at 700 */
	wasi_st32(fx->mem + 600, 2048);
	wasi_st32(fx->mem + 604, 100);
	assert_int_equal(call(fx, "fd_read", 4, U(fd), U(600), U(1), U(700)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 700), 5);
	assert_memory_equal(fx->mem + 2048, "hello", 5);
	assert_int_equal(call(fx, "fd_close", 1, U(fd)), 0);
	assert_int_equal(call(fx, "fd_close", 1, U(fd)), WASI_EBADF);

	assert_int_equal(open_ro(fx, "../outside.txt", false, 0, &fd),
			 WASI_ENOTCAPABLE);
	assert_int_equal(open_ro(fx, "up", true, 0, &fd), WASI_ENOTCAPABLE);
	/* Without following, a final symlink is not opened at all. */
	assert_int_equal(open_ro(fx, "up", false, 0, &fd), WASI_ELOOP);
	assert_int_equal(open_ro(fx, "abs", true, 0, &fd), WASI_ENOTCAPABLE);
	/* O_CREAT through a link pointing out creates nothing outside. */
	assert_int_equal(open_ro(fx, "upnew", true, 1, &fd), WASI_ENOTCAPABLE);
	assert_int_equal(open_ro(fx, "upnew", false, 1, &fd), WASI_ELOOP);
	snprintf(created, sizeof created, "%s/created.txt", fx->root);
	assert_int_equal(access(created, F_OK), -1);
	/* Only directories are bases for paths. */
	assert_int_equal(open_ro(fx, "file.txt", false, 0, &fd), 0);
	assert_int_equal(call(fx, "path_open", 9, U(fd), U(0), U(1024), U(1),
			      U(0), U(2), U(0), U(0), U(512)),
			 WASI_ENOTDIR);
	assert_int_equal(call(fx, "fd_close", 1, U(fd)), 0);
	/* A path that runs off the end of memory. */
	assert_int_equal(call(fx, "path_open", 9, U(3), U(0), U(MEM_SIZE - 2),
			      U(4), U(0), U(2), U(0), U(0), U(512)),
			 WASI_EFAULT);
	assert_int_equal(call(fx, "path_open", 9, U(3), U(0), U(1024), U(1),
			      U(0), U(2), U(0), U(0), U(MEM_SIZE - 3)),
			 WASI_EFAULT);
}

static void unlink_rename_mkdir_stay_inside(void **state)
{
	fixture *fx = *state;
	uint32_t a = guest_str(fx, 1000, "../outside.txt");
	uint32_t b = guest_str(fx, 1100, "moved.txt");
	uint32_t c = guest_str(fx, 1200, "file.txt");
	uint32_t d = guest_str(fx, 1300, "newdir");
	char p[200];

	assert_int_equal(call(fx, "path_unlink_file", 3, U(3), U(1000), U(a)),
			 WASI_ENOTCAPABLE);
	assert_int_equal(call(fx, "path_rename", 6, U(3), U(1000), U(a), U(3),
			      U(1100), U(b)),
			 WASI_ENOTCAPABLE);
	assert_int_equal(call(fx, "path_rename", 6, U(3), U(1200), U(c), U(3),
			      U(1000), U(a)),
			 WASI_ENOTCAPABLE);
	snprintf(p, sizeof p, "%s/outside.txt", fx->root);
	assert_int_equal(access(p, F_OK), 0);
	/* Unlinking a link removes the link, never its target. */
	guest_str(fx, 1400, "up");
	assert_int_equal(call(fx, "path_unlink_file", 3, U(3), U(1400), U(2)),
			 0);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(call(fx, "path_create_directory", 3, U(3), U(1300),
			      U(d)),
			 0);
	assert_int_equal(call(fx, "path_create_directory", 3, U(3), U(1300),
			      U(d)),
			 WASI_EEXIST);
	assert_int_equal(call(fx, "path_remove_directory", 3, U(3), U(1300),
			      U(d)),
			 0);
	assert_int_equal(call(fx, "path_rename", 6, U(3), U(1200), U(c), U(3),
			      U(1100), U(b)),
			 0);
	snprintf(p, sizeof p, "%s/moved.txt", fx->granted);
	assert_int_equal(access(p, F_OK), 0);
}

static void readlink_and_filestat(void **state)
{
	fixture *fx = *state;
	uint32_t n = guest_str(fx, 1000, "in");

	assert_int_equal(call(fx, "path_readlink", 6, U(3), U(1000), U(n),
			      U(2000), U(64), U(900)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 900), strlen("sub/inner.txt"));
	assert_memory_equal(fx->mem + 2000, "sub/inner.txt", 13);
	/* Cut at the buffer's size. */
	assert_int_equal(call(fx, "path_readlink", 6, U(3), U(1000), U(n),
			      U(2000), U(3), U(900)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 900), 3);
	/* filestat through the link: the file's size and type. */
	assert_int_equal(call(fx, "path_filestat_get", 5, U(3), U(1), U(1000),
			      U(n), U(3000)),
			 0);
	assert_int_equal(fx->mem[3000 + 16], WASI_FT_FILE);
	assert_int_equal(wasi_ld64(fx->mem + 3000 + 32), 5);
	/* Without following: the link. */
	assert_int_equal(call(fx, "path_filestat_get", 5, U(3), U(0), U(1000),
			      U(n), U(3000)),
			 0);
	assert_int_equal(fx->mem[3000 + 16], WASI_FT_SYMLINK);
	assert_int_equal(call(fx, "path_filestat_get", 5, U(3), U(0), U(1000),
			      U(n), U(MEM_SIZE - 63)),
			 WASI_EFAULT);
}

/* ---- fds ---------------------------------------------------------------- */

static void preopen_is_fd_3_with_its_guest_name(void **state)
{
	fixture *fx = *state;

	assert_int_equal(call(fx, "fd_prestat_get", 2, U(3), U(800)), 0);
	assert_int_equal(fx->mem[800], 0);
	assert_int_equal(wasi_ld32(fx->mem + 804), 5);
	assert_int_equal(call(fx, "fd_prestat_dir_name", 3, U(3), U(810), U(5)),
			 0);
	assert_memory_equal(fx->mem + 810, "/data", 5);
	assert_int_equal(call(fx, "fd_prestat_dir_name", 3, U(3), U(810), U(4)),
			 WASI_ENAMETOOLONG);
	/* wasi-libc scans preopens until EBADF. */
	assert_int_equal(call(fx, "fd_prestat_get", 2, U(4), U(800)),
			 WASI_EBADF);
	assert_int_equal(call(fx, "fd_prestat_get", 2, U(1), U(800)),
			 WASI_EBADF);
	assert_int_equal(call(fx, "fd_fdstat_get", 2, U(3), U(820)), 0);
	assert_int_equal(fx->mem[820], WASI_FT_DIR);
}

static void write_checks_every_iovec(void **state)
{
	fixture *fx = *state;
	uint32_t fd, len = guest_str(fx, 1024, "out.txt");

	/* open for writing, creating */
	assert_int_equal(call(fx, "path_open", 9, U(3), U(0), U(1024), U(len),
			      U(1), U(1ull << 6), U(0), U(0), U(512)),
			 0);
	fd = wasi_ld32(fx->mem + 512);
	guest_str(fx, 4000, "abcdef");
	wasi_st32(fx->mem + 600, 4000);
	wasi_st32(fx->mem + 604, 3);
	wasi_st32(fx->mem + 608, 4003);
	wasi_st32(fx->mem + 612, 3);
	assert_int_equal(call(fx, "fd_write", 4, U(fd), U(600), U(2), U(700)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 700), 6);
	/* Second iovec out of bounds: nothing is written. */
	wasi_st32(fx->mem + 608, MEM_SIZE - 2);
	assert_int_equal(call(fx, "fd_write", 4, U(fd), U(600), U(2), U(700)),
			 WASI_EFAULT);
	/* An iovec whose end wraps past 4 GiB. */
	wasi_st32(fx->mem + 608, 0xfffffff0u);
	wasi_st32(fx->mem + 612, 0x20);
	assert_int_equal(call(fx, "fd_write", 4, U(fd), U(600), U(2), U(700)),
			 WASI_EFAULT);
	/* The iovec array itself out of bounds. */
	assert_int_equal(call(fx, "fd_write", 4, U(fd), U(MEM_SIZE - 8),
			      U(2), U(700)),
			 WASI_EFAULT);
	assert_int_equal(call(fx, "fd_tell", 2, U(fd), U(710)), 0);
	assert_int_equal(wasi_ld64(fx->mem + 710), 6);
	assert_int_equal(call(fx, "fd_seek", 4, U(fd), U(-2), U(2), U(710)),
			 0);
	assert_int_equal(wasi_ld64(fx->mem + 710), 4);
	assert_int_equal(call(fx, "fd_seek", 4, U(fd), U(0), U(3), U(710)),
			 WASI_EINVAL);
	assert_int_equal(call(fx, "fd_write", 4, U(99), U(600), U(1), U(700)),
			 WASI_EBADF);
	assert_int_equal(call(fx, "fd_close", 1, U(fd)), 0);
}

static void renumber_moves_an_fd(void **state)
{
	fixture *fx = *state;
	uint32_t a, b;

	assert_int_equal(open_ro(fx, "file.txt", false, 0, &a), 0);
	assert_int_equal(open_ro(fx, "sub/inner.txt", false, 0, &b), 0);
	assert_int_equal(call(fx, "fd_renumber", 2, U(a), U(b)), 0);
	wasi_st32(fx->mem + 600, 2048);
	wasi_st32(fx->mem + 604, 16);
	assert_int_equal(call(fx, "fd_read", 4, U(b), U(600), U(1), U(700)),
			 0);
	assert_memory_equal(fx->mem + 2048, "hello", 5);
	assert_int_equal(call(fx, "fd_close", 1, U(a)), WASI_EBADF);
	assert_int_equal(call(fx, "fd_renumber", 2, U(b), U(77)), WASI_EBADF);
	assert_int_equal(call(fx, "fd_close", 1, U(b)), 0);
}

static void readdir_lists_the_directory(void **state)
{
	fixture *fx = *state;
	uint32_t used, off = 0;
	bool seen_file = false, seen_sub = false;

	assert_int_equal(call(fx, "fd_readdir", 5, U(3), U(8192), U(4096),
			      U(0), U(900)),
			 0);
	used = wasi_ld32(fx->mem + 900);
	assert_true(used > 24 && used < 4096);
	while (off + 24 <= used) {
		const uint8_t *d = fx->mem + 8192 + off;
		uint32_t nl = wasi_ld32(d + 16);
		if (nl == 8 && !memcmp(d + 24, "file.txt", 8)) {
			seen_file = true;
			assert_int_equal(d[20], WASI_FT_FILE);
		}
		if (nl == 3 && !memcmp(d + 24, "sub", 3)) {
			seen_sub = true;
			assert_int_equal(d[20], WASI_FT_DIR);
		}
		off += 24 + nl;
	}
	assert_true(seen_file && seen_sub);
	/* A buffer too small is filled completely: the caller's cue. */
	assert_int_equal(call(fx, "fd_readdir", 5, U(3), U(8192), U(30), U(0),
			      U(900)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 900), 30);
	assert_int_equal(call(fx, "fd_readdir", 5, U(0 + 1), U(8192), U(30),
			      U(0), U(900)),
			 WASI_ENOTDIR);
}

static void closed_stdio_keeps_preopens_at_3(void **state)
{
	wasi_config cfg;
	wasi_ctx c;
	wasi_dir dir = {"/tmp", "/tmp"};
	wasm_err e;

	wasi_config_init(&cfg);
	cfg.stdio[0] = -1;
	cfg.stdio[2] = -1;
	cfg.dirs = &dir;
	cfg.ndirs = 1;
	assert_int_equal(wasi_ctx_init(&c, &cfg, &e), WASM_OK);
	assert_null(c.fds[0]);
	assert_non_null(c.fds[1]);
	assert_null(c.fds[2]);
	assert_non_null(c.fds[3]);
	assert_string_equal(c.fds[3]->preopen, "/tmp");
	wasi_ctx_fini(&c);

	dir.host = "/nonexistent/heisen";
	assert_int_equal(wasi_ctx_init(&c, &cfg, &e), WASM_IO);
	assert_non_null(strstr(e.msg, "/nonexistent/heisen"));
}

/* ---- clocks, random, poll -------------------------------------------------- */

static void clocks_random_and_poll(void **state)
{
	fixture *fx = *state;
	struct timespec t0, t1;
	uint8_t *s = fx->mem + 1000, *ev = fx->mem + 2000;
	uint64_t ms;

	assert_int_equal(call(fx, "clock_time_get", 3, U(1), U(1), U(100)), 0);
	assert_true(wasi_ld64(fx->mem + 100) > 0);
	assert_int_equal(call(fx, "clock_time_get", 3, U(0), U(1), U(100)), 0);
	assert_true(wasi_ld64(fx->mem + 100) > 1500000000ull * 1000000000ull);
	assert_int_equal(call(fx, "clock_time_get", 3, U(9), U(1), U(100)),
			 WASI_EINVAL);
	assert_int_equal(call(fx, "clock_res_get", 2, U(1), U(MEM_SIZE - 4)),
			 WASI_EFAULT);
	assert_int_equal(call(fx, "random_get", 2, U(200), U(64)), 0);
	assert_int_equal(call(fx, "random_get", 2, U(MEM_SIZE - 8), U(9)),
			 WASI_EFAULT);

	/* One relative monotonic clock of 20 ms. */
	memset(s, 0, 48);
	wasi_st64(s, 0x1234);
	s[8] = 0;
	wasi_st32(s + 16, 1);
	wasi_st64(s + 24, 20000000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(call(fx, "poll_oneoff", 4, U(1000), U(2000), U(1),
			      U(3000)),
			 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
	     (uint64_t)(t1.tv_nsec / 1000000) - (uint64_t)(t0.tv_nsec / 1000000);
	/* It slept (a lower bound only: how much longer depends on load). */
	assert_true(ms >= 19);
	assert_int_equal(wasi_ld32(fx->mem + 3000), 1);
	assert_int_equal(wasi_ld64(ev), 0x1234);
	assert_int_equal(ev[10], 0);
	/* An fd subscription is ready at once; a bad fd reports EBADF. */
	s[48 + 8] = 1;
	wasi_st32(s + 48 + 16, 77);
	assert_int_equal(call(fx, "poll_oneoff", 4, U(1000), U(2000), U(2),
			      U(3000)),
			 0);
	assert_int_equal(wasi_ld32(fx->mem + 3000), 1);
	assert_int_equal(wasi_ld32(ev + 8) & 0xffff, WASI_EBADF);
	assert_int_equal(call(fx, "poll_oneoff", 4, U(1000), U(2000), U(0),
			      U(3000)),
			 WASI_EINVAL);
	assert_int_equal(call(fx, "poll_oneoff", 4, U(MEM_SIZE - 40), U(2000),
			      U(1), U(3000)),
			 WASI_EFAULT);
}

/* ---- the table --------------------------------------------------------- */

static void table_has_what_wasi_libc_needs(void **state)
{
	static const char *needed[] = {
		"args_get", "args_sizes_get", "environ_get",
		"environ_sizes_get", "clock_res_get", "clock_time_get",
		"random_get", "fd_write", "fd_read", "fd_pread", "fd_pwrite",
		"fd_seek", "fd_tell", "fd_close", "fd_fdstat_get",
		"fd_fdstat_set_flags", "fd_filestat_get", "fd_prestat_get",
		"fd_prestat_dir_name", "fd_readdir", "fd_sync", "fd_datasync",
		"fd_advise", "fd_allocate", "fd_renumber", "path_open",
		"path_filestat_get", "path_create_directory",
		"path_unlink_file", "path_remove_directory", "path_rename",
		"path_readlink", "poll_oneoff", "sched_yield", "proc_raise"};

	for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
		if (!wasi_func_find(needed[i], strlen(needed[i])))
			fail_msg("%s is not implemented", needed[i]);
	for (const wasi_func *f = wasi_funcs; f->name; f++) {
		const char *gt = strchr(f->sig, '>');
		assert_non_null(gt);
		assert_true(strspn(f->sig, "iI>") == strlen(f->sig));
		/* every preview1 function here returns one errno */
		assert_string_equal(gt, ">i");
		for (const wasi_func *g = f + 1; g->name; g++)
			assert_string_not_equal(f->name, g->name);
	}
	assert_int_equal(call(*state, "proc_raise", 1, U(6)), WASI_ENOSYS);
}

/* ---- whole runs through the engine ---------------------------------- */

/* wat2wasm --enable-threads of:
 * (module
 *   (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
 *   (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
 *   (import "heisen" "probe" (func $probe (param i32 i32)))
 *   (import "env" "memory" (memory 1 1 shared))
 *   (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
 *     (call $probe (local.get $tid) (local.get $arg))
 *     (drop (i32.atomic.rmw.add (i32.const 0) (local.get $arg)))
 *     (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
 *     (block $go
 *       (loop $hold
 *         (br_if $go (i32.atomic.load (i32.const 4)))
 *         (drop (memory.atomic.wait32 (i32.const 4) (i32.const 0) (i64.const 100000000)))
 *         (br $hold))))
 *   (func (export "_start")
 *     (local $v i32)
 *     (if (i32.le_s (call $spawn (i32.const 5)) (i32.const 0))
 *       (then (call $exit (i32.const 99))))
 *     (if (i32.le_s (call $spawn (i32.const 5)) (i32.const 0))
 *       (then (call $exit (i32.const 99))))
 *     (i32.atomic.store (i32.const 4) (i32.const 1))
 *     (drop (memory.atomic.notify (i32.const 4) (i32.const 2)))
 *     (block $done
 *       (loop $w
 *         (local.set $v (i32.atomic.load (i32.const 0)))
 *         (br_if $done (i32.eq (local.get $v) (i32.const 10)))
 *         (drop (memory.atomic.wait32 (i32.const 0) (local.get $v) (i64.const 100000000)))
 *         (br $w)))
 *     (call $exit (i32.atomic.load (i32.const 0)))))
 * Two threads each add 5 to a shared counter, report to heisen.probe
 * (an import the embedder resolves) and stay until _start has spawned
 * both (the flag at 4), so that under a limit of one thread the second
 * spawn fails whatever the scheduling; _start waits for 10 and exits with
 * the counter, or with 99 when thread-spawn fails. */
static const uint8_t threads_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x12, 0x04, 0x60,
	0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x02, 0x7f, 0x7f,
	0x00, 0x60, 0x00, 0x00, 0x02, 0x56, 0x04, 0x04, 0x77, 0x61, 0x73, 0x69,
	0x0c, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x2d, 0x73, 0x70, 0x61, 0x77,
	0x6e, 0x00, 0x00, 0x16, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x73, 0x6e, 0x61,
	0x70, 0x73, 0x68, 0x6f, 0x74, 0x5f, 0x70, 0x72, 0x65, 0x76, 0x69, 0x65,
	0x77, 0x31, 0x09, 0x70, 0x72, 0x6f, 0x63, 0x5f, 0x65, 0x78, 0x69, 0x74,
	0x00, 0x01, 0x06, 0x68, 0x65, 0x69, 0x73, 0x65, 0x6e, 0x05, 0x70, 0x72,
	0x6f, 0x62, 0x65, 0x00, 0x02, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65,
	0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x01, 0x03, 0x03, 0x02, 0x02,
	0x03, 0x07, 0x1e, 0x02, 0x11, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x74, 0x68,
	0x72, 0x65, 0x61, 0x64, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x03,
	0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x04, 0x0a, 0x9b, 0x01,
	0x02, 0x38, 0x00, 0x20, 0x00, 0x20, 0x01, 0x10, 0x02, 0x41, 0x00, 0x20,
	0x01, 0xfe, 0x1e, 0x02, 0x00, 0x1a, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x00,
	0x02, 0x00, 0x1a, 0x02, 0x40, 0x03, 0x40, 0x41, 0x04, 0xfe, 0x10, 0x02,
	0x00, 0x0d, 0x01, 0x41, 0x04, 0x41, 0x00, 0x42, 0x80, 0xc2, 0xd7, 0x2f,
	0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b, 0x0b, 0x60, 0x01,
	0x01, 0x7f, 0x41, 0x05, 0x10, 0x00, 0x41, 0x00, 0x4c, 0x04, 0x40, 0x41,
	0xe3, 0x00, 0x10, 0x01, 0x0b, 0x41, 0x05, 0x10, 0x00, 0x41, 0x00, 0x4c,
	0x04, 0x40, 0x41, 0xe3, 0x00, 0x10, 0x01, 0x0b, 0x41, 0x04, 0x41, 0x01,
	0xfe, 0x17, 0x02, 0x00, 0x41, 0x04, 0x41, 0x02, 0xfe, 0x00, 0x02, 0x00,
	0x1a, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x21,
	0x00, 0x20, 0x00, 0x41, 0x0a, 0x46, 0x0d, 0x01, 0x41, 0x00, 0x20, 0x00,
	0x42, 0x80, 0xc2, 0xd7, 0x2f, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00,
	0x0b, 0x0b, 0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x10, 0x01, 0x0b,
};

typedef struct hooks {
	eng_proc *p;
	int procs;
	atomic_int probes;
	atomic_int bad_tids;
} hooks;

static eng_trap_kind probe_fn(eng_thread *t, void *ctx, const eng_val *args,
			      eng_val *results, eng_trap *trap)
{
	hooks *h = ctx;

	atomic_fetch_add(&h->probes, 1);
	/* wasi_thread_start got the engine's id for its thread */
	if ((uint32_t)args[0] != eng_thread_id(t) || args[0] == 0)
		atomic_fetch_add(&h->bad_tids, 1);
	return ENG_OK;
}

static void on_proc(void *ctx, eng_proc *p)
{
	hooks *h = ctx;
	h->p = p;
	h->procs++;
}

/* What the detector will do for heisen.probe: chained before WASI. */
static bool extra_resolver(void *ctx, const wasm_import *imp,
			   eng_extern *out)
{
	hooks *h = ctx;
	uint8_t types[] = {WASM_I32, WASM_I32};
	wasm_functype ft = {2, 0, types};

	if (imp->module.len != 6 || memcmp(imp->module.p, "heisen", 6))
		return false;
	out->kind = WASM_EXTERN_FUNC;
	out->u.func = eng_host_func_new(h->p, &ft, probe_fn, h, "probe");
	return out->u.func != NULL;
}

static eng_module *compile_bytes(const uint8_t *b, size_t n)
{
	wasm_module *m;
	eng_module *cm;
	wasm_err e;

	assert_int_equal(wasm_decode(b, n, &m, &e), WASM_OK);
	assert_int_equal(wasm_validate(m, &e), WASM_OK);
	assert_int_equal(wasi_check_command(m, &e), WASM_OK);
	assert_int_equal(eng_compile(m, &cm, &e), WASM_OK);
	return cm;
}

static void one_compile_many_runs_with_threads(void **state)
{
	eng_module *cm = compile_bytes(threads_wasm, sizeof threads_wasm);
	hooks h = {0};
	wasi_config cfg;
	eng_trap trap;
	wasm_err e;
	int code;

	wasi_config_init(&cfg);
	cfg.resolve = extra_resolver;
	cfg.resolve_ctx = &h;
	cfg.on_proc = on_proc;
	cfg.hook_ctx = &h;
	cfg.limits.timeout_s = 30;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
		if (trap.kind != ENG_EXIT)
			fail_msg("run %d ended with %s", i, trap.msg);
		assert_int_equal(code, 10);
	}
	assert_int_equal(h.procs, 3);
	assert_int_equal(atomic_load(&h.probes), 6);
	assert_int_equal(atomic_load(&h.bad_tids), 0);

	/* No room for a second thread: thread-spawn fails, the guest sees a
	 * negative result and decides (exit 99). */
	cfg.limits.max_threads = 1;
	assert_int_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
	assert_int_equal(trap.kind, ENG_EXIT);
	assert_int_equal(code, 99);

	/* Without the embedder's resolver heisen.probe is unknown: a host
	 * error naming it, not a trap. */
	cfg.resolve = NULL;
	assert_int_not_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
	assert_non_null(strstr(e.msg, "probe"));
	assert_int_equal(code, -1);
	eng_module_free(cm);
}

/* heisen.thread.exit (wasi.h), with wat2wasm --enable-threads of:
 * (module
 *   (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
 *   (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
 *   (import "heisen.thread" "exit" (func $texit))
 *   (import "env" "memory" (memory 1 1 shared))
 *   (func $deep (param $n i32)
 *     (if (local.get $n)
 *       (then (call $deep (i32.sub (local.get $n) (i32.const 1)))))
 *     (call $texit)
 *     (unreachable))
 *   (func (export "wasi_thread_start") (param $tid i32) (param $arg i32)
 *     (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
 *     (drop (memory.atomic.notify (i32.const 0) (i32.const 1)))
 *     (call $deep (i32.const 50)))
 *   (func (export "_start")
 *     (local $i i32) (local $tries i32)
 *     (loop $next
 *       (block $spawned
 *         (loop $retry
 *           (br_if $spawned
 *             (i32.gt_s (call $spawn (i32.const 0)) (i32.const 0)))
 *           (local.set $tries (i32.add (local.get $tries) (i32.const 1)))
 *           (if (i32.gt_u (local.get $tries) (i32.const 5000))
 *             (then (call $exit (i32.const 99))))
 *           (drop (memory.atomic.wait32
 *             (i32.const 8) (i32.const 0) (i64.const 1000000)))
 *           (br $retry)))
 *       (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *       (br_if $next (i32.lt_u (local.get $i) (i32.const 20))))
 *     (block $done
 *       (loop $w
 *         (br_if $done
 *           (i32.eq (i32.atomic.load (i32.const 0)) (i32.const 20)))
 *         (drop (memory.atomic.wait32
 *           (i32.const 8) (i32.const 0) (i64.const 1000000)))
 *         (br $w)))
 *     (call $exit (i32.atomic.load (i32.const 0)))))
 * Twenty threads, each ending from 51 frames deep; under a limit of one
 * live thread each spawn succeeds only once the thread before has really
 * ended (a refused spawn is retried every millisecond, 5000 times at
 * most, then exit 99). Exits with the count, 20. */
static const uint8_t texit_pool_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x12, 0x04, 0x60,
	0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x00, 0x00, 0x60,
	0x02, 0x7f, 0x7f, 0x00, 0x02, 0x5c, 0x04, 0x04, 0x77, 0x61, 0x73, 0x69,
	0x0c, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x2d, 0x73, 0x70, 0x61, 0x77,
	0x6e, 0x00, 0x00, 0x16, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x73, 0x6e, 0x61,
	0x70, 0x73, 0x68, 0x6f, 0x74, 0x5f, 0x70, 0x72, 0x65, 0x76, 0x69, 0x65,
	0x77, 0x31, 0x09, 0x70, 0x72, 0x6f, 0x63, 0x5f, 0x65, 0x78, 0x69, 0x74,
	0x00, 0x01, 0x0d, 0x68, 0x65, 0x69, 0x73, 0x65, 0x6e, 0x2e, 0x74, 0x68,
	0x72, 0x65, 0x61, 0x64, 0x04, 0x65, 0x78, 0x69, 0x74, 0x00, 0x02, 0x03,
	0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03,
	0x01, 0x01, 0x03, 0x04, 0x03, 0x01, 0x03, 0x02, 0x07, 0x1e, 0x02, 0x11,
	0x77, 0x61, 0x73, 0x69, 0x5f, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x5f,
	0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x04, 0x06, 0x5f, 0x73, 0x74, 0x61,
	0x72, 0x74, 0x00, 0x05, 0x0a, 0x9d, 0x01, 0x03, 0x11, 0x00, 0x20, 0x00,
	0x04, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x03, 0x0b, 0x10, 0x02,
	0x00, 0x0b, 0x18, 0x00, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x1e, 0x02, 0x00,
	0x1a, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x00, 0x02, 0x00, 0x1a, 0x41, 0x32,
	0x10, 0x03, 0x0b, 0x70, 0x01, 0x02, 0x7f, 0x03, 0x40, 0x02, 0x40, 0x03,
	0x40, 0x41, 0x00, 0x10, 0x00, 0x41, 0x00, 0x4a, 0x0d, 0x01, 0x20, 0x01,
	0x41, 0x01, 0x6a, 0x21, 0x01, 0x20, 0x01, 0x41, 0x88, 0x27, 0x4b, 0x04,
	0x40, 0x41, 0xe3, 0x00, 0x10, 0x01, 0x0b, 0x41, 0x08, 0x41, 0x00, 0x42,
	0xc0, 0x84, 0x3d, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b,
	0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x20, 0x00, 0x41, 0x14, 0x49,
	0x0d, 0x00, 0x0b, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0xfe, 0x10, 0x02,
	0x00, 0x41, 0x14, 0x46, 0x0d, 0x01, 0x41, 0x08, 0x41, 0x00, 0x42, 0xc0,
	0x84, 0x3d, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b, 0x41,
	0x00, 0xfe, 0x10, 0x02, 0x00, 0x10, 0x01, 0x0b,
};

/* A spawned thread ended by the start function of the instance it is
 * instantiating:
 * (module
 *   (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
 *   (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
 *   (import "heisen.thread" "exit" (func $texit))
 *   (import "env" "memory" (memory 1 1 shared))
 *   (func $start
 *     (if (i32.atomic.load (i32.const 4))
 *       (then
 *         (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 100)))
 *         (call $texit))))
 *   (start $start)
 *   (func (export "wasi_thread_start") (param i32 i32)
 *     (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1))))
 *   (func $await (param $v i32)
 *     (block $done
 *       (loop $w
 *         (br_if $done
 *           (i32.eq (i32.atomic.load (i32.const 0)) (local.get $v)))
 *         (drop (memory.atomic.wait32
 *           (i32.const 8) (i32.const 0) (i64.const 1000000)))
 *         (br $w))))
 *   (func (export "_start")
 *     (i32.atomic.store (i32.const 4) (i32.const 1))
 *     (drop (call $spawn (i32.const 0)))
 *     (call $await (i32.const 100))
 *     (i32.atomic.store (i32.const 4) (i32.const 0))
 *     (block $spawned
 *       (loop $retry
 *         (br_if $spawned
 *           (i32.gt_s (call $spawn (i32.const 0)) (i32.const 0)))
 *         (drop (memory.atomic.wait32
 *           (i32.const 8) (i32.const 0) (i64.const 1000000)))
 *         (br $retry)))
 *     (call $await (i32.const 101))
 *     (call $exit (i32.sub (i32.atomic.load (i32.const 0)) (i32.const 100)))))
 * The first thread ends in $start (+100); the second can only be spawned
 * (one live thread at most) once it has ended, and runs normally (+1):
 * exit 1. */
static const uint8_t texit_start_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x12, 0x04, 0x60,
	0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x60, 0x00, 0x00, 0x60,
	0x02, 0x7f, 0x7f, 0x00, 0x02, 0x5c, 0x04, 0x04, 0x77, 0x61, 0x73, 0x69,
	0x0c, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x2d, 0x73, 0x70, 0x61, 0x77,
	0x6e, 0x00, 0x00, 0x16, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x73, 0x6e, 0x61,
	0x70, 0x73, 0x68, 0x6f, 0x74, 0x5f, 0x70, 0x72, 0x65, 0x76, 0x69, 0x65,
	0x77, 0x31, 0x09, 0x70, 0x72, 0x6f, 0x63, 0x5f, 0x65, 0x78, 0x69, 0x74,
	0x00, 0x01, 0x0d, 0x68, 0x65, 0x69, 0x73, 0x65, 0x6e, 0x2e, 0x74, 0x68,
	0x72, 0x65, 0x61, 0x64, 0x04, 0x65, 0x78, 0x69, 0x74, 0x00, 0x02, 0x03,
	0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03,
	0x01, 0x01, 0x03, 0x05, 0x04, 0x02, 0x03, 0x01, 0x02, 0x07, 0x1e, 0x02,
	0x11, 0x77, 0x61, 0x73, 0x69, 0x5f, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64,
	0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x04, 0x06, 0x5f, 0x73, 0x74,
	0x61, 0x72, 0x74, 0x00, 0x06, 0x08, 0x01, 0x03, 0x0a, 0x94, 0x01, 0x04,
	0x17, 0x00, 0x41, 0x04, 0xfe, 0x10, 0x02, 0x00, 0x04, 0x40, 0x41, 0x00,
	0x41, 0xe4, 0x00, 0xfe, 0x1e, 0x02, 0x00, 0x1a, 0x10, 0x02, 0x0b, 0x0b,
	0x0b, 0x00, 0x41, 0x00, 0x41, 0x01, 0xfe, 0x1e, 0x02, 0x00, 0x1a, 0x0b,
	0x22, 0x00, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0xfe, 0x10, 0x02, 0x00,
	0x20, 0x00, 0x46, 0x0d, 0x01, 0x41, 0x08, 0x41, 0x00, 0x42, 0xc0, 0x84,
	0x3d, 0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b, 0x0b, 0x4b,
	0x00, 0x41, 0x04, 0x41, 0x01, 0xfe, 0x17, 0x02, 0x00, 0x41, 0x00, 0x10,
	0x00, 0x1a, 0x41, 0xe4, 0x00, 0x10, 0x05, 0x41, 0x04, 0x41, 0x00, 0xfe,
	0x17, 0x02, 0x00, 0x02, 0x40, 0x03, 0x40, 0x41, 0x00, 0x10, 0x00, 0x41,
	0x00, 0x4a, 0x0d, 0x01, 0x41, 0x08, 0x41, 0x00, 0x42, 0xc0, 0x84, 0x3d,
	0xfe, 0x01, 0x02, 0x00, 0x1a, 0x0c, 0x00, 0x0b, 0x0b, 0x41, 0xe5, 0x00,
	0x10, 0x05, 0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x41, 0xe4, 0x00, 0x6b,
	0x10, 0x01, 0x0b,
};

/* (module (import "heisen.thread" "exit" (func $texit))
 *   (func (export "_start") (call $texit))) */
static const uint8_t texit_main_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60,
	0x00, 0x00, 0x02, 0x16, 0x01, 0x0d, 0x68, 0x65, 0x69, 0x73, 0x65, 0x6e,
	0x2e, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x04, 0x65, 0x78, 0x69, 0x74,
	0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73,
	0x74, 0x61, 0x72, 0x74, 0x00, 0x01, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x10,
	0x00, 0x0b,
};

/* (module (import "heisen.thread" "exit" (func $texit))
 *   (start $texit) (func (export "_start"))) */
static const uint8_t texit_main_start_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60,
	0x00, 0x00, 0x02, 0x16, 0x01, 0x0d, 0x68, 0x65, 0x69, 0x73, 0x65, 0x6e,
	0x2e, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x04, 0x65, 0x78, 0x69, 0x74,
	0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06, 0x5f, 0x73,
	0x74, 0x61, 0x72, 0x74, 0x00, 0x01, 0x08, 0x01, 0x00, 0x0a, 0x04, 0x01,
	0x02, 0x00, 0x0b,
};

/* (module (import "heisen.thread" "exit" (func $texit (param i32)))
 *   (func (export "_start") (call $texit (i32.const 1)))) */
static const uint8_t texit_badtype_wasm[] = {
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60,
	0x01, 0x7f, 0x00, 0x60, 0x00, 0x00, 0x02, 0x16, 0x01, 0x0d, 0x68, 0x65,
	0x69, 0x73, 0x65, 0x6e, 0x2e, 0x74, 0x68, 0x72, 0x65, 0x61, 0x64, 0x04,
	0x65, 0x78, 0x69, 0x74, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x07, 0x0a,
	0x01, 0x06, 0x5f, 0x73, 0x74, 0x61, 0x72, 0x74, 0x00, 0x01, 0x0a, 0x08,
	0x01, 0x06, 0x00, 0x41, 0x01, 0x10, 0x00, 0x0b,
};

static void count_end(void *ctx, eng_thread *t)
{
	atomic_fetch_add((atomic_int *)ctx, 1);
}

static void thread_exit_ends_only_its_thread(void **state)
{
	eng_module *cm = compile_bytes(texit_pool_wasm, sizeof texit_pool_wasm);
	atomic_int ends = 0;
	wasi_config cfg;
	eng_trap trap;
	wasm_err e;
	int code;

	wasi_config_init(&cfg);
	cfg.limits.max_threads = 1;
	cfg.limits.timeout_s = 30;
	cfg.on_end = count_end;
	cfg.hook_ctx = &ends;
	assert_int_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
	if (trap.kind != ENG_EXIT)
		fail_msg("pool: %s", trap.msg);
	assert_int_equal(code, 20);
	assert_int_equal(atomic_load(&ends), 20);
	eng_module_free(cm);

	cm = compile_bytes(texit_start_wasm, sizeof texit_start_wasm);
	atomic_store(&ends, 0);
	assert_int_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
	if (trap.kind != ENG_EXIT)
		fail_msg("start function: %s", trap.msg);
	assert_int_equal(code, 1);
	assert_int_equal(atomic_load(&ends), 2);
	eng_module_free(cm);
}

static void thread_exit_on_main_traps(void **state)
{
	const struct {
		const uint8_t *b;
		size_t n;
	} mods[] = {{texit_main_wasm, sizeof texit_main_wasm},
		    {texit_main_start_wasm, sizeof texit_main_start_wasm}};
	wasi_config cfg;
	eng_trap trap;
	wasm_err e;
	int code;

	wasi_config_init(&cfg);
	for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) {
		eng_module *cm = compile_bytes(mods[i].b, mods[i].n);
		assert_int_equal(wasi_run(cm, &cfg, &trap, &code, &e),
				 WASM_OK);
		assert_int_equal(trap.kind, ENG_TRAP_HOST);
		assert_non_null(strstr(trap.msg, "main thread"));
		assert_int_equal(code, -1);
		eng_module_free(cm);
	}
	/* Another type is an import nobody provides: a host error. */
	eng_module *cm = compile_bytes(texit_badtype_wasm,
				       sizeof texit_badtype_wasm);
	assert_int_not_equal(wasi_run(cm, &cfg, &trap, &code, &e), WASM_OK);
	assert_non_null(strstr(e.msg, "heisen.thread"));
	eng_module_free(cm);
}

/* A world packed as campaigns keep it: a guest name defaults to the host
 * path as written, a host override replaces only the host side, bad
 * specs are refused, the packed form reads back and applies to a
 * config. */
static void world_packs_and_applies(void **state)
{
	wasi_world w = {0}, back = {0}, copy;
	wasi_config cfg;
	void *mem;
	wasm_err e;
	bool oom = false;

	assert_int_equal(wasi_world_add_dir(&w, "data", NULL, &e), WASM_OK);
	assert_int_equal(wasi_world_add_dir(&w, "in::/in", "/abs/in", &e),
			 WASM_OK);
	assert_int_equal(wasi_world_add_dir(&w, "::x", NULL, &e), WASM_INVALID);
	assert_int_equal(wasi_world_add_dir(&w, "x::", NULL, &e), WASM_INVALID);
	assert_int_equal(wasi_world_add_env(&w, "A=1", &e), WASM_OK);
	assert_int_equal(wasi_world_add_env(&w, "=1", &e), WASM_INVALID);
	assert_int_equal(wasi_world_add_env(&w, "NOVALUE", &e), WASM_INVALID);
	assert_int_equal(w.ndirs, 2);
	assert_int_equal(w.nenv, 1);
	assert_int_equal(wasi_world_dirs_len(&w),
			 sizeof "data\0data\0/abs/in\0/in");
	w.max_threads = 3;
	assert_true(
	    wasi_world_set_dirs(&back, w.dirs, wasi_world_dirs_len(&w), &oom));
	assert_int_equal(back.ndirs, 2);
	/* Pairs only, and every string ends in NUL. */
	assert_false(wasi_world_set_dirs(&back, "a\0b\0c", 6, &oom));
	assert_false(wasi_world_set_env(&back, "A=1", 3, &oom));
	assert_false(oom);
	wasm_free(back.dirs);
	assert_int_equal(wasi_world_copy(&copy, &w, &e), WASM_OK);
	wasi_config_init(&cfg);
	assert_int_equal(wasi_world_apply(&copy, &cfg, &mem, &e), WASM_OK);
	assert_int_equal(cfg.ndirs, 2);
	assert_string_equal(cfg.dirs[0].host, "data");
	assert_string_equal(cfg.dirs[0].guest, "data");
	assert_string_equal(cfg.dirs[1].host, "/abs/in");
	assert_string_equal(cfg.dirs[1].guest, "/in");
	assert_int_equal(cfg.nenv, 1);
	assert_string_equal(cfg.env[0], "A=1");
	assert_int_equal(cfg.limits.max_threads, 3);
	assert_int_equal(cfg.limits.max_memory_pages, 0);
	assert_true(wasi_world_given(&copy));
	wasm_free(mem);
	wasi_world_clear(&copy);
	wasi_world_clear(&w);
	assert_false(wasi_world_given(&w));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(errno_table_maps_host_errors),
	    cmocka_unit_test(world_packs_and_applies),
	    cmocka_unit_test_setup_teardown(
		args_layout_is_pointers_then_strings, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		args_out_of_bounds_is_efault_and_writes_nothing, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(paths_inside_resolve, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(paths_cannot_escape, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(paths_with_nul_are_rejected, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		open_reads_inside_and_refuses_outside, setup, teardown),
	    cmocka_unit_test_setup_teardown(unlink_rename_mkdir_stay_inside,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(readlink_and_filestat, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(preopen_is_fd_3_with_its_guest_name,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(write_checks_every_iovec, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(renumber_moves_an_fd, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(readdir_lists_the_directory, setup,
					    teardown),
	    cmocka_unit_test(closed_stdio_keeps_preopens_at_3),
	    cmocka_unit_test_setup_teardown(clocks_random_and_poll, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(table_has_what_wasi_libc_needs,
					    setup, teardown),
	    cmocka_unit_test(one_compile_many_runs_with_threads),
	    cmocka_unit_test(thread_exit_ends_only_its_thread),
	    cmocka_unit_test(thread_exit_on_main_traps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
