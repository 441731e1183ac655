/*
 * slurm.c - the Slurm back end of remote nodes (remote/slurm.h).
 */
#include "remote/slurm.h"
#include "remote/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLURM_TIMEOUT_S 60.0
#define SLURM_OUT_MAX	(4 * 1024 * 1024)

static const char *const state_names[RMT_TASK_NSTATES] = {
    "unknown", "pending",   "running", "completed",
    "failed",  "cancelled", "timeout"};

const char *rmt_task_state_name(rmt_task_state s)
{
	return s < RMT_TASK_NSTATES ? state_names[s] : "unknown";
}

bool rmt_task_active(rmt_task_state s)
{
	return s == RMT_TASK_PENDING || s == RMT_TASK_RUNNING;
}

/* ---- the batch script ---------------------------------------------------- */

/* w single-quoted for sh (a ' as '\''). */
static void put_quoted(wasm_buf *b, const char *w)
{
	wasm_buf_byte(b, '\'');
	for (; *w; w++) {
		if (*w == '\'')
			wasm_buf_put(b, "'\\''", 4);
		else
			wasm_buf_byte(b, (uint8_t)*w);
	}
	wasm_buf_byte(b, '\'');
}

static void put_str(wasm_buf *b, const char *s)
{
	wasm_buf_put(b, s, strlen(s));
}

/* The sweep of slice "$s" into DIR/task-$s.db, as one line. */
static void put_sweep(wasm_buf *b, const rmt_slurm_plan *plan, const char *n)
{
	put_str(b, "\theisen sweep ");
	put_quoted(b, plan->program);
	put_str(b, " --db ");
	put_quoted(b, plan->dir);
	put_str(b, "/task-\"$s\".db --plan-slice \"$s\"/");
	put_str(b, n);
	put_str(b, " --origin ");
	put_quoted(b, plan->origin);
	for (const char *const *w = plan->words; *w; w++) {
		wasm_buf_byte(b, ' ');
		put_quoted(b, *w);
	}
	put_str(b, " || rc=$?\n");
}

char *rmt_slurm_script(const rmt_slurm_plan *plan)
{
	wasm_buf b = {0};
	char n[32];
	size_t len;

	snprintf(n, sizeof n, "%u", plan->slices);
	put_str(&b, "#!/bin/sh\n# heisen: slices of the ");
	put_str(&b, n);
	put_str(&b, " of a campaign's plan (docs/slurm.md): this task's own,\n"
		    "# then those of the tasks of its array Slurm has not "
		    "started\n"
		    "i=${SLURM_ARRAY_TASK_ID:?not run as a Slurm array task}\n"
		    "job=${SLURM_ARRAY_JOB_ID:?not run as a Slurm array task}\n"
		    /* Runs are the compute node's: grids get a row each. */
		    "HEISEN_NODE=${SLURMD_NODENAME:-}\nexport HEISEN_NODE\n"
		    "claims=");
	put_quoted(&b, plan->dir);
	put_str(&b, "/claims-\"$job\"\n"
		    "mkdir -p \"$claims\" || exit 1\n"
		    "rc=0\n"
		    "sweep() {\n"
		    "\ts=$1\n");
	put_sweep(&b, plan, n);
	/* A claim is a symbolic link naming its task, made or refused at
	 * once (on NFS too): each slice runs once per job. The tasks still
	 * pending are asked for once (no task becomes pending later); the
	 * task of a slice taken from it is cancelled, in the background,
	 * and one that started meanwhile finds its own slice taken. A
	 * folder without symbolic links runs each task's own slice only. Under
	 * a time limit, a task takes another slice only while the time it has
	 * left is twice its longest slice and 10 s more: a task killed
	 * mid-slice keeps its runs, but `dispatch --resume` would be needed
	 * for the rest. */
	put_str(&b,
		"}\n"
		"t0=$(date +%s)\n"
		"lim=$(squeue -h -j \"${SLURM_JOB_ID:-}\" -o %L 2>/dev/null | "
		"awk '{ t = $0; d = 0; k = index(t, \"-\"); "
		"if (k) { d = substr(t, 1, k - 1); t = substr(t, k + 1) } "
		"if (t !~ /^[0-9:]+$/) exit; n = split(t, a, \":\"); s = 0; "
		"for (j = 1; j <= n; j++) s = s * 60 + a[j]; "
		"print d * 86400 + s }')\n"
		"long=0\n"
		"take() {\n"
		"\ta=$(date +%s)\n"
		"\tsweep \"$1\"\n"
		"\tb=$(date +%s)\n"
		"\t[ $((b - a)) -le \"$long\" ] || long=$((b - a))\n"
		"}\n"
		"if ln -s \"$i\" \"$claims/$i\" 2>/dev/null || "
		"! [ -L \"$claims/$i\" ]; then\n"
		"\ttake \"$i\"\n"
		"fi\n"
		"for s in $(squeue -h -r -j \"$job\" -t PENDING -o %K "
		"2>/dev/null | sort -rn); do\n"
		"\tif [ -n \"$lim\" ]; then\n"
		"\t\tnow=$(date +%s)\n"
		"\t\t[ $((lim - (now - t0))) -ge $((2 * long + 10)) ] || "
		"break\n"
		"\tfi\n"
		"\tln -s \"$i\" \"$claims/$s\" 2>/dev/null || continue\n"
		"\tscancel \"${job}_$s\" 2>/dev/null &\n"
		"\ttake \"$s\"\n"
		"done\n"
		"wait\n"
		"exit $rc\n");
	wasm_buf_byte(&b, 0);
	if (b.oom) {
		wasm_buf_fini(&b);
		return NULL;
	}
	return (char *)wasm_buf_take(&b, &len);
}

