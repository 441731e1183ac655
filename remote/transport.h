/*
 * transport.h - run a heisen command on a remote node (docs/nodes.md):
 * the system's ssh, or the command in $HEISEN_SSH (split on spaces, like
 * rsync's -e), with the node's user, host and port as separate words and
 * the remote command after them.
 *
 * ssh joins the remote words with spaces and hands them to the node's
 * login shell, so each word is single-quoted here (a ' becomes '\''):
 * whatever a word holds reaches the remote heisen as one argument, never
 * as shell syntax. The local side never goes through a shell: the
 * transport starts with posix_spawnp. Node URLs are checked by
 * db_node_url_parse, so no user, host or port word can be read by ssh as
 * an option.
 *
 * A node URL without a host (slurm:///dir, a cluster whose commands are
 * on this machine) runs the words here instead: they are the argv
 * itself, unquoted, with "heisen" meaning this very binary.
 *
 * Ownership: rmt_result owns its output buffer (rmt_result_free).
 * Errors: rmt_run returns WASM_NOMEM or WASM_IO (the transport could not
 * be started: the message names it) with err filled; how the transport
 * itself ended (its status, a timeout, what it wrote to stderr) is in the
 * result, and rmt_failed turns it into a sentence.
 */
#ifndef HEISEN_REMOTE_TRANSPORT_H
#define HEISEN_REMOTE_TRANSPORT_H

#include "db/nodes.h"

#define RMT_ERR_KEEP 4096 /* bytes kept of the end of the transport's stderr   \
			   */

typedef struct rmt_call {
	const db_node_url *url;
	/* The remote command, "heisen" first; NULL-terminated. */
	const char *const *words;
	double timeout_s; /* the whole call; 0: none */
	int in_fd;	  /* the transport's stdin; -1: /dev/null */
	/* Standard output is kept up to max_out bytes (the rest is read and
	 * dropped: out_cut); 0: no limit. */
	size_t max_out;
	/* Called as output arrives, with the bytes so far (NULL: none). */
	void (*progress)(void *ctx, uint64_t bytes);
	void *ctx;
} rmt_call;

typedef struct rmt_result {
	uint8_t *out; /* standard output, NUL-terminated; owned */
	size_t nout;
	bool out_cut;
	char err[RMT_ERR_KEEP + 1]; /* the tail of standard error */
	bool timed_out;		    /* killed at the timeout */
	int status;		    /* waitpid's */
	char transport[256];	    /* the transport's first word */
} rmt_result;

/* Run c's command on its node; *r is filled whenever WASM_OK is
 * returned, also when the transport failed. */
wasm_status rmt_run(const rmt_call *c, rmt_result *r, wasm_err *err);
void rmt_result_free(rmt_result *r);

/* Whether the transport failed (a timeout, a signal, a non-zero exit),
 * and why, into why[cap]: "ssh exited with 255: ssh: connect to host
 * 127.0.0.1 port 9: Connection refused". */
bool rmt_failed(const rmt_result *r, char *why, size_t cap);

/* The last non-empty line of s, control bytes made '?', into buf. */
void rmt_last_line(const char *s, char *buf, size_t cap);

#endif
