/*
 * cmd_cc.c - `heisen cc`: compile and link C programs for heisen, the way
 * mpicc does for MPI. It runs clang for wasm32-wasi with wasi-threads and
 * heisen's guest library (demos/guest/: pthreads, a locked malloc and
 * stdio), passing the user's arguments through.
 *
 * The command line it builds (--print-cmd shows it):
 *
 *   clang --target=wasm32-wasi --sysroot=SYSROOT -pthread
 *         -ftls-model=local-exec -mllvm -wasm-enable-sjlj
 *         -nostdlibinc -isystem GUEST_INC
 *         -idirafter SYSROOT/include/wasm32-wasi [-fcolor-diagnostics]
 *         [-nostartfiles GUEST_LIB/crt1.o GUEST_LIB/thread_start.o
 *          -LGUEST_LIB -lheisen-guest -lwasi-emulated-signal
 *          -Wl,--import-memory
 *          -Wl,--max-memory=N -Wl,-z,stack-size=8388608
 *          -Wl,--export=wasi_thread_start
 *          -Wl,--no-check-features -Wl,--wrap=malloc ...]   (when linking)
 *         USER ARGS... (less -latomic)
 *
 * Why each piece:
 *   -pthread         atomics + bulk-memory features, _REENTRANT, and
 *                    --shared-memory at link time.
 *   local-exec TLS   the only TLS model clang 14 supports for wasm32-wasi.
 *   -wasm-enable-sjlj  lowers setjmp and longjmp onto WebAssembly
 *                    exception handling, which heisen's engine runs; the
 *                    guest library has the helpers it calls (setjmp.c)
 *                    and <setjmp.h>. A function that calls neither
 *                    compiles as before.
 *   -nostdlibinc ... -idirafter  clang's own search list for wasm32-wasi
 *                    (its resource headers, then wasi-libc's) without the
 *                    host's /usr/local/include and /usr/include, which
 *                    follow wasi-libc's: there a header WASI lacks found
 *                    glibc's or Linux's, which failed on their own
 *                    missing parts (bits/setjmp.h, asm/types.h).
 *   -fcolor-diagnostics  when heisen's stderr is a terminal: clang's
 *                    stderr is a pipe (below), and it would drop colour.
 *   -lwasi-emulated-signal  wasi-libc's strsignal and psignal; the guest
 *                    library's signal.c defines the rest of that library
 *                    (signal, raise, SIG_IGN), so its own is never used.
 *   -latomic         dropped: every atomic a wasm32 program can make is
 *                    an instruction, and there is no libatomic to link.
 *   crt1.o           replaces crt1-command.o: runs constructors once, on
 *                    the main thread, which stops wasm-ld from wrapping
 *                    wasi_thread_start in exit-time cleanup.
 *   --import-memory  the wasi-threads convention (memory env.memory).
 *   -z stack-size    the main thread's stack, 8 MiB as on Linux
 *                    (wasm-ld's default, 64 KiB, is small enough for
 *                    ordinary programs to overflow into their data);
 *                    other threads get 2 MiB (demos/guest/pthread.c).
 *   --no-check-features  Debian's wasi-libc was built without atomics.
 *   --wrap=...       puts the guest library's locks around wasi-libc's
 *                    malloc, stdio output and exit-time flush, random
 *                    numbers, environment, strerror and time functions,
 *                    which have none (demos/guest/libc.c), and
 *                    replaces its sleeps and sched_yield by safe points
 *                    for signals and cancellation.
 * Our link flags precede the user's so that a user -Wl,--max-memory=N
 * (the last one wins in wasm-ld) overrides the default.
 *
 * SIMD: -msimd128 goes to clang like every other word: heisen's engine
 * runs 128-bit SIMD, and the guest library and wasi-libc, built without
 * it, link with SIMD objects because of --no-check-features. Relaxed SIMD
 * (-mrelaxed-simd) is refused, exit 2: heisen's decoder does not know its
 * instructions, and a module using them would be refused later, far from
 * the flag that let them in.
 *
 * Where the guest library is looked for, first found wins:
 *   1. next to the executable, installed:  EXE/../lib/heisen/guest and
 *      EXE/../include/heisen/guest        (make install)
 *   2. next to the executable, build tree: EXE/../demos/build/guest and
 *      EXE/../demos/guest/include          (build/heisen after make demos)
 *   3. the install prefix baked in at build time (HEISEN_GUEST_LIBDIR,
 *      HEISEN_GUEST_INCDIR), for a binary copied elsewhere.
 * Environment: HEISEN_CLANG names the compiler (default: the first of
 * clang, clang-14 on PATH); HEISEN_WASI_SYSROOT the wasi-libc sysroot
 * (default /usr, Debian's layout: /usr/lib/wasm32-wasi,
 * /usr/include/wasm32-wasi).
 *
 * Missing headers: clang's stderr passes through a filter that turns its
 * "fatal error: 'H' file not found" for an #include <H> into one line
 * naming H, why wasm32-wasi has no such header when that is known
 * (missing_why) and docs/porting.md, and drops the include chain and
 * source excerpt around it. A missing "H" (the program's own) is left
 * as clang wrote it.
 *
 * Exit status: clang's 0 on success; 2 when clang fails (the input is
 * bad: compile or link errors, which clang has printed) or for
 * -mrelaxed-simd; 3 when clang cannot be run at all or the toolchain or
 * guest library is missing.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef HEISEN_GUEST_LIBDIR
#define HEISEN_GUEST_LIBDIR "/usr/local/lib/heisen/guest"
#endif
#ifndef HEISEN_GUEST_INCDIR
#define HEISEN_GUEST_INCDIR "/usr/local/include/heisen/guest"
#endif

/* The default cap on the program's memory: generous for real programs,
 * cheap because the engine only reserves address space up front. */