/* ---- running Slurm's commands -------------------------------------------- */

/* contains, case-insensitively */
static bool has(const char *s, const char *what)
{
	return strcasestr(s, what) != NULL;
}

/* Slurm's complaint in err (the tail of the command's stderr) as a
 * sentence saying what to do; false when it is none heisen knows. */
static bool explain(const db_node_url *u, const char *cmd, const char *err,
		    bool spawn, char *why, size_t wcap)
{
	const char *where = *u->host ? u->host : "this machine";

	if (has(err, "command not found") ||
	    (spawn && has(err, "No such file"))) {
		snprintf(why, wcap,
			 "%s is not installed on %s (or not on the PATH of its "
			 "non-interactive shell): install %s there%s",
			 cmd, where,
			 !strcmp(cmd, "heisen") ? "heisen"
						: "Slurm's client commands",
			 !strcmp(cmd, "heisen") ? ""
						: " (Debian: slurm-client)");
		return true;
	}
	if (has(err, "munge")) {
		snprintf(why, wcap,
			 "munge does not answer on %s (Slurm authenticates "
			 "with it): start munged there (systemctl start "
			 "munge), with the key the cluster shares",
			 where);
		return true;
	}
	if (has(err, "Unable to contact slurm controller") ||
	    has(err, "Could not establish a configuration source")) {
		snprintf(why, wcap,
			 "the Slurm controller does not answer %s: is "
			 "slurmctld running, and does SLURM_CONF or "
			 "/etc/slurm/slurm.conf name it? ('scontrol ping' "
			 "there tells)",
			 where);
		return true;
	}
	if (has(err, "Invalid partition")) {
		snprintf(why, wcap,
			 "the cluster has no partition '%s' ('sinfo' lists "
			 "them): add the node again with another --partition",
			 u->partition);
		return true;
	}
	if (has(err, "Invalid account")) {
		snprintf(why, wcap,
			 "Slurm refused the account '%s' ('sacctmgr show "
			 "assoc user=$USER' lists yours): add the node again "
			 "with another --account",
			 u->account);
		return true;
	}
	if (has(err, "time limit")) {
		snprintf(why, wcap,
			 "Slurm refused the time limit '%s' (above the "
			 "partition's MaxTime? 'sinfo -o %%l' shows it): add "
			 "the node again with a shorter --time",
			 u->time);
		return true;
	}
	if (has(err, "job array")) {
		snprintf(why, wcap,
			 "Slurm refused the job array (above the cluster's "
			 "MaxArraySize, 'scontrol show config' shows it): add "
			 "the node again with fewer --tasks");
		return true;
	}
	return false;
}

