/*
 * cmd.h - the command handlers: one function per row of the command
 * table (tui/cli/table.c), grouped by the file that defines it. Each is
 * a door: it parses its options once (tui/cli/cli.h), calls the modules
 * that do the work and prints through the report layer (tui/report/).
 *
 * Layer: a file of tui/cmd/ includes tui/cli/, tui/report/ and the
 * modules below them, never another command file's functions; what two
 * commands share lives in the layer it belongs to.
 */
#ifndef HEISEN_TUI_CMD_H
#define HEISEN_TUI_CMD_H

#include "tui/cli/cli.h"

#include "db/nodes.h"

/* Command handlers, one per command row. */
int tui_cmd_help(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_version(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_cmd_inspect(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_cmd_validate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_run(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_cc(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_instrument(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err);
int tui_cmd_sites(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_sweep(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_check(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen explore` (tui/cmd/cmd_check.c beside check). */
int tui_cmd_explore(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
/* The debugger (tui/cmd/cmd_debug.c): timeline, debug, bisect. */
int tui_cmd_timeline(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_bisect(const tui_cmd *cmd, const tui_args *a, FILE *out,
		   FILE *err);
/* `heisen debug` (tui/screen/ui_timeline.c: it opens the TUI). */
int tui_cmd_debug(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen rerun` (tui/cmd/cmd_run.c with `run --density`/`--mask`). */
int tui_cmd_rerun(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_shared(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* Moving records between workspaces (tui/cmd/cmd_sync.c). */
int tui_cmd_export(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_import(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* Remote nodes: add, list, remove, check, self (tui/cmd/cmd_node.c); status,
 * and receive and start (the node's side of dispatch), fetch and
 * dispatch (tui/cmd/cmd_remote.c). */
int tui_node_add(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_node_list(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_node_remove(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_node_check(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_node_self(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_node_status(const tui_cmd *cmd, const tui_args *a, FILE *out,
		    FILE *err);
int tui_node_receive(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_node_start(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_fetch(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_dispatch(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_campaigns(const tui_cmd *cmd, const tui_args *a, FILE *out,
		      FILE *err);
/* Until the caller puts *old back (sigaction(SIGINT, old, NULL)), a
 * Ctrl-C stops the running campaign, search or replay at its next run
 * (det_sweep_stop), and a second one ends heisen as usual
 * (tui/cmd/cmd_detect.c). */
struct sigaction;
void tui_sigint_stops(struct sigaction *old);
/* A campaign's plan from sweep's options in a, the program a->operands[0]
 * and its arguments the operands after it (tui/cmd/cmd_detect.c). */
int tui_plan_campaign(const tui_cmd *cmd, const tui_args *a, struct det_prog *p,
		      db_campaign *c, FILE *err);
/* Slurm nodes (tui/cmd/cmd_slurm.c, docs/slurm.md): dispatch of the
 * program a->operands[prog] (prog < 0: --resume) to node r; status and
 * check of r. Exit codes as the commands'. */
int tui_slurm_dispatch(const tui_cmd *cmd, const tui_args *a, int prog,
		       const db_remote *r, FILE *out, FILE *err);
int tui_slurm_status(const db_remote *r, const char *dbpath, bool json,
		     FILE *out, FILE *err);
int tui_slurm_check(const db_remote *r, double timeout_s, bool json, FILE *out,
		    FILE *err);
/* What a fetch from a Slurm node did: the task files imported and
 * refused; why names the first refusal (or why nothing was reached);
 * the tasks still pending or running; the fetches made, and whether
 * --wait's time passed with tasks still pending or running. */
typedef struct tui_slurm_fetched {
	bool reached, timed_out;
	uint64_t runs, campaigns, bugs, bytes;
	uint32_t files, refused, active, fetches;
	char why[600];
} tui_slurm_fetched;
/* Fetch node r's ended task files of the slices not home whole. With
 * wait, again as tasks end until none is pending or running, or
 * timeout_s passes (f->timed_out); tty: where a status line goes while
 * waiting, or NULL. */
void tui_slurm_fetch(db *d, const db_remote *r, double timeout_s, bool wait,
		     FILE *tty, tui_slurm_fetched *f);
/* `heisen node tasks DIR LIST [--ended]`, the cluster's side of a Slurm
 * fetch: DIR/task-I.db of each task I of LIST exported, one after the
 * other (the stream its sweep left, while the file is as the sweep left
 * it). With --ended, a file with no such stream (its sweep still runs or
 * was killed) is answered "open" instead of exported. */
int tui_node_tasks(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* A slice's sweep (`sweep --plan-slice`) into workspace dbpath: drop
 * removes the export its last sweep left beside it (before anything is
 * written); close exports d, closes it and leaves the export beside it
 * for `node tasks`. A stream not written is a note on err, not an error:
 * the fetch then exports the workspace. */
void tui_slurm_stream_drop(const char *dbpath);
void tui_slurm_stream_close(db *d, FILE *err);
int tui_cmd_runs(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_bugs(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* Triage and comparing builds (tui/cmd/cmd_triage.c). */
int tui_cmd_triage(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_diff(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_show(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_profiles(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
/* `heisen replay` and `heisen mask save` (tui/cmd/cmd_replay.c). */
int tui_cmd_replay(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_mask(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_synthesize(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err);
int tui_cmd_minimize(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
/* `heisen factor`, `grid`, `simulate` and `plot` (tui/cmd/cmd_analysis.c). */
int tui_cmd_factor(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_grid(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
int tui_cmd_simulate(const tui_cmd *cmd, const tui_args *a, FILE *out,
		     FILE *err);
int tui_cmd_plot(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen completion` (tui/cmd/cmd_doc.c): the bash script, and the
 * candidates it asks for. */
int tui_cmd_completion(const tui_cmd *cmd, const tui_args *a, FILE *out,
		       FILE *err);
/* `heisen tui`: the ncurses front end (tui/screen/ui.c). */
int tui_cmd_tui(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);
/* `heisen shell` (tui/cli/line.c): the interactive command line. */
int tui_cmd_shell(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err);

#endif