#define CC_MAX_MEMORY "268435456"

/* The main thread's stack: Linux's 8 MiB (wasm-ld's own default is
 * 64 KiB, which ordinary programs overflow into their data). */
#define CC_MAIN_STACK "8388608"

#define DEB_TOOLS "clang lld wasi-libc libclang-rt-14-dev-wasm32"

/* wasi-libc functions that get the guest library's lock (malloc.c,
 * stdio.c) or become its safe points for signals and cancellation
 * (signal.c). One list: the --wrap flags come from it. */
static const char *const wrapped[] = {
    "malloc",
    "free",
    "calloc",
    "realloc",
    "posix_memalign",
    "aligned_alloc",
    "malloc_usable_size",
    "vfprintf",
    "fwrite",
    "fputs",
    "puts",
    "fputc",
    "putc",
    "putchar",
    "fflush",
    "__stdio_exit",
    "random",
    "srandom",
    "initstate",
    "setstate",
    "rand",
    "srand",
    "getenv",
    "setenv",
    "unsetenv",
    "putenv",
    "clearenv",
    "strerror",
    "strerror_r",
    "localtime",
    "localtime_r",
    "gmtime",
    "gmtime_r",
    "mktime",
    "timegm",
    "asctime",
    "strftime",
    "sleep",
    "usleep",
    "nanosleep",
    "sched_yield",
};
#define NWRAPPED (sizeof wrapped / sizeof wrapped[0])

/* Files a guest library directory pair must hold. */
static const char *const guest_lib_files[] = {
    "libheisen-guest.a",
    "crt1.o",
    "thread_start.o",
};

/* Words of the clang command line. They point into argv, string
 * literals or the strings array, which owns what it holds. */
#define CC_MAX_WORDS ((int)(TUI_MAX_OPERANDS + NWRAPPED + 32))
typedef struct cc_line {
	const char *w[CC_MAX_WORDS + 1];
	int n;
	char *owned[NWRAPPED + 16];
	int nowned;
} cc_line;

static void add(cc_line *l, const char *w)
{
	if (l->n < CC_MAX_WORDS)
		l->w[l->n++] = w;
}

/* Add a word built with printf; false when out of memory. */
__attribute__((format(printf, 2, 3))) static bool addf(cc_line *l,
						       const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	if (l->nowned == (int)(sizeof l->owned / sizeof l->owned[0]))
		return false;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return false;
	l->owned[l->nowned++] = s;
	add(l, s);
	return true;
}

static void cc_line_fini(cc_line *l)
{
	for (int i = 0; i < l->nowned; i++)
		free(l->owned[i]);
}

/* buf = a/b; false when it does not fit. */
static bool join(char *buf, size_t cap, const char *a, const char *b)
{
	int n = snprintf(buf, cap, "%s/%s", a, b);
	return n >= 0 && (size_t)n < cap;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The full path of an executable named `name` on PATH (or name itself
 * when it contains a slash), in buf; false when there is none. */
static bool find_exe(const char *name, char *buf, size_t cap)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(buf, cap, "%s", name);
		return access(buf, X_OK) == 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len &&
		    (size_t)snprintf(buf, cap, "%.*s/%s", (int)len, path,
				     name) < cap &&
		    access(buf, X_OK) == 0 && is_file(buf))
			return true;
		path += len + (colon != NULL);
	}
	return false;
}

