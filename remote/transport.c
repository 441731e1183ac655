/*
 * transport.c - the ssh transport of remote nodes (remote/transport.h).
 */
#include "remote/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RMT_ARGV_MAX 64 /* transport words, ssh's options, the remote words */

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append n bytes to the stderr tail, dropping the oldest when full. */
static void err_keep(rmt_result *r, size_t *nerr, const char *b, size_t n)
{
	if (n >= RMT_ERR_KEEP) {
		b += n - RMT_ERR_KEEP;
		n = RMT_ERR_KEEP;
	}
	if (*nerr + n > RMT_ERR_KEEP) {
		size_t drop = *nerr + n - RMT_ERR_KEEP;
		memmove(r->err, r->err + drop, *nerr - drop);
		*nerr -= drop;
	}
	memcpy(r->err + *nerr, b, n);
	*nerr += n;
	r->err[*nerr] = 0;
}

/* Keep n more bytes of output; false when out of memory. */
static bool out_keep(const rmt_call *c, rmt_result *r, size_t *cap,
		     const char *b, size_t n)
{
	if (c->max_out && r->nout + n > c->max_out) {
		r->out_cut = true;
		n = c->max_out - r->nout;
	}
	if (r->nout + n + 1 > *cap) {
		size_t want = *cap ? *cap : 65536;
		uint8_t *p;
		while (want < r->nout + n + 1)
			want *= 2;
		if (!(p = wasm_realloc(r->out, want)))
			return false;
		r->out = p;
		*cap = want;
	}
	memcpy(r->out + r->nout, b, n);
	r->nout += n;
	r->out[r->nout] = 0;
	return true;
}

/* Read both pipes until they close or the deadline passes; false when out
 * of memory. */
static bool drain(const rmt_call *c, int fo, int fe, rmt_result *r)
{
	struct pollfd p[2] = {{fo, POLLIN, 0}, {fe, POLLIN, 0}};
	double deadline = c->timeout_s > 0 ? mono_now() + c->timeout_s : 0;
	size_t cap = 0, nerr = 0;
	char buf[65536];

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int wait = -1;
		if (deadline) {
			double left = deadline - mono_now();
			if (left <= 0) {
				r->timed_out = true;
				return true;
			}
			wait = (int)(left * 1000) + 1;
		}
		if (poll(p, 2, wait) < 0) {
			if (errno == EINTR)
				continue;
			return true;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (i == 1) {
				err_keep(r, &nerr, buf, (size_t)n);
				continue;
			}
			if (!out_keep(c, r, &cap, buf, (size_t)n))
				return false;
			if (c->progress)
				c->progress(c->ctx, r->nout);
		}
	}
	return true;
}

