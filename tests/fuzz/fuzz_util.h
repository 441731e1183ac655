/*
 * fuzz_util.h - what the reader targets of tests/fuzz/ share: the input
 * as a file for readers that take a path, a private folder for what a
 * target writes back, and the way a broken property stops the run.
 *
 * The input file is a memfd reached through /proc/self/fd: no disk I/O
 * per input, and it is a regular file as wasm_read_file wants. The
 * folder is made once per process under $TMPDIR (or /tmp) and removed at
 * exit. A target that finds a property broken calls fuzz_fail, which
 * prints what broke and traps, so that libFuzzer keeps the input as a
 * crash.
 */
#ifndef HEISEN_TESTS_FUZZ_UTIL_H
#define HEISEN_TESTS_FUZZ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/wasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((format(printf, 1, 2), noreturn)) static inline void
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	__builtin_trap();
}

/* data[0..size) as the content of a file; returns its path (valid until
 * the next call). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			fuzz_fail("memfd_create failed");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		fuzz_fail("cannot write the input file");
	return path;
}

static char fuzz_dir_path[4096];

static inline void fuzz_dir_remove(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir_path);
}

/* A path named `name` in this process's own folder. */
static inline const char *fuzz_out_path(const char *name)
{
	static char path[4200];

	if (!fuzz_dir_path[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof fuzz_dir_path,
			 "%s/heisen-fuzz-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			fuzz_fail("cannot make a folder under %s",
				  t && *t ? t : "/tmp");
		atexit(fuzz_dir_remove);
	}
	snprintf(path, sizeof path, "%s/%s", fuzz_dir_path, name);
	return path;
}

/* A refusal must carry the status it returned and a reason. */
static inline void fuzz_check_err(const wasm_err *e, wasm_status st)
{
	if (e->status != st)
		fuzz_fail("error status %s differs from the returned %s",
			  wasm_status_name(e->status), wasm_status_name(st));
	if (!e->msg[0])
		fuzz_fail("%s without a reason", wasm_status_name(st));
}

#endif