/* Guest library and header directories that hold the needed files. */
static bool guest_dirs_ok(const char *lib, const char *inc)
{
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof guest_lib_files / sizeof *guest_lib_files;
	     i++) {
		if (!join(p, sizeof p, lib, guest_lib_files[i]) || !is_file(p))
			return false;
	}
	return join(p, sizeof p, inc, "pthread.h") && is_file(p);
}

/* Replace path by its canonical form ("build/../demos" reads badly in
 * --print-cmd); false if that does not fit. */
static bool canonical(char *path, size_t cap)
{
	char real[PATH_MAX];

	if (!realpath(path, real))
		return true;
	return (size_t)snprintf(path, cap, "%s", real) < cap;
}

/* Find the guest library (see the top of the file). On failure, lists
 * where it looked on err. */
static bool find_guest(char *lib, char *inc, size_t cap, FILE *err)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	/* {lib, inc} relative to the executable's directory */
	static const char *const rel[][2] = {
	    {"../lib/heisen/guest", "../include/heisen/guest"},
	    {"../demos/build/guest", "../demos/guest/include"},
	};

	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			if (join(lib, cap, exe, rel[i][0]) &&
			    join(inc, cap, exe, rel[i][1]) &&
			    guest_dirs_ok(lib, inc))
				return canonical(lib, cap) &&
				       canonical(inc, cap);
		}
	}
	snprintf(lib, cap, "%s", HEISEN_GUEST_LIBDIR);
	snprintf(inc, cap, "%s", HEISEN_GUEST_INCDIR);
	if (guest_dirs_ok(lib, inc))
		return true;
	fprintf(err, "heisen cc: guest library (libheisen-guest.a, crt1.o, "
		     "thread_start.o, pthread.h) not found in:\n");
	if (n > 0)
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
			fprintf(err, "  %s/%s\n", exe, rel[i][0]);
	fprintf(err, "  %s\n", HEISEN_GUEST_LIBDIR);
	fprintf(err, "build it with 'make demos' in heisen's source tree, "
		     "or install heisen with 'make install'\n");
	return false;
}

/* Does this clang command line stop before linking? */
static bool compile_only(const tui_args *a)
{
	static const char *const stops[] = {"-c", "-S", "-E", "-fsyntax-only",
					    "-M", "-MM"};
	for (int i = 0; i < a->noperands; i++)
		for (size_t k = 0; k < sizeof stops / sizeof *stops; k++)
			if (!strcmp(a->operands[i], stops[k]))
				return true;
	return false;
}