bool rmt_slurm_run(const db_node_url *u, const char *const *words,
		   double timeout_s, int in_fd, char **out, char *why,
		   size_t wcap)
{
	rmt_call c = {u, words, timeout_s, in_fd, SLURM_OUT_MAX, NULL, NULL};
	rmt_result r;
	wasm_err e;
	char line[400];

	*out = NULL;
	wasm_err_clear(&e);
	if (rmt_run(&c, &r, &e)) {
		if (!explain(u, words[0], e.msg, true, why, wcap))
			snprintf(why, wcap, "%s", e.msg);
		return false;
	}
	if (rmt_failed(&r, line, sizeof line)) {
		if (!explain(u, words[0], r.err, false, why, wcap)) {
			/* Over ssh, 127 is the login shell's "not found". */
			if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127)
				explain(u, words[0], "command not found", true,
					why, wcap);
			else
				snprintf(why, wcap, "%s: %s", words[0], line);
		}
		rmt_result_free(&r);
		return false;
	}
	*out = r.out ? (char *)r.out : wasm_strdup("");
	if (!*out) {
		snprintf(why, wcap, "out of memory");
		return false;
	}
	return true;
}

bool rmt_slurm_submit(const db_node_url *u, const char *script,
		      const char *array, const char *name, const char *dir,
		      unsigned cpus, char *job, size_t cap, char *why,
		      size_t wcap)
{
	char a_opt[4200], n_opt[128], o_opt[4200], d_opt[4200], p_opt[96],
	    acc_opt[96], t_opt[96], c_opt[48];
	const char *words[16];
	char *out;
	size_t len = strlen(script), k = 0;
	FILE *f = tmpfile();
	int n = 0;
	bool ok;

	if (!f || fwrite(script, 1, len, f) != len || fflush(f) ||
	    fseek(f, 0, SEEK_SET)) {
		snprintf(why, wcap,
			 "cannot write the batch script to a "
			 "temporary file");
		if (f)
			fclose(f);
		return false;
	}
	snprintf(a_opt, sizeof a_opt, "--array=%s", array);
	snprintf(n_opt, sizeof n_opt, "--job-name=%s", name);
	snprintf(o_opt, sizeof o_opt, "--output=%s/task-%%a.log", dir);
	snprintf(d_opt, sizeof d_opt, "--chdir=%s", dir);
	snprintf(c_opt, sizeof c_opt, "--cpus-per-task=%u", cpus ? cpus : 1);
	words[n++] = "sbatch";
	words[n++] = "--parsable";
	words[n++] = a_opt;
	words[n++] = n_opt;
	words[n++] = o_opt;
	words[n++] = d_opt;
	words[n++] = c_opt;
	if (*u->partition) {
		snprintf(p_opt, sizeof p_opt, "--partition=%s", u->partition);
		words[n++] = p_opt;
	}
	if (*u->account) {
		snprintf(acc_opt, sizeof acc_opt, "--account=%s", u->account);
		words[n++] = acc_opt;
	}
	if (*u->time) {
		snprintf(t_opt, sizeof t_opt, "--time=%s", u->time);
		words[n++] = t_opt;
	}
	words[n] = NULL;
	ok = rmt_slurm_run(u, words, SLURM_TIMEOUT_S, fileno(f), &out, why,
			   wcap);
	fclose(f);
	if (!ok)
		return false;
	/* "123" or "123;cluster" */
	while (out[k] >= '0' && out[k] <= '9' && k + 1 < cap) {
		job[k] = out[k];
		k++;
	}
	job[k] = 0;
	if (!k)
		snprintf(why, wcap,
			 "sbatch answered without a job id ('%.80s')", out);
	wasm_free(out);
	return k > 0;
}