/* 'w' with every ' as '\'' into a new string (NULL: out of memory). */
static char *quote(const char *w)
{
	size_t n = 2;
	char *q, *o;

	for (const char *p = w; *p; p++)
		n += *p == '\'' ? 4 : 1;
	if (!(o = q = wasm_malloc(n + 1)))
		return NULL;
	*o++ = '\'';
	for (const char *p = w; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = 0;
	return q;
}

/* Start argv[0] (found on PATH) with c's stdin, read its output and
 * error until they close or the deadline passes, and reap it. hint ends
 * the message when it cannot be started. */
static wasm_status spawn_drain(const rmt_call *c, const char **argv,
			       const char *hint, rmt_result *r, wasm_err *err)
{
	posix_spawn_file_actions_t fa;
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc;
	wasm_status st = WASM_OK;
	pid_t pid;

	snprintf(r->transport, sizeof r->transport, "%s", argv[0]);
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot make a pipe: %s", strerror(errno));
		goto done;
	}
	posix_spawn_file_actions_init(&fa);
	if (c->in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, c->in_fd, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
						 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
			  environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (rc) {
		st = wasm_err_set(err, WASM_IO, WASM_NO_OFFSET,
				  "cannot run %s: %s (%s)", argv[0],
				  strerror(rc), hint);
		goto done;
	}
	if (!drain(c, po[0], pe[0], r)) {
		r->timed_out = true;
		st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				  "out of memory for the node's answer");
	}
	/* Only the transport this call started is stopped. */
	if (r->timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
		;
done:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return st;
}

/* A node without a host (slurm:///dir) runs its commands on this
 * machine: the words are the argv, with no ssh and no quoting; "heisen"
 * is this binary. */
static wasm_status run_local(const rmt_call *c, const char **argv,
			     rmt_result *r, wasm_err *err)
{
	wasm_status st;

	if (!strcmp(argv[0], "heisen"))
		argv[0] = "/proc/self/exe";
	st = spawn_drain(c, argv, "is it installed and on PATH?", r, err);
	if (!strcmp(argv[0], "/proc/self/exe"))
		snprintf(r->transport, sizeof r->transport, "heisen");
	if (st)
		rmt_result_free(r);
	return st;
}

wasm_status rmt_run(const rmt_call *c, rmt_result *r, wasm_err *err)
{
	const char *env = getenv("HEISEN_SSH");
	char *words;
	char *argv[RMT_ARGV_MAX + 1], *quoted[RMT_ARGV_MAX];
	char dest[2 * DB_NODE_URL_MAX + 2], port[16];
	int n = 0, nq = 0;
	wasm_status st = WASM_OK;

	memset(r, 0, sizeof *r);
	if (!*c->url->host) {
		const char *lv[RMT_ARGV_MAX + 1];
		for (n = 0; c->words[n]; n++) {
			if (n == RMT_ARGV_MAX)
				return wasm_err_set(err, WASM_INVALID,
						    WASM_NO_OFFSET,
						    "the command has too many "
						    "words");
			lv[n] = c->words[n];
		}
		lv[n] = NULL;
		return run_local(c, lv, r, err);
	}
	if (!(words = wasm_strdup(env && *env ? env : "ssh")))
		return wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
				    "out of memory");
	for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) {
		if (n == RMT_ARGV_MAX - 8) {
			st =
			    wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					 "$HEISEN_SSH has too many words; give "
					 "it a wrapper script instead");
			goto done;
		}
		argv[n++] = w;
	}
	if (c->url->port) {
		snprintf(port, sizeof port, "%u", c->url->port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	snprintf(dest, sizeof dest, "%s%s%s", c->url->user,
		 *c->url->user ? "@" : "", c->url->host);
	argv[n++] = dest;
	for (const char *const *w = c->words; *w; w++) {
		if (n == RMT_ARGV_MAX) {
			st = wasm_err_set(err, WASM_INVALID, WASM_NO_OFFSET,
					  "the remote command has too many "
					  "words");
			goto done;
		}
		if (!(quoted[nq] = quote(*w))) {
			st = wasm_err_set(err, WASM_NOMEM, WASM_NO_OFFSET,
					  "out of memory");
			goto done;
		}
		argv[n++] = quoted[nq++];
	}
	argv[n] = NULL;
	st = spawn_drain(c, (const char **)argv,
			 "is it installed? $HEISEN_SSH names another transport",
			 r, err);
done:
	for (int i = 0; i < nq; i++)
		wasm_free(quoted[i]);
	wasm_free(words);
	if (st)
		rmt_result_free(r);
	return st;
}

void rmt_result_free(rmt_result *r)
{
	wasm_free(r->out);
	r->out = NULL;
	r->nout = 0;
}

void rmt_last_line(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s), end, start, k = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	end = n;
	while (n && s[n - 1] != '\n')
		n--;
	start = n;
	for (size_t i = start; i < end && k + 1 < cap; i++)
		buf[k++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
	buf[k] = 0;
}

bool rmt_failed(const rmt_result *r, char *why, size_t cap)
{
	char line[400];

	rmt_last_line(r->err, line, sizeof line);
	if (r->timed_out)
		snprintf(why, cap,
			 "no answer in time (--timeout TIME waits "
			 "longer)%s%s",
			 *line ? ": " : "", line);
	else if (!WIFEXITED(r->status))
		snprintf(why, cap, "%s was killed by signal %d", r->transport,
			 WTERMSIG(r->status));
	else if (WEXITSTATUS(r->status) != 0)
		snprintf(why, cap, "%s exited with %d%s%s", r->transport,
			 WEXITSTATUS(r->status), *line ? ": " : "", line);
	else
		return false;
	return true;
}