/* Print a word so that a shell reads it back as the same word. */
static void print_word(FILE *f, const char *w)
{
	if (*w && !w[strcspn(w, " \t\n'\"\\$`*?[]{}()<>|&;#~!")]) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

/* Check what clang needs beyond itself, naming the Debian package of
 * whatever is missing. */
static bool toolchain_ok(const char *clang, const char *sysroot, bool link,
			 FILE *err)
{
	char p[PATH_MAX], dir[PATH_MAX], *slash;

	if (!join(p, sizeof p, sysroot, "include/wasm32-wasi/stdio.h") ||
	    !is_file(p)) {
		fprintf(
		    err,
		    "heisen cc: wasi-libc not found (no %s); install the "
		    "Debian package wasi-libc, or set HEISEN_WASI_SYSROOT\n",
		    p);
		return false;
	}
	if (!link)
		return true;
	if (!join(p, sizeof p, sysroot, "lib/wasm32-wasi/libc.a") ||
	    !is_file(p)) {
		fprintf(err,
			"heisen cc: wasi-libc not found (no %s); install the "
			"Debian package wasi-libc\n",
			p);
		return false;
	}
	/* clang looks for wasm-ld next to itself, then on PATH. */
	if (!realpath(clang, dir))
		snprintf(dir, sizeof dir, "%s", clang);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if ((!join(p, sizeof p, dir, "wasm-ld") || access(p, X_OK)) &&
	    !find_exe("wasm-ld", p, sizeof p) &&
	    !find_exe("wasm-ld-14", p, sizeof p)) {
		fprintf(err, "heisen cc: wasm-ld not found; install the Debian "
			     "package lld\n");
		return false;
	}
	return true;
}

/* Why wasm32-wasi has no header H (as in #include <H>), or NULL. */
static const char *missing_why(const char *h)
{
	static const char *const known[][2] = {
	    {"ucontext.h", "WASI has no user contexts"},
	    {"sys/wait.h", "WASI has no child processes"},
	    {"spawn.h", "WASI has no child processes"},
	    {"sys/ipc.h", "WASI has no System V IPC"},
	    {"sys/shm.h", "WASI has no shared memory between programs"},
	    {"sys/sem.h", "WASI has no System V IPC; <semaphore.h> has "
			  "POSIX semaphores"},
	    {"sys/msg.h", "WASI has no System V IPC"},
	    {"pwd.h", "WASI has no users or groups"},
	    {"grp.h", "WASI has no users or groups"},
	    {"termios.h", "WASI has no terminals"},
	    {"dlfcn.h", "WASI has no dynamic loading"},
	    {"sys/epoll.h", "a Linux interface; WASI has poll()"},
	    {"sys/prctl.h", "a Linux interface"},
	};
	static const char *const prefix[][2] = {
	    {"asm/", "a Linux kernel header; a WASI program does not run on "
		     "Linux"},
	    {"linux/", "a Linux kernel header; a WASI program does not run "
		       "on Linux"},
	    {"bits/", "a glibc internal header; wasi-libc is not glibc"},
	    {"gnu/", "a glibc internal header; wasi-libc is not glibc"},
	};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(h, known[i][0]))
			return known[i][1];
	for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
		if (!strncmp(h, prefix[i][0], strlen(prefix[i][0])))
			return prefix[i][1];
	return NULL;
}

/* line without its terminal escape sequences (clang's colours), in
 * *buf. */
static const char *plain_text(const char *line, char **buf, size_t *cap)
{
	size_t n = strlen(line) + 1, o = 0;

	if (n > *cap) {
		char *b = realloc(*buf, n);
		if (!b)
			return line;
		*buf = b;
		*cap = n;
	}
	while (*line) {
		if (line[0] == '\033' && line[1] == '[') {
			line += 2;
			while (*line && !(*line >= '@' && *line <= '~'))
				line++;
			line += *line != '\0';
		} else {
			(*buf)[o++] = *line++;
		}
	}
	(*buf)[o] = '\0';
	return *buf;
}

/* Whether plain is clang's "LOC: fatal error: 'H' file not found": then
 * LOC and H, as copies in loc and h. */
static bool not_found(const char *plain, char *loc, char *h, size_t cap)
{
	static const char tag[] = ": fatal error: '";
	static const char tail[] = "' file not found";
	const char *t = strstr(plain, tag);
	size_t n = strcspn(plain, "\n"), tl = sizeof tail - 1;

	if (!t || n < tl || strncmp(plain + n - tl, tail, tl))
		return false;
	t += sizeof tag - 1;
	return t <= plain + n - tl &&
	       snprintf(loc, cap, "%.*s", (int)(t - (sizeof tag - 1) - plain),
			plain) < (int)cap &&
	       snprintf(h, cap, "%.*s", (int)(plain + n - tl - t), t) <
		   (int)cap;
}

/* Whether the #include at loc (FILE:LINE:COL) names h in angle brackets
 * rather than quotes; unknown (an unreadable FILE) counts as angle. */
static bool angle_include(const char *loc, const char *h)
{
	char path[PATH_MAX], quoted[PATH_MAX + 3], *c, *l = NULL;
	size_t cap = 0;
	long want, n = 0;
	bool angle = true;
	FILE *f;

	snprintf(path, sizeof path, "%s", loc);
	if (!(c = strrchr(path, ':')))
		return true;
	*c = '\0';
	if (!(c = strrchr(path, ':')))
		return true;
	*c = '\0';
	want = atol(c + 1);
	snprintf(quoted, sizeof quoted, "\"%s\"", h);
	if (!(f = fopen(path, "r")))
		return true;
	while (getline(&l, &cap, f) > 0)
		if (++n == want) {
			angle = !strstr(l, quoted);
			break;
		}
	free(l);
	fclose(f);
	return angle;
}

/* Copy clang's stderr (fd) to err, a missing system header's diagnostic
 * as one line of heisen's (see the top of the file): the "In file
 * included from" lines before it are held until the line they lead to
 * is known, and the source excerpt and "1 error generated." after it
 * dropped. */