/* ---- task states --------------------------------------------------------- */

static rmt_task_state fold(const char *s)
{
	static const struct {
		const char *name;
		rmt_task_state st;
	} map[] = {
	    {"PENDING", RMT_TASK_PENDING},
	    {"REQUEUED", RMT_TASK_PENDING},
	    {"CONFIGURING", RMT_TASK_RUNNING},
	    {"RUNNING", RMT_TASK_RUNNING},
	    {"COMPLETING", RMT_TASK_RUNNING},
	    {"SUSPENDED", RMT_TASK_RUNNING},
	    {"COMPLETED", RMT_TASK_COMPLETED},
	    {"CANCELLED", RMT_TASK_CANCELLED},
	    {"TIMEOUT", RMT_TASK_TIMEOUT},
	    {"DEADLINE", RMT_TASK_TIMEOUT},
	};

	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strncmp(s, map[i].name, strlen(map[i].name)))
			return map[i].st;
	return RMT_TASK_FAILED;
}

/* Lines "JOB_TASK|STATE" (or "JOB_[a-b]|STATE" for tasks not yet
 * split off a pending array) into states, for the tasks not yet known. */
static void parse_states(const char *out, const char *job,
			 rmt_task_state *states, uint32_t ntasks)
{
	size_t jl = strlen(job);

	for (const char *l = out; *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *bar = strchr(l, '|'), *p = l + jl + 1;
		unsigned long a, b;
		char *end;

		if (!bar || strncmp(l, job, jl) || l[jl] != '_')
			continue;
		if (*p == '[')
			p++;
		/* a list "[1-3,5%2]" of a pending array: each range */
		while (p < bar && *p >= '0' && *p <= '9') {
			a = b = strtoul(p, &end, 10);
			if (*end == '-')
				b = strtoul(end + 1, &end, 10);
			for (unsigned long t = a; t <= b && t < ntasks; t++)
				if (states[t] == RMT_TASK_UNKNOWN)
					states[t] = fold(bar + 1);
			p = end;
			if (*p != ',')
				break;
			p++;
		}
	}
}

bool rmt_slurm_states(const db_node_url *u, const char *job,
		      rmt_task_state *states, uint32_t ntasks, char *why,
		      size_t wcap)
{
	const char *squeue[] = {"squeue",	"-h",	 "-r",
				"--states=all", "-j",	 job,
				"-o",		"%i|%T", NULL};
	const char *sacct[] = {"sacct", "-n", "-X",	     "-P", "-j",
			       job,	"-o", "JobID,State", NULL};
	char *out, ignored[256];
	bool left = false;

	for (uint32_t i = 0; i < ntasks; i++)
		states[i] = RMT_TASK_UNKNOWN;
	if (!rmt_slurm_run(u, squeue, SLURM_TIMEOUT_S, -1, &out, why, wcap)) {
		/* A job the controller has forgotten is no error. */
		if (!has(why, "Invalid job id"))
			return false;
	} else {
		parse_states(out, job, states, ntasks);
		wasm_free(out);
	}
	for (uint32_t i = 0; i < ntasks; i++)
		left = left || states[i] == RMT_TASK_UNKNOWN;
	/* Without accounting sacct fails: the tasks stay unknown. */
	if (left && rmt_slurm_run(u, sacct, SLURM_TIMEOUT_S, -1, &out, ignored,
				  sizeof ignored)) {
		parse_states(out, job, states, ntasks);
		wasm_free(out);
	}
	return true;
}

bool rmt_slurm_max_array(const db_node_url *u, uint32_t *max, char *why,
			 size_t wcap)
{
	const char *words[] = {"scontrol", "show", "config", NULL};
	char *out, *p;

	*max = 0;
	if (!rmt_slurm_run(u, words, SLURM_TIMEOUT_S, -1, &out, why, wcap))
		return false;
	if ((p = strstr(out, "MaxArraySize")) && (p = strchr(p, '=')))
		*max = (uint32_t)strtoul(p + 1, NULL, 10);
	wasm_free(out);
	return true;
}
