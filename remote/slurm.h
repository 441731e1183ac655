/*
 * slurm.h - the Slurm back end of remote nodes (docs/slurm.md): a
 * campaign's plan handed to a cluster as one job array, each array task
 * sweeping one contiguous slice of the plan (`heisen sweep --plan-slice
 * I/N`) into a workspace file of its own in a directory the cluster's
 * nodes share.
 *
 * Every Slurm command (sbatch, squeue, sacct, sinfo, scontrol, srun)
 * runs through remote/transport.h: on the login host named by a
 * slurm://host/dir URL over ssh, or on this machine for slurm:///dir. The
 * batch script is sbatch's standard input; every word in it that comes
 * from the user or the plan is single-quoted, and partition, account and
 * time were checked by db_node_url_parse.
 *
 * Ownership: the caller owns every buffer it passes; rmt_slurm_script
 * returns a wasm_malloc'd string. Errors: the functions returning bool
 * fill why with a sentence a person can act on (sbatch missing, munge
 * not running, an unknown partition, an array above MaxArraySize...).
 */
#ifndef HEISEN_REMOTE_SLURM_H
#define HEISEN_REMOTE_SLURM_H

#include "db/nodes.h"

/* An array task's state, as squeue and sacct name them, folded. */
typedef enum rmt_task_state {
	RMT_TASK_UNKNOWN, /* no longer known to Slurm (purged, no sacct) */
	RMT_TASK_PENDING,
	RMT_TASK_RUNNING,
	RMT_TASK_COMPLETED,
	RMT_TASK_FAILED,    /* non-zero exit, node failure, out of memory */
	RMT_TASK_CANCELLED, /* scancel */
	RMT_TASK_TIMEOUT,   /* killed by its time limit */
	RMT_TASK_NSTATES
} rmt_task_state;

/* "pending", "running", ...: the names node status and JSON use. */
const char *rmt_task_state_name(rmt_task_state s);
/* Whether a task in state s may still write its workspace file. */
bool rmt_task_active(rmt_task_state s);

/* What a job's tasks run. */
typedef struct rmt_slurm_plan {
	const char *program; /* the program's path on the cluster */
	const char *dir;     /* the job's directory on the cluster */
	const char *origin;  /* the home campaign's origin */
	uint32_t slices;
	/* The sweep's plan options and, after "--", the program's
	 * arguments; NULL-terminated. */
	const char *const *words;
} rmt_slurm_plan;

/* The batch script of plan: task I runs slice I into DIR/task-I.db as
 * node $SLURMD_NODENAME. NULL when out of memory. */
char *rmt_slurm_script(const rmt_slurm_plan *plan);

/* Submit script as one array job running the tasks `array` ("0-15",
 * "3,7") on the cluster of u, `cpus` CPUs each, its log DIR/task-I.log;
 * Slurm's job id into job[cap]. */
bool rmt_slurm_submit(const db_node_url *u, const char *script,
		      const char *array, const char *name, const char *dir,
		      unsigned cpus, char *job, size_t cap, char *why,
		      size_t wcap);

/* The state of tasks 0..ntasks-1 of job into states (RMT_TASK_UNKNOWN
 * where Slurm no longer knows one): squeue, then sacct for the tasks
 * squeue has forgotten. */
bool rmt_slurm_states(const db_node_url *u, const char *job,
		      rmt_task_state *states, uint32_t ntasks, char *why,
		      size_t wcap);

/* The cluster's MaxArraySize into *max (0 when it does not say). */
bool rmt_slurm_max_array(const db_node_url *u, uint32_t *max, char *why,
			 size_t wcap);

/* Run words (argv, or the remote command) on the cluster of u and keep
 * its output; false with why, the Slurm failure explained, when it could
 * not be run or failed. *out is wasm_malloc'd, NUL-terminated. */
bool rmt_slurm_run(const db_node_url *u, const char *const *words,
		   double timeout_s, int in_fd, char **out, char *why,
		   size_t wcap);

#endif