static void filter_diagnostics(int fd, FILE *err)
{
	FILE *in = fdopen(fd, "r");
	char *line = NULL, *held = NULL, *pbuf = NULL;
	char loc[PATH_MAX], h[PATH_MAX];
	size_t cap = 0, pcap = 0, nheld = 0;
	bool skipping = false;
	ssize_t n;

	if (!in) {
		close(fd);
		return;
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		const char *plain = plain_text(line, &pbuf, &pcap);
		char *grown;

		if (skipping) {
			if (!strstr(plain, " generated."))
				continue;
			skipping = false;
			if (!strncmp(plain, "1 error generated.", 18))
				continue;
		} else if (!strncmp(plain, "In file included from ", 22) ||
			   !strncmp(plain, "                 from ", 22)) {
			if ((grown = realloc(held, nheld + (size_t)n))) {
				held = grown;
				memcpy(held + nheld, line, (size_t)n);
				nheld += (size_t)n;
				continue;
			}
		} else if (not_found(plain, loc, h, sizeof loc) &&
			   angle_include(loc, h)) {
			const char *why = missing_why(h);
			fprintf(err,
				"heisen cc: %s: <%s> is not available for "
				"wasm32-wasi (%s); see docs/porting.md\n",
				loc, h,
				why ? why : "wasi-libc has no such header");
			nheld = 0;
			skipping = true;
			continue;
		}
		if (nheld)
			fwrite(held, 1, nheld, err);
		nheld = 0;
		fwrite(line, 1, (size_t)n, err);
	}
	if (nheld)
		fwrite(held, 1, nheld, err);
	free(line);
	free(held);
	free(pbuf);
	fclose(in);
}

/* Run argv, its stderr through filter_diagnostics to err; returns its
 * wait status in *status, or false with errno. */
static bool run_argv(const char *const *argv, int *status, FILE *err)
{
	posix_spawn_file_actions_t fa;
	int p[2], e;
	pid_t pid;

	if (pipe(p))
		return false;
	if ((e = posix_spawn_file_actions_init(&fa)) ||
	    (e = posix_spawn_file_actions_adddup2(&fa, p[1], 2)) ||
	    (e = posix_spawn_file_actions_addclose(&fa, p[0])) ||
	    (e = posix_spawn_file_actions_addclose(&fa, p[1])) ||
	    (e = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv,
			     environ))) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		errno = e;
		return false;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	filter_diagnostics(p[0], err);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return false;
	return true;
}

/* Whether the user chose clang's colours (then heisen leaves them). */
static bool colour_chosen(const tui_args *a)
{
	for (int i = 0; i < a->noperands; i++)
		if (strstr(a->operands[i], "color-diagnostics") ||
		    !strncmp(a->operands[i], "-fdiagnostics-color", 19))
			return true;
	return false;
}

/* The compiler-rt builtins clang will link, when they are missing: clang
 * then fails with a message that does not say which package to install. */
static bool builtins_ok(const char *clang, const char *sysroot, FILE *err)
{
	char cmd[PATH_MAX * 2 + 128], path[PATH_MAX];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd,
		 "'%s' --target=wasm32-wasi --sysroot='%s' "
		 "-print-libgcc-file-name 2>/dev/null",
		 clang, sysroot);
	if (strchr(clang, '\'') || strchr(sysroot, '\'') ||
	    !(p = popen(cmd, "r")))
		return true; /* cannot tell: let clang report it */
	n = fread(path, 1, sizeof path - 1, p);
	pclose(p);
	path[n] = '\0';
	path[strcspn(path, "\n")] = '\0';
	if (!*path || is_file(path))
		return true;
	fprintf(err,
		"heisen cc: clang's wasm32 runtime library %s is missing; "
		"install the Debian package libclang-rt-14-dev-wasm32 (for "
		"clang 14)\n",
		path);
	return false;
}

int tui_cmd_cc(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	char clang[PATH_MAX], lib[PATH_MAX], inc[PATH_MAX];
	const char *env_clang = getenv("HEISEN_CLANG");
	const char *sysroot = getenv("HEISEN_WASI_SYSROOT");
	bool print = false, link, have_input = false;
	cc_line l = {.n = 0};
	int rc = TUI_EXIT_INTERNAL, status;

	if (!sysroot || !*sysroot)
		sysroot = "/usr";
	for (int i = 0; i < a->noperands; i++) {
		if (!strcmp(a->operands[i], "--print-cmd")) {
			print = true;
		} else if (!strcmp(a->operands[i], "-mrelaxed-simd")) {
			fprintf(err,
				"heisen cc: -mrelaxed-simd: heisen does not "
				"run relaxed SIMD; use -msimd128\n");
			return TUI_EXIT_USAGE;
		} else {
			have_input = true;
		}
	}
	if (!have_input) {
		fprintf(err, "heisen cc: no input; usage: heisen cc %s\n",
			cmd->usage);
		return TUI_EXIT_USAGE;
	}
	link = !compile_only(a);
	if (env_clang && *env_clang) {
		if (!find_exe(env_clang, clang, sizeof clang)) {
			fprintf(err,
				"heisen cc: HEISEN_CLANG=%s is not an "
				"executable\n",
				env_clang);
			return TUI_EXIT_INTERNAL;
		}
	} else if (!find_exe("clang", clang, sizeof clang) &&
		   !find_exe("clang-14", clang, sizeof clang)) {
		if (!print) {
			fprintf(err,
				"heisen cc: clang not found on PATH; "
				"install the Debian packages " DEB_TOOLS "\n");
			return TUI_EXIT_INTERNAL;
		}
		snprintf(clang, sizeof clang, "clang");
	}
	if (!find_guest(lib, inc, sizeof lib, err))
		return TUI_EXIT_INTERNAL;

	add(&l, clang);
	add(&l, "--target=wasm32-wasi");
	if (!addf(&l, "--sysroot=%s", sysroot))
		goto nomem;
	add(&l, "-pthread");
	add(&l, "-ftls-model=local-exec");
	add(&l, "-mllvm");
	add(&l, "-wasm-enable-sjlj");
	add(&l, "-nostdlibinc");
	add(&l, "-isystem");
	add(&l, inc);
	add(&l, "-idirafter");
	if (!addf(&l, "%s/include/wasm32-wasi", sysroot))
		goto nomem;
	if (isatty(fileno(err)) && !colour_chosen(a))
		add(&l, "-fcolor-diagnostics");
	if (link) {
		add(&l, "-nostartfiles");
		if (!addf(&l, "%s/crt1.o", lib) ||
		    !addf(&l, "%s/thread_start.o", lib) ||
		    !addf(&l, "-L%s", lib))
			goto nomem;
		add(&l, "-lheisen-guest");
		add(&l, "-lwasi-emulated-signal");
		add(&l, "-Wl,--import-memory");
		add(&l, "-Wl,--max-memory=" CC_MAX_MEMORY);
		add(&l, "-Wl,-z,stack-size=" CC_MAIN_STACK);
		add(&l, "-Wl,--export=wasi_thread_start");
		add(&l, "-Wl,--no-check-features");
		for (size_t i = 0; i < NWRAPPED; i++)
			if (!addf(&l, "-Wl,--wrap=%s", wrapped[i]))
				goto nomem;
	}
	if (l.n + a->noperands > CC_MAX_WORDS) {
		fprintf(err, "heisen cc: too many arguments\n");
		rc = TUI_EXIT_USAGE;
		goto done;
	}
	for (int i = 0; i < a->noperands; i++) {
		const char *w = a->operands[i];
		if (!strcmp(w, "-l") && i + 1 < a->noperands &&
		    !strcmp(a->operands[i + 1], "atomic"))
			i++;
		else if (strcmp(w, "--print-cmd") && strcmp(w, "-latomic"))
			add(&l, w);
	}
	l.w[l.n] = NULL;

	if (print) {
		for (int i = 0; i < l.n; i++) {
			if (i)
				fputc(' ', out);
			print_word(out, l.w[i]);
		}
		fputc('\n', out);
		rc = TUI_EXIT_OK;
		goto done;
	}
	if (!toolchain_ok(clang, sysroot, link, err) ||
	    (link && !builtins_ok(clang, sysroot, err)))
		goto done;
	fflush(out);
	fflush(err);
	if (!run_argv(l.w, &status, err)) {
		fprintf(err, "heisen cc: cannot run %s: %s\n", clang,
			strerror(errno));
		goto done;
	}
	if (WIFEXITED(status))
		rc = WEXITSTATUS(status) ? TUI_EXIT_USAGE : TUI_EXIT_OK;
	else
		fprintf(err, "heisen cc: %s killed by signal %d\n", clang,
			WTERMSIG(status));
	goto done;
nomem:
	fprintf(err, "heisen cc: out of memory\n");
done:
	cc_line_fini(&l);
	return rc;
}
