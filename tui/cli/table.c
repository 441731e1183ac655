/*
 * table.c - the command table every front end reads (argv, scripts, the
 * command line, the TUI's ':' prompt, completion, help, the manual).
 *
 * To add a command: write its handler (tui/cmd/cmd.h), add one row below.
 * Help, the command list and option parsing follow from the row. A
 * command with sub-commands (node) has its sub-command table here too,
 * so no command file calls another's handlers.
 */
#include "tui/cli/cli.h"
#include "tui/cmd/cmd.h"

#include <string.h>

static const tui_opt no_opts[] = {{NULL, NULL, NULL}};

/* The rules file of the commands that report races (docs/suppressions.md). */
#define SUPP_HELP                                                              \
	"races to leave out of the report, a rule a line (race:FUNCTION, "     \
	"race:FILE:LINE, called_from:FUNCTION); default: "                     \
	"./.heisen-suppressions when it exists"
#define SUPP_OPT                                                               \
	{                                                                      \
		"--suppressions", "FILE", SUPP_HELP                            \
	}

/* Machine output of the commands that report bugs (tui/report_fmt.h,
 * docs/triage.md). */
#define FORMAT_OPTS                                                            \
	{"--format", "sarif|junit|jsonl",                                      \
	 "print the bugs for CI tools instead of text: SARIF 2.1.0 (code "     \
	 "scanning), JUnit XML, or JSON lines (heisen.event/1); not with "     \
	 "--json"},                                                            \
	{                                                                      \
		"--source-root", "DIR",                                        \
		    "with --format sarif: source files under DIR get URIs "    \
		    "relative "                                                \
		    "to it (uriBaseId SRCROOT)"                                \
	}

static const tui_opt help_opts[] = {
    {"--man", NULL,
     "print the manual page (roff, for man -l) made from this table"},
    {NULL, NULL, NULL},
};

static const tui_opt completion_opts[] = {
    {"--line", "LINE",
     "print the candidates for the last word of LINE, one per line "
     "(LINE starts with heisen's own name, as a shell passes it)"},
    {NULL, NULL, NULL},
};

static const tui_opt inspect_opts[] = {
    {"--json", NULL, "print the report as JSON (schema heisen.inspect/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt validate_opts[] = {
    {"--json", NULL, "print the verdict as JSON (schema heisen.validate/1)"},
    {NULL, NULL, NULL},
};

/* Only for help: cc's words go to clang unparsed (TUI_RAW_ARGS), and
 * tui_cmd_cc picks its own option out of them. */
static const tui_opt cc_opts[] = {
    {"--print-cmd", NULL, "print the clang command line instead of running it"},
    {"-msimd128", NULL,
     "a clang flag: compile for WebAssembly's 128-bit SIMD, which heisen "
     "runs; with -O2 clang vectorises loops into it. -mrelaxed-simd is "
     "refused: heisen does not run relaxed SIMD"},
    {NULL, NULL, NULL},
};

/* The program's world (tui_opt_world): run's options, which the commands
 * that run a program many times take too, each with `also` said of it. */
#define WORLD_OPTS(also)                                                       \
	{"--dir", "HOST[::GUEST]",                                             \
	 "grant directory HOST, seen by the program as GUEST (default: "       \
	 "HOST); repeatable" also},                                            \
	    {"--env", "K=V",                                                   \
	     "set a variable in the program's environment; repeatable" also},  \
	    {"--max-threads", "N",                                             \
	     "most threads alive at once (default 64)" also},                  \
	{                                                                      \
		"--max-memory", "SIZE",                                        \
		    "cap on each memory: bytes or 64K/64M/1G (default 4G)" also \
	}
#define WORLD_RECORDED "; recorded with the campaign"

static const tui_opt run_opts[] = {
    WORLD_OPTS(""),
    {"--timeout", "TIME",
     "stop the program after TIME: 30 (seconds), 30s, 10m, 2h (exit 124)"},
    {"--density", "PCT",
     "detect races: arm a random PCT % of the probe sites (the program "
     "is instrumented first if it is not)"},
    {"--seed", "S", "with --density: the mask's seed (default: random)"},
    {"--mask", "MASKFILE",
     "detect races: arm exactly the site ids listed in MASKFILE"},
    {"--delay", "UNITS",
     "with --density/--mask: spin units of an armed probe, or with "
     "--schedule points of virtual time (default 50)"},
    {"--profile", "NAME",
     "with --density/--mask: execution profile (see 'heisen profiles')"},
    {"--fail-on-bugs", "[new|any]",
     "with --density/--mask/--schedule: exit 1 when a violation not "
     "suppressed is caught (any, the default) or one whose bug is not "
     "triaged confirmed or not-a-bug in the workspace (new)"},
    {"--db", "FILE",
     "with --fail-on-bugs new: the workspace whose triage counts "
     "(default $HEISEN_DB or ./heisen.db; none: every race is new)"},
    {"--json", NULL,
     "with --density/--mask/--schedule: report as JSON (schema "
     "heisen.run/1); the "
     "program's output goes to stderr"},
    {"--suppressions", "FILE", "with --density/--mask/--schedule: " SUPP_HELP},
    {"--schedule", "STRATEGY",
     "run serially, one thread at a time, the scheduler choosing at every "
     "shared access: random[:P], pct:D[:K], chaos or fixed (races by "
     "happens-before; with --density or --mask, a serial sweep's run: "
     "delays at the armed sites, races by collision)"},
    {"--schedule-seed", "S", "with --schedule: its seed (default: random)"},
    {"--schedule-file", "FILE",
     "with --schedule fixed: the schedule to follow (from --save-schedule)"},
    {"--save-schedule", "FILE",
     "with --schedule: write the run's schedule to FILE"},
    {"--stats", NULL,
     "without --density/--mask/--schedule: print on stderr how the engine "
     "ran the program (functions compiled to machine code on their first "
     "call, functions interpreted, functions never called, compile "
     "time)"},
    {NULL, NULL, NULL},
};

static const tui_opt check_opts[] = {
    {"--runs", "N", "runs, each checked in full (default 1)"},
    {"--profile", "NAME",
     "the execution profile of the runs (default: throttled, so that "
     "threads take turns; see 'heisen profiles')"},
    {"--jobs", "J", "worker processes at once (default: CPUs online)"},
    {"--timeout", "TIME",
     "a run still going after TIME is stopped and recorded as a timeout "
     "(default 10s)"},
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--fail-on-bugs", "[new|any]",
     "exit 1 when a race was found that is not suppressed (any, the "
     "default) and, with new, not triaged confirmed or not-a-bug"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard "
     "input, recorded with the campaign (default: stdin empty)"},
    WORLD_OPTS(WORLD_RECORDED),
    {"--schedule", "STRATEGY",
     "serial runs: one thread at a time, each run under its own schedule "
     "(random[:P], pct:D[:K] or chaos, docs/schedules.md), recorded "
     "with it"},
    {"--schedule-seed", "S",
     "with --schedule: the campaign seed run i's schedule seed derives "
     "from (default: random, printed)"},
    {"--json", NULL, "print the races as JSON (schema heisen.check/1)"},
    FORMAT_OPTS,
    SUPP_OPT,
    {NULL, NULL, NULL},
};

static const tui_opt explore_opts[] = {
    {"--strategy", "STRATEGY",
     "how each run's schedule is drawn: random[:P], pct:D[:K] or chaos "
     "(default pct:3, K measured by one run)"},
    {"--runs", "N", "serial runs (default 100)"},
    {"--budget", "TIME", "run until TIME (90s, 10m) has passed instead"},
    {"--seed", "S",
     "campaign seed; run i's schedule seed derives from it (default: "
     "random, printed)"},
    {"--failure", "WHAT",
     "also record runs that fail: trap, exit:N or stdout:REGEX"},
    {"--jobs", "J", "worker processes at once (default: CPUs online)"},
    {"--timeout", "TIME",
     "a run still going after TIME is stopped and recorded as a timeout "
     "(default 10s)"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard "
     "input, recorded with the campaign (default: stdin empty)"},
    WORLD_OPTS(WORLD_RECORDED),
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--fail-on-bugs", "[new|any]",
     "exit 1 when a race not suppressed (with new: nor triaged) or a "
     "failure was found"},
    {"--json", NULL, "print the result as JSON (schema heisen.explore/1)"},
    FORMAT_OPTS,
    SUPP_OPT,
    {NULL, NULL, NULL},
};

/* A campaign's plan: the options of `sweep` that `dispatch` hands on to
 * a node's sweep. */
#define SWEEP_PLAN_OPTS                                                        \
	{"--densities", "LIST",                                                \
	 "densities in percent: FIRST:LAST:STEP or a comma list (default "     \
	 "5:100:5)"},                                                          \
	    {"--runs", "N", "runs per cell (default 5 without --budget)"},     \
	    {"--budget", "TIME",                                               \
	     "run rounds until TIME (90s, 10m, 2h) has passed"},               \
	    {"--profiles", "LIST",                                             \
	     "comma-separated profiles (default: all that 'heisen profiles' "  \
	     "lists, which found more bugs than one at an equal budget)"},     \
	    {"--jobs", "J",                                                    \
	     "worker processes at once (default: CPUs online)"},               \
	    {"--seed", "S",                                                    \
	     "campaign seed; run i's mask seed derives from it"},              \
	    {"--delay", "UNITS", "spin units of an armed probe (default 50)"}, \
	    {"--timeout", "TIME",                                              \
	     "a run still going after TIME is stopped and recorded as a "      \
	     "timeout (default 10s)"},                                         \
	{                                                                      \
		"--prune", NULL,                                               \
		    "arm only sites found shared between threads (3 runs of "  \
		    "'heisen "                                                 \
		    "shared' first)"                                           \
	}

static const tui_opt sweep_opts[] = {
    SWEEP_PLAN_OPTS,
    {"--schedule", "STRATEGY",
     "serial runs: random[:P], pct:D[:K] or chaos, each run's schedule "
     "drawn from its seed; an armed probe's delay lets the other threads "
     "run --delay points of virtual time (docs/schedules.md)"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard "
     "input, recorded with the campaign (default: stdin empty)"},
    WORLD_OPTS(WORLD_RECORDED),
    {"--resume", "CAMPAIGN", "continue a stopped campaign's plan"},
    {"--plan-slice", "I/N",
     "run only slice I (0 to N-1) of the plan's N contiguous slices; runs "
     "keep their plan index and seed (needs --seed or --resume)"},
    {"--origin", "ORIGIN",
     "join the runs to another workspace's campaign ORIGIN when they are "
     "imported there, continuing this workspace's campaign of that "
     "origin if it has one (what a Slurm dispatch's tasks run)"},
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--fail-on-bugs", "[new|any]",
     "exit 1 when the campaign found a bug that is not suppressed (any, "
     "the default) and, with new, not triaged confirmed or not-a-bug"},
    {"--json", NULL, "print the summary as JSON (schema heisen.sweep/1)"},
    FORMAT_OPTS,
    SUPP_OPT,
    {"--progress-fd", "FD",
     "also write progress as JSON lines (schema heisen.progress/1) to "
     "open file descriptor FD"},
    {NULL, NULL, NULL},
};

static const tui_opt rerun_opts[] = {
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--json", NULL,
     "report as JSON (schema heisen.run/1 with a rerun object); the "
     "program's output goes to stderr"},
    {"--fail-on-bugs", NULL,
     "exit 1 when a violation is caught and the program exited 0"},
    {NULL, NULL, NULL},
};

static const tui_opt timeline_opts[] = {
    {"--run", "RUN", "the schedule of this serial run"},
    {"--file", "FILE.repro", "a schedule repro file, replayed on PROGRAM.wasm"},
    {"--force", NULL, "with a repro file: a program whose hash differs"},
    {"--from", "N", "the first event shown (default 0)"},
    {"--count", "M", "events shown at most (default 100; 0: all)"},
    {"--thread", "T", "only thread T's events"},
    {"--at", "PLACE",
     "only the accesses at FILE:LINE, FUNCTION or 'site N'"},
    {"--watch", "ADDR[:W]",
     "the W bytes (1 to 8, default 4) at ADDR at every event"},
    {"--stack", "N", "the call stack of event N"},
    {"--max-events", "N",
     "events kept at most (default 4 000 000; the run goes on past them)"},
    {"--db", "FILE", "the workspace of BUG or --run"},
    {"--json", NULL, "heisen.timeline/1 (docs/json.md)"},
    {NULL, NULL, NULL},
};

static const tui_opt debug_opts[] = {
    {"--run", "RUN", "the schedule of this serial run"},
    {"--file", "FILE.repro", "a schedule repro file, replayed on PROGRAM.wasm"},
    {"--force", NULL, "with a repro file: a program whose hash differs"},
    {"--db", "FILE", "the workspace of BUG or --run"},
    {NULL, NULL, NULL},
};

static const tui_opt bisect_opts[] = {
    {"--fail", "RUN|FILE.repro", "the failing schedule: a serial run, or a schedule repro file"},
    {"--pass", "RUN|FILE.repro", "a passing schedule of the same program"},
    {"--seeds", "N",
     "instead of --pass: try up to N new seeds of the failing run's "
     "strategy for a passing one"},
    {"--failure", "F",
     "what failing is: trap, exit:N or stdout:REGEX (default: the "
     "failing run's campaign's --failure, else its race or ending)"},
    {"--force", NULL, "with a repro file: a program whose hash differs"},
    {"--db", "FILE", "the workspace of the runs"},
    {"--json", NULL, "heisen.bisect/1 (docs/json.md)"},
    {NULL, NULL, NULL},
};

static const tui_opt replay_opts[] = {
    {"--run", "RUN",
     "pin this run's mask (it must have detected BUG); alone: the bug "
     "the run detected"},
    {"--file", "FILE.repro", "replay a repro file on PROGRAM.wasm"},
    {"--mode", "MODE",
     "pinned, minimal, trigger or schedule (default trigger, or "
     "schedule for a run without a race; with --file the file's)"},
    {"--runs", "N", "runs (default 100)"},
    {"--jobs", "J", "worker processes at once (default: CPUs online)"},
    {"--hold", "TIME",
     "trigger: how long a thread at one site waits for the other, in "
     "seconds (default a tenth of the recorded run's time, 1 ms to 1 s)"},
    {"--until-first", NULL, "stop at the first reproduction"},
    {"--any-address", NULL,
     "trigger: hold threads at any address of the two sites, not only "
     "at the race's logged addresses (for data whose address changes "
     "from run to run)"},
    {"--progress", NULL,
     "a progress line on stderr per tenth of the runs, also when it is "
     "not a terminal (the TUI reads them)"},
    {"--save", "FILE.repro",
     "write a repro file with the rate measured (a schedule shrunk "
     "first)"},
    {"--no-shrink", NULL,
     "schedule: save the recorded decisions as they are"},
    {"--force", NULL, "with --file: replay on a program whose hash differs"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard "
     "input (default: the campaign's or the repro file's; without "
     "either, stdin empty)"},
    WORLD_OPTS(" (default: the campaign's or the repro file's)"),
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--json", NULL, "print the result as JSON (schema heisen.replay/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt minimize_opts[] = {
    {"--failure", "WHAT",
     "what a failure is: trap, exit:N (exit code N) or stdout:REGEX "
     "(output matching a POSIX extended regular expression); required"},
    {"--groups", "L", "groups per iteration, 2 to 8 (default 4)"},
    {"--repeat", "R", "runs per configuration (default 4)"},
    {"--budget", "TIME", "stop the search after TIME (default 10m)"},
    {"--seed", "S", "seed of the random partitions (default 0)"},
    {"--delay", "UNITS", "spin units of a delay (default 50)"},
    {"--profile", "NAME", "execution profile (default: default)"},
    {"--schedule", "STRATEGY",
     "serial runs: random[:P], pct:D[:K] or chaos; only armed sites "
     "switch threads, so the result does not depend on the machine's "
     "load (docs/schedules.md)"},
    {"--timeout", "TIME",
     "a run still going after TIME is stopped "
     "(default 10s)"},
    {"--jobs", "J", "worker processes at once (default: CPUs online)"},
    {"--baseline", "N",
     "also run N random subsets of the result's size, for comparison"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard "
     "input, saved in the repro file (default: stdin empty)"},
    WORLD_OPTS("; saved in the repro file"),
    {"--save", "FILE.repro", "write the result as a repro file"},
    {"--json", NULL, "print the result as JSON (schema heisen.minimize/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt synthesize_opts[] = {
    {"--index", "N", "which race of a report with several (default 1)"},
    {"--failure", "WHAT",
     "synthesize a failure instead of a race: trap, exit:N or "
     "stdout:REGEX (then the only operand is the program)"},
    {"--at", "FUNCTION|FILE:LINE",
     "with --failure: where it must happen (a trap in FUNCTION); the "
     "search preempts there"},
    {"-o", "FILE.repro", "write the schedule found as a repro file"},
    {"--budget", "TIME", "search for at most TIME (default 2m)"},
    {"--seed", "S", "seed of the search (default: random)"},
    {"--timeout", "TIME",
     "a run still going after TIME is stopped (default 10s)"},
    {"--stdin", "FILE",
     "every run reads FILE's bytes (at most 1 MiB) as its standard input "
     "(default: stdin empty)"},
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {"--json", NULL, "print the result as JSON (schema heisen.synthesize/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt mask_opts[] = {
    {"-o", "FILE", "the mask file to write (required)"},
    {"--db", "FILE", "workspace database (default $HEISEN_DB or ./heisen.db)"},
    {NULL, NULL, NULL},
};

static const tui_opt shared_opts[] = {
    {"--runs", "N", "runs to merge (default 5)"},
    {"--jobs", "J", "worker processes at once (default: CPUs online)"},
    {"--timeout", "TIME", "stop a run after TIME (default 10s)"},
    {"--json", NULL, "print the sites as JSON (schema heisen.shared/1)"},
    {NULL, NULL, NULL},
};

#define DB_OPT                                                                 \
	{                                                                      \
		"--db", "FILE",                                                \
		    "workspace database (default $HEISEN_DB or ./heisen.db)"   \
	}

static const tui_opt factor_opts[] = {
    {"--samples", "M", "Monte-Carlo draws per bug (default 10000)"},
    {"--seed", "S",
     "seed of the draws (default 0): the same seed and "
     "data give the same F"},
    {"--prior", "NAME",
     "pooled (default): the cells' prior spread weighed by the data; "
     "paper: the paper's Beta(alpha, 1)"},
    DB_OPT,
    {"--json", NULL, "print the factors as JSON (schema heisen.factor/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt grid_opts[] = {
    {"--csv", NULL, "print the cells as CSV, one a line"},
    DB_OPT,
    {"--json", NULL, "print the cells as JSON (schema heisen.grid/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt simulate_opts[] = {
    {"--program", "P",
     "the program: its id, hash (hex) or file name (needed when the "
     "workspace has several)"},
    {"--budget", "TIME",
     "run time a simulated campaign may spend (default: a tenth of the "
     "recorded runs' time)"},
    {"--strategies", "LIST",
     "comma-separated: homogeneous, density, profile, both (default: "
     "all)"},
    {"--profile", "NAME",
     "the profile of the one-profile strategies (default: default)"},
    {"--trials", "N", "simulated campaigns per strategy (default 10000)"},
    {"--seed", "S", "seed of the draws (default 0)"},
    DB_OPT,
    {"--json", NULL, "print the table as JSON (schema heisen.simulate/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt plot_opts[] = {
    {"-o", "FILE.svg", "the SVG file to write (required)"},
    {"--samples", "M", "factor: Monte-Carlo draws per bug (default 10000)"},
    {"--seed", "S", "factor, simulate: seed of the draws (default 0)"},
    {"--prior", "NAME", "factor: pooled (default) or paper"},
    {"--program", "P", "simulate: the program (id, hash or file name)"},
    {"--budget", "TIME", "simulate: run time a campaign may spend"},
    {"--strategies", "LIST", "simulate: strategies to draw"},
    {"--profile", "NAME", "simulate: profile of the one-profile strategies"},
    {"--trials", "N", "simulate: campaigns per strategy (default 10000)"},
    DB_OPT,
    {NULL, NULL, NULL},
};

static const tui_opt campaigns_opts[] = {
    DB_OPT,
    {"--json", NULL, "print the list as JSON (schema heisen.campaigns/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt runs_opts[] = {
    {"--bug", "BUG", "only the runs that detected bug BUG"},
    DB_OPT,
    {"--json", NULL, "print the list as JSON (schema heisen.runs/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt bugs_opts[] = {
    {"--program", "P",
     "only the bugs of program P: its id or hash (hex), one build; or "
     "its file name, every build of that name, a row per signature"},
    DB_OPT,
    {"--json", NULL, "print the list as JSON (schema heisen.bugs/1)"},
    FORMAT_OPTS,
    {"--fail-on-bugs", "[new|any]",
     "exit 1 when a listed bug is not suppressed (any, the default) "
     "and, with new, not triaged confirmed or not-a-bug"},
    SUPP_OPT,
    {"--show-suppressed", NULL,
     "list the suppressed bugs too, a first column naming the rule of "
     "each"},
    {NULL, NULL, NULL},
};

static const tui_opt triage_opts[] = {
    {"--note", "TEXT", "why: kept with the decision (needs a STATE)"},
    DB_OPT,
    {"--json", NULL,
     "print the state and decisions as JSON (schema "
     "heisen.triage/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt diff_opts[] = {
    DB_OPT,
    {"--json", NULL, "print the comparison as JSON (schema heisen.diff/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt show_opts[] = {
    DB_OPT,
    {"--json", NULL, "print the report as JSON (schema heisen.bug/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt export_opts[] = {
    {"--since", "CURSOR",
     "only the runs after this cursor (the one the last export printed; "
     "default 0: every run)"},
    {"--all-campaigns", NULL,
     "every campaign too, also those without runs after the cursor, so "
     "that the importer learns how they ended ('heisen fetch' asks for "
     "it)"},
    DB_OPT,
    {"-o", "FILE", "write the stream to FILE instead of stdout"},
    {NULL, NULL, NULL},
};

static const tui_opt import_opts[] = {
    {"--db", "FILE",
     "workspace database to import into (created when missing; default "
     "$HEISEN_DB or ./heisen.db)"},
    {"--json", NULL, "print the counts as JSON (schema heisen.import/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt node_opts[] = {
    DB_OPT,
    {"--json", NULL,
     "list, check, status, self: print JSON (schemas heisen.nodes/1, "
     "heisen.node-check/1, heisen.campaigns/1, heisen.node-self/1)"},
    {"--timeout", "TIME",
     "check: give up on the node after TIME (default 10s)"},
    {"--partition", "P", "add, Slurm: the partition the tasks run in"},
    {"--account", "A", "add, Slurm: the account the tasks are charged to"},
    {"--time", "LIMIT",
     "add, Slurm: each task's time limit (sbatch --time: 90, 1:30:00)"},
    {"--tasks", "N",
     "add, Slurm: array tasks a dispatch splits the plan into (default "
     "16)"},
    {"--ended", NULL,
     "tasks: send only the task files whose sweep has ended; the others "
     "are answered 'open'"},
    {"--claims", "JOB",
     "tasks: only say which slices of LIST another task of Slurm job "
     "JOB's array ran and which have ended ('heisen-task I [by T] "
     "[ended]')"},
    {NULL, NULL, NULL},
};

static const tui_opt fetch_opts[] = {
    {"--all", NULL, "fetch from every registered node"},
    {"--timeout", "TIME", "give up on a node after TIME (default 10m)"},
    {"--wait", NULL,
     "Slurm nodes: fetch again as tasks end, until none is pending or "
     "running or --timeout has passed"},
    DB_OPT,
    {"--json", NULL, "print the result as JSON (schema heisen.fetch/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt dispatch_opts[] = {
    SWEEP_PLAN_OPTS,
    {"--resume", "CAMPAIGN",
     "Slurm: submit again the tasks of a dispatched campaign whose plan "
     "indices are missing at home"},
    DB_OPT,
    {"--json", NULL, "print the result as JSON (schema heisen.dispatch/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt shell_opts[] = {
    {"--db", "FILE", "workspace database of the session, as 'set db FILE'"},
    {NULL, NULL, NULL},
};

static const tui_opt tui_opts[] = {
    {"--db", "FILE", "workspace database (created when missing)"},
    {NULL, NULL, NULL},
};

static const tui_opt profiles_opts[] = {
    {"--json", NULL, "print the list as JSON (schema heisen.profiles/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt instrument_opts[] = {
    {"-o", "OUT.wasm", "write the instrumented module here (required)"},
    {"--static", "MASKFILE",
     "deployment mode: probe only the site ids listed in MASKFILE, "
     "without a mask"},
    {"--all-memories", NULL, "instrument unshared memories too"},
    {"--json", NULL, "print the summary as JSON (schema heisen.instrument/1)"},
    {NULL, NULL, NULL},
};

static const tui_opt sites_opts[] = {
    {"--all-memories", NULL,
     "for a module not yet instrumented: count unshared memories too"},
    {"--json", NULL, "print the table as JSON (schema heisen.sites/1)"},
    {NULL, NULL, NULL},
};

/* `heisen node SUB`: the registry (add, list, remove), a node's health
 * (check, self, status) and the node's side of `heisen dispatch`. */
static int node_cmd(const tui_cmd *cmd, const tui_args *a, FILE *out, FILE *err)
{
	static const char *const db_json[] = {"--db", "--json", NULL};
	static const char *const db_only[] = {"--db", NULL};
	static const char *const ended[] = {"--ended", "--claims", NULL};
	/* The sub-commands; opts NULL: the handler checks its options. The
	 * last two are the node's side of `heisen dispatch`. */
	static const struct {
		const char *name;
		tui_handler fn;
		const char *const *opts;
	} subs[] = {
	    {"add", tui_node_add, NULL},
	    {"list", tui_node_list, NULL},
	    {"remove", tui_node_remove, NULL},
	    {"check", tui_node_check, NULL},
	    {"self", tui_node_self, NULL},
	    {"status", tui_node_status, db_json},
	    {"receive", tui_node_receive, db_only},
	    {"start", tui_node_start, db_only},
	    {"tasks", tui_node_tasks, ended},
	};
	const char *sub = a->operands[0];

	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
		if (strcmp(sub, subs[i].name))
			continue;
		if (subs[i].opts &&
		    !tui_sub_only(cmd, a, sub, subs[i].opts, err))
			return TUI_EXIT_USAGE;
		return subs[i].fn(cmd, a, out, err);
	}
	fprintf(err,
		"heisen node: no sub-command '%s'; use add, list, remove, "
		"check, self or status (see 'heisen help node')\n",
		sub);
	return TUI_EXIT_USAGE;
}

const tui_cmd tui_commands[] = {
    {"help", "[COMMAND] [--man]", "show the command list or one command's help",
     "Without an argument, lists every command. With one, shows its "
     "usage, options and description. With --man, prints the manual "
     "page of every command, in roff (man -l <(heisen help --man)); "
     "make install installs it as heisen(1).",
     0, 1, help_opts, tui_cmd_help},
    {"version", "", "print heisen's version", "Prints the version of heisen.",
     0, 0, no_opts, tui_cmd_version},
    {"inspect", "FILE.wasm [--json]",
     "summarise a Wasm module: sections, imports, memories, accesses",
     "Decodes and validates FILE.wasm and reports its sections with "
     "sizes, imports, exports, memories (limits, shared or not), the "
     "number of functions, the number of memory-access instructions per "
     "memory (loads, stores, atomics, memory.copy/fill/init), and whether "
     "DWARF debug information and a name section are present.\n"
     "Exit status: 0 on success; 2 if the file cannot be read, is not a "
     "well-formed module, or is invalid (the error names the offset).",
     1, 1, inspect_opts, tui_cmd_inspect},
    {"validate", "FILE.wasm [--json]",
     "check that a Wasm module is well formed and valid",
     "Decodes FILE.wasm and type-checks it against the WebAssembly 2.0 "
     "core specification with the threads and multi-memory proposals "
     "(SIMD included).\n"
     "Exit status: 0 if valid; 2 with a one-line error naming the byte "
     "offset, section, function and reason otherwise, e.g.\n"
     "  app.wasm: offset 0x1a3f (code, func 12): type mismatch: i32.add "
     "expects i32, got f64",
     1, 1, validate_opts, tui_cmd_validate},
    {"run",
     "FILE.wasm [--dir HOST[::GUEST]]... [--env K=V]... [--timeout TIME] "
     "[--max-threads N] [--max-memory SIZE] [--density PCT [--seed S] | "
     "--mask MASKFILE] [--delay UNITS] [--profile NAME] [--json] "
     "[--fail-on-bugs [new|any]] [--suppressions FILE] [--schedule "
     "STRATEGY [--schedule-seed S] [--schedule-file FILE] "
     "[--save-schedule FILE]] [--stats] [-- ARGS...]",
     "run a WASI program in heisen's engine",
     "Runs FILE.wasm, a WASI preview1 command module (it exports "
     "_start), in heisen's engine (compiled to machine code on x86-64 "
     "Linux, interpreted elsewhere or with HEISEN_ENGINE=interp), with "
     "wasi-threads: every thread "
     "the program spawns is a new instance sharing its memory, on its own "
     "OS thread. ARGS after -- are the program's arguments (its argv[0] "
     "is FILE.wasm). Standard input, output and error are the program's. "
     "The program sees only the directories granted with --dir (paths "
     "cannot leave them, not through .. nor symlinks) and only the "
     "variables set with --env, not heisen's environment.\n"
     "Past --max-memory, memory.grow fails as the program sees it; past "
     "--max-threads, creating a thread fails with EAGAIN.\n"
     "Exit status: the program's own (its proc_exit code, or 0 when "
     "_start returns, even if other threads still run); 134 if it traps "
     "or needs more memory than --max-memory to start, with the reason "
     "on stderr, e.g.\n"
     "  heisen: trap: integer divide by zero in function 12 'fib' at "
     "offset 0x1a3f\n"
     "124 if --timeout passes, with where each thread was on stderr "
     "(its call stack, named from the name section and DWARF: a "
     "deadlock shows as threads waiting); 2 if FILE.wasm cannot be read, is "
     "not a "
     "valid module or not a WASI command, or an option is wrong; 3 on an "
     "internal error. A program may return these codes itself: the "
     "message on stderr tells them apart.\n"
     "With --density or --mask the run detects data races: FILE.wasm is "
     "instrumented if it is not (cached by its hash), the chosen sites "
     "are armed, and after the run heisen prints on stderr (stdout "
     "stays the program's own output, as with ThreadSanitizer) a line "
     "of what it did "
     "(density, seed, sites armed, status, time, probe calls, "
     "violations), then each violation as a race report: both accesses "
     "with kind, size, address, thread and call stack, a 'Value changed' "
     "line when the armed access saw its bytes change during its delay, "
     "and a SUMMARY line (docs/detection.md).\n"
     "The same seed and density arm the same sites on every machine. "
     "A violation that a rule of the suppressions file matches "
     "(--suppressions FILE, else ./.heisen-suppressions when it exists; "
     "docs/suppressions.md) is left out of the report and counted in a "
     "line at its end, with the rules that matched.\n"
     "Exit status as above; with --fail-on-bugs, 1 when a violation not "
     "suppressed was caught (with --fail-on-bugs new: one whose "
     "signature the workspace has not triaged confirmed or not-a-bug) "
     "and the program exited 0; 2 also for a bad --fail-on-bugs value, a "
     "suppressions file that cannot be read or has a bad line (the "
     "message names FILE:LINE), before the program runs.\n"
     "With --schedule STRATEGY the run is serial (docs/schedules.md): "
     "one thread runs at a time and the strategy chooses who runs at "
     "every scheduling point (each shared access's probe, each WASI "
     "call, atomic wait and notify, thread spawn and end): random[:P] "
     "switches with probability P (default 0.05), pct:D[:K] is PCT for "
     "bugs of depth D over the first K points, chaos starves a thread "
     "now and then for a log-uniform span (rr's chaos mode), fixed follows "
     "--schedule-file FILE. Clocks, sleeps and random_get are virtual, "
     "so one seed gives one execution, shown by the digest on the "
     "report's first line; every site is armed and races are found by "
     "happens-before. With --density or --mask as well it is one run of "
     "a serial sweep: only the mask's sites are armed, each armed "
     "probe's delay sleeps --delay points of virtual time while the "
     "others run, and races are the collisions inside a delay, the same "
     "on an idle machine and a loaded one. A run where every thread waits "
     "forever ends as a "
     "deadlock naming where each waits (exit 134). --save-schedule FILE "
     "keeps the run's decisions; replaying them with --schedule fixed "
     "exits 1 when the run leaves them (another program or input), and "
     "a schedule file that is not one, truncated, of a future version or "
     "naming a thread or point the run never had is refused with exit "
     "2.",
     1, TUI_MAX_OPERANDS, run_opts, tui_cmd_run},
    {"cc", "[CLANG ARGS...] [--print-cmd]",
     "compile and link C for heisen (wasm32-wasi with threads)",
     "Runs clang for wasm32-wasi with wasi-threads and links heisen's "
     "guest library, like mpicc: programs written against <pthread.h> "
     "compile unchanged, and malloc and stdio output are made "
     "thread-safe. Every argument goes to clang: -o OUT.wasm, -O2, -g, "
     "-D, -I, several .c files, -c to compile only, -Wl,... to the "
     "linker (-Wl,--max-memory=BYTES overrides the default cap of "
     "256 MiB), -msimd128 for 128-bit SIMD. errno is one variable shared "
     "by all threads (Debian's wasi-libc has no thread-local errno); "
     "races on it are not reported, as each thread has its own "
     "natively.\n"
     "Threads: pthread_exit ends the calling thread (its OS thread and "
     "slot are freed); deferred cancellation (pthread_cancel, acted on "
     "at pthread_testcancel, pthread_join, pthread_cond_wait/timedwait, "
     "sem_wait/timedwait, sleep, usleep, nanosleep, pause) runs the "
     "pthread_cleanup_push handlers. <semaphore.h> "
     "gives POSIX unnamed semaphores (sem_init, sem_wait, sem_trywait, "
     "sem_timedwait, sem_post, sem_getvalue, sem_destroy; a non-zero "
     "pshared is accepted, as a WASI program is one process); named "
     "semaphores (sem_open, sem_close, sem_unlink) fail with ENOSYS "
     "(docs/toolchain.md). Race reports list the mutexes, rwlocks and "
     "spin locks each access's thread held. Under check, a thread main "
     "never joins gets up to 0.5 s to end after main returns or calls "
     "exit, as it would natively have run (docs/check.md); a program "
     "that reads stdin gets its input from --stdin FILE of run, sweep, "
     "check and replay.\n"
     "Race annotations (docs/annotations.md): <dynamic_annotations.h> "
     "(TSan's Annotate* functions and the ANNOTATE_* macros), "
     "<sanitizer/tsan_interface.h> (__tsan_acquire, __tsan_release), "
     "<valgrind/helgrind.h> (VALGRIND_HG_DISABLE_CHECKING, "
     "VALGRIND_HG_CLEAN_MEMORY) and heisen's own <heisen/annotations.h> "
     "(HEISEN_*, nothing in a native build without TSan): benign races "
     "are left out of reports and counted, happens-before annotations "
     "order threads under check, ignore regions skip a thread's plain "
     "accesses, named threads are named in reports.\n"
     "POSIX surface (docs/porting.md): process-local signals (signal, "
     "sigaction, raise, kill to the program itself, pthread_kill run by "
     "the target at its next blocking call into the guest library, "
     "which wakes it; masks per thread; a signal with no handler ends "
     "the program with status 128 + sig); getpid (42) and getppid (1); "
     "chmod, fchmod, chown, fchown, lchown succeed on a file that exists "
     "and change nothing (WASI has no modes or owners); <sys/queue.h>; "
     "-latomic is accepted and dropped; setjmp and longjmp (lowered onto "
     "WebAssembly exception handling); thread stacks of 2 MiB (main: 8 "
     "MiB) whose overflow ends the run as a stack overflow naming the "
     "thread and function. The host's /usr/include is never "
     "searched: an #include <H> that wasm32-wasi lacks fails with one "
     "line naming H and why (<ucontext.h>: WASI has no user contexts), "
     "exit 2.\n"
     "Example: heisen cc -g -O1 -o app.wasm app.c && heisen run app.wasm\n"
     "SIMD: heisen cc -g -O2 -msimd128 -o app.wasm app.c vectorises loops "
     "into v128 loads, stores and arithmetic; each v128 access is one "
     "site of its true width (16 bytes for v128.load and v128.store). "
     "Relaxed SIMD (-mrelaxed-simd) is refused with exit 2.\n"
     "Needs the Debian packages clang, lld, wasi-libc and "
     "libclang-rt-14-dev-wasm32; HEISEN_CLANG names another compiler, "
     "HEISEN_WASI_SYSROOT another wasi-libc sysroot (default /usr).\n"
     "Exit status: 0 success; 2 if clang fails (its messages say why) "
     "or for -mrelaxed-simd; 3 if clang cannot be run or the toolchain or "
     "guest library is missing (the message names the package).",
     1, TUI_RAW_ARGS, cc_opts, tui_cmd_cc},
    {"instrument",
     "IN.wasm -o OUT.wasm [--static MASKFILE] [--all-memories] [--json]",
     "put a probe in front of every shared-memory access",
     "Validates IN.wasm and writes OUT.wasm with every load, store, "
     "atomic access and memory.copy/fill/init on a shared memory made a "
     "numbered site: before it the program calls the imported "
     "heisen.probe(address, site) when byte SITE of the imported "
     "heisen.mask memory is non-zero. The site table goes into a "
     "heisen.sites custom section; DWARF is kept and still describes the "
     "original code. With --static, only the sites listed in MASKFILE "
     "(decimal ids or ranges A-B, separated by spaces, commas or "
     "newlines; # starts a comment) are probed, always, and there is no "
     "mask.\n"
     "Prints e.g.\n"
     "  out.wasm: 120 sites (70 reads, 40 writes, 8 atomic, 2 range) on "
     "1 memory\n"
     "Exit status: 0 on success; 2 if IN.wasm is unreadable or invalid, "
     "already instrumented, has no shared memory (without "
     "--all-memories), MASKFILE names a site that does not exist, or -o "
     "is missing; 3 on an internal error.",
     1, 1, instrument_opts, tui_cmd_instrument},
    {"sites", "FILE.wasm [--all-memories] [--json]",
     "list the access sites of a module",
     "Lists the sites of FILE.wasm: its heisen.sites table if it is "
     "instrumented, otherwise the table 'heisen instrument' would give "
     "it. One row per site: id, kind (read, write, atomic-read, "
     "atomic-write, atomic-rmw, range-write), instruction (i32.load, "
     "v128.store...), width in bytes (16 for v128.load and v128.store), "
     "memory, function (its name-section name or func[N]), offset of the "
     "access in the original binary, and file:line:column from DWARF or "
     "-; then '(covered by N)' for a plain read that store N, later in "
     "the same straight stretch of code, covers: 'heisen check' leaves "
     "it unprobed and store N's probe checks it in its place.\n"
     "Exit status: 0 on success; 2 if FILE.wasm is unreadable, invalid, "
     "has a broken site table, or (not instrumented) has no shared "
     "memory; 3 on an internal error.",
     1, 1, sites_opts, tui_cmd_sites},
    {"sweep",
     "FILE.wasm [--densities LIST] [--runs N | --budget TIME] "
     "[--profiles LIST] [--jobs J] [--seed S] [--delay UNITS] "
     "[--timeout TIME] [--prune] [--db FILE] [--json] [--fail-on-bugs "
     "[new|any]] "
     "[--format sarif|junit|jsonl [--source-root DIR]] "
     "[--suppressions FILE] [--progress-fd FD] [--stdin FILE] "
     "[--schedule STRATEGY] [--dir HOST[::GUEST]]... [--env K=V]... "
     "[--max-threads N] [--max-memory SIZE] [-- ARGS...]  |  --resume "
     "CAMPAIGN [--jobs J] [--db FILE] [--format "
     "sarif|junit|jsonl] [--suppressions FILE] [--progress-fd FD]",
     "run a program many times under random probe masks, record races",
     "A campaign: FILE.wasm (instrumented on the fly when it is not, "
     "cached by hash) runs once per plan entry, each run in its own "
     "worker process under a fresh random mask of the cell's density "
     "and the cell's profile. Cells are density x profile; each round "
     "visits every cell once in a shuffled order, so a stopped campaign "
     "has covered its cells evenly. By default the runs are spread "
     "over every profile, 5 a cell (400 runs at the 20 default "
     "densities), because diversity finds more: in the simulation over "
     "the demos (docs/analysis.md), campaigns over the profiles and "
     "densities with a tenth of the recorded run time found 34.97 of 35 "
     "bugs against 33.87 for one profile at 100 %, and 33.35 against "
     "32.53 with a thirtieth; with a hundredth (about 12 runs), "
     "--densities 100 over the profiles found the most, 29.62 against "
     "28.82. Every run (node, "
     "profile, density, mask seed, duration, status, exit code, bugs) "
     "goes to the workspace database. A program that traps, exits "
     "non-zero, times out (a deadlock ends this way) or kills its "
     "worker is recorded with that status and the campaign goes on.\n"
     "Without --stdin a run's stdin is empty; --stdin FILE gives every "
     "run FILE's bytes (read once, at most 1 MiB), stored with the "
     "campaign so that --resume, rerun and replay read the same. "
     "--dir, --env, --max-threads and --max-memory are run's, and are "
     "recorded with the campaign too: --resume, rerun, replay and the "
     "TUI run the program in the same world (a granted directory by "
     "its absolute path).\n"
     "On a terminal a progress line shows runs done, runs/s, bugs and "
     "the time left, and each new bug is printed as it appears; "
     "otherwise the sweep is quiet until its summary. Ctrl-C stops it "
     "cleanly: finished runs are kept and 'heisen sweep --resume "
     "CAMPAIGN' runs the rest of the plan.\n"
     "With --progress-fd FD the sweep also writes one JSON object per "
     "line to FD, a descriptor its caller opened for writing (a pipe's "
     "write end, or e.g. 3>progress.jsonl in a shell): a start line "
     "once the campaign exists, a progress line about every 100 ms, a "
     "bug line per new bug, an end line (docs/json.md, "
     "heisen.progress/1). Those writes never hold up the sweep: "
     "progress lines are dropped while the reader lags, and a reader "
     "that goes away only ends the lines.\n"
     "The summary's bug list leaves out the bugs that a rule of the "
     "suppressions file matches (--suppressions FILE, else "
     "./.heisen-suppressions when it exists; judged as 'heisen bugs' "
     "judges them, docs/suppressions.md) and ends with a line counting "
     "them; their runs are recorded all the same. The terminal's new-bug "
     "lines leave them out too; --progress-fd's bug lines do not.\n"
     "With --format (sarif, junit or jsonl, as 'heisen help bugs' "
     "describes) stdout carries the bugs the campaign's runs detected, "
     "suppressed ones left out, for CI tools, instead of the summary; "
     "with jsonl a run line goes out (flushed) as each run is recorded, "
     "while the sweep goes on, then a bug line per bug and a summary "
     "line.\n"
     "Exit status: 0 when the plan or budget completed; 1 with "
     "--fail-on-bugs when the campaign found a bug that is not "
     "suppressed (with new: nor triaged confirmed or not-a-bug; a fixed "
     "bug that is back fails it); 2 on bad usage (an FD that is not "
     "open for writing or --format with --json included), an "
     "unreadable or invalid program, a suppressions file "
     "that cannot be read or has a bad line (the message names "
     "FILE:LINE), or a database that cannot be used; 3 on an internal "
     "error; 130 when stopped by Ctrl-C.",
     0, TUI_MAX_OPERANDS, sweep_opts, tui_cmd_sweep},
    {"check",
     "FILE.wasm [--runs N] [--profile NAME] [--jobs J] [--timeout TIME] "
     "[--db FILE] [--json] [--fail-on-bugs [new|any]] [--format "
     "sarif|junit|jsonl [--source-root DIR]] [--suppressions FILE] "
     "[--stdin FILE] "
     "[--dir HOST[::GUEST]]... [--env K=V]... [--max-threads N] "
     "[--max-memory SIZE] "
     "[-- ARGS...]",
     "find every race of a run by happens-before, as ThreadSanitizer does",
     "Runs FILE.wasm (instrumented on the fly when it is not, cached by "
     "hash) N times with every site probed (but the reads a later store "
     "of their stretch covers, which that store's probe checks: 'heisen "
     "help sites') and no delay, and tracks "
     "happens-before: a vector clock per thread, ordered only by what "
     "WebAssembly itself orders (atomics are sequentially consistent: "
     "a store or read-modify-write releases, a load or read-modify-write "
     "acquires; a spawned thread starts from its parent's clock), and a "
     "shadow record of the last write and reads of every 4 bytes of "
     "memory. Two accesses to the same bytes by different threads, one "
     "of them a write and not both atomic, that nothing orders are a "
     "race, whether or not they ever met in time: a race a sweep would "
     "need luck to see, check reports in one run. Each race is printed "
     "as ThreadSanitizer prints one (both accesses, threads, address, a "
     "SUMMARY line); the runs are recorded as a campaign of kind check, "
     "so that 'heisen bugs', 'show', the TUI and 'replay' see its bugs. "
     "A bug's detectability grid and heisen factor come from sweeps "
     "only: 'heisen sweep' the same program to measure how often it "
     "shows.\n"
     "When main returns or the program calls exit while threads it "
     "spawned are still alive (a thread main never joins), the end waits "
     "up to 0.5 s for them to end, so that they run what they would "
     "natively have run by then (docs/check.md). Without --stdin a run's "
     "stdin is empty; --stdin FILE gives every run FILE's bytes (read "
     "once, at most 1 MiB), stored with the campaign. --dir, --env, "
     "--max-threads and --max-memory are run's, recorded with the "
     "campaign so that replay and rerun use them again.\n"
     "A race that a rule of the suppressions file matches "
     "(--suppressions FILE, else ./.heisen-suppressions when it exists; "
     "docs/suppressions.md) is not printed: a race: rule on one of its "
     "sites, or a called_from: rule on a caller in the stacks of every "
     "run of the check that kept stacks for it. The report ends with a "
     "line counting such races and the rules that matched; the runs "
     "are recorded all the same.\n"
     "With --format (sarif, junit or jsonl, as 'heisen help bugs' "
     "describes) stdout carries the races not suppressed, as the bugs "
     "they are recorded as, for CI tools, instead of the reports; with "
     "jsonl a run line goes out as each run is recorded, then a bug line "
     "per race and a summary line.\n"
     "Exit status: 0 on success; 1 with --fail-on-bugs when a race not "
     "suppressed was found (with new: nor triaged confirmed or "
     "not-a-bug); 2 on bad usage (--format with --json included), an "
     "unreadable or invalid "
     "program, a suppressions file that cannot be read or has a bad "
     "line (the message names FILE:LINE), or a database that cannot be "
     "used; 3 on an internal error; 130 when stopped by Ctrl-C.\n"
     "With --schedule STRATEGY every run is serial (docs/schedules.md): "
     "one thread runs at a time and the strategy, seeded per run from "
     "the campaign seed (--schedule-seed), chooses which at every probe "
     "site, atomic, wait, notify, spawn, thread end and WASI call; clocks, "
     "random_get and timeouts are virtual. Each run is recorded with its "
     "schedule, so a race it found replays exactly ('heisen replay BUG "
     "--mode schedule'); see 'heisen help explore'.",
     1, TUI_MAX_OPERANDS, check_opts, tui_cmd_check},
    {"explore",
     "FILE.wasm [--strategy random[:P]|pct:D[:K]|chaos] [--runs N | --budget "
     "TIME] [--seed S] [--failure trap|exit:N|stdout:RE] [--jobs J] "
     "[--timeout TIME] [--stdin FILE] "
     "[--dir HOST[::GUEST]]... [--env K=V]... [--max-threads N] "
     "[--max-memory SIZE] "
     "[--db FILE] [--json] "
     "[--fail-on-bugs [new|any]] [--format sarif|junit|jsonl] "
     "[--suppressions FILE] [-- ARGS...]",
     "search thread schedules: serial runs under drawn schedules, every "
     "race and failure kept with its schedule",
     "Runs FILE.wasm (instrumented on the fly when it is not) N times "
     "serially, in worker processes: one thread at a time, with a "
     "scheduler choosing which thread runs at every probe site (every "
     "shared-memory access), atomic, wait, notify, spawn, thread end "
     "and WASI call, under the happens-before detector of 'heisen "
     "check'. Each run draws its schedule from the strategy with its own "
     "seed, derived from the campaign seed:\n"
     "  random:P   at each point, switch to another runnable thread with "
     "probability P (default 0.05)\n"
     "  pct:D[:K]  PCT: random thread priorities and D-1 priority change "
     "points drawn from the first K points (without K, one run of the "
     "program measures its points); a bug of depth D among n threads is "
     "found by a run with probability at least 1/(n K^(D-1))\n"
     "  chaos      rr's chaos mode: now and then a thread is starved (not "
     "run while another can) for a log-uniform span of up to 50 000 "
     "points, at most half the run\n"
     "Everything a program can observe that differs between runs comes "
     "from the schedule (virtual clocks, random_get, sched_yield, "
     "timeouts), so a run replays exactly from its decisions. Every race "
     "of every explored interleaving is recorded as a bug of the "
     "workspace with both stacks, in a campaign of kind explore, and each "
     "run with its schedule: strategy, seed, points, switches, digest, "
     "and the decisions of runs that found a race, failed or did not end "
     "ok. With --failure, runs that fail are counted and listed; 'heisen "
     "replay --run RUN --mode schedule' replays one, 'heisen replay BUG "
     "--mode schedule' a race. The report ends with the schedules' "
     "figures and, for pct, the bound PCT gives: after N runs that did "
     "not find it, the chance that a bug of depth D was missed, from the "
     "measured threads n and points K.\n"
     "Exit status: 0 on success; 1 with --fail-on-bugs when a race not "
     "suppressed or a failure was found; 2 on bad usage (a bad strategy "
     "or parameter, --runs with --budget, a bad --failure), an unreadable "
     "or invalid program, or a database that cannot be used; 3 on an "
     "internal error; 130 when stopped by Ctrl-C.",
     1, TUI_MAX_OPERANDS, explore_opts, tui_cmd_explore},
    {"rerun", "RUN [--db FILE] [--json] [--fail-on-bugs]",
     "run one recorded run again, exactly, and compare",
     "Runs run RUN of the workspace (an id from 'heisen runs CAMPAIGN') "
     "again as its campaign ran it: the program at the path recorded "
     "for it, with the campaign's arguments and stdin (empty unless it "
     "had --stdin), directories, environment and limits; the run's "
     "profile, density and mask seed over the campaign's site pool "
     "(its shared sites with --prune), so exactly the same sites are armed; "
     "the campaign's "
     "delay and timeout; the campaign's detector (collisions for a "
     "sweep, happens-before for check and explore); for a serial "
     "campaign (--schedule) its strategy seeded with the run's seed, so "
     "the run takes the recorded path again, which the comparing line "
     "says by the digest. The program's output goes to stdout (stderr "
     "with --json). Then heisen prints the result as 'heisen run "
     "--density' does, and a line comparing with the recording: "
     "recorded bugs caught again, missed, and new violations (bug ids "
     "where the workspace has the bug, site pairs otherwise), e.g.\n"
     "  rerun of run 57 (recorded: ok 0, bugs 3 5): caught again 1 of "
     "2 (3), missed 5; new 1: sites 117/121 (no bug yet)\n"
     "The rerun is not recorded in the database.\n"
     "Exit status: as 'heisen run --density': the program's own, 134 "
     "on a trap, 124 on the timeout; with --fail-on-bugs 1 when a "
     "violation was caught and the program exited 0; 2 if RUN is not "
     "a run id of the database, the database does not exist or cannot "
     "be used, or the program is gone or has changed since (its hash "
     "differs); 3 on an internal error.",
     1, 1, rerun_opts, tui_cmd_rerun},
    {"timeline",
     "BUG | --run RUN | FILE.repro PROGRAM.wasm [--force] [--from N] "
     "[--count M] [--thread T] [--at PLACE] [--watch ADDR[:W]] "
     "[--stack N] [--max-events N] [--db FILE] [--json]",
     "list the events of a serial run, step by step",
     "Replays a serial run's schedule (a bug found by explore or check "
     "--schedule: its first serial run; a run; or a schedule repro file "
     "with its program) once, exactly, and lists every scheduling point "
     "it passed as an event: its number, its thread, and what the thread "
     "was about to do: an access to shared memory (kind, width, address, "
     "the value there before it, function and line), a host call (WASI, "
     "by name), a wait, a notify, a spawn, a thread's end. The header "
     "names the schedule, how the run ended, and each race the "
     "happens-before detector found with the events of its two accesses "
     "(marked '!' in the list). --thread and --at list only some "
     "events; --watch adds the bytes at an address as they were at each "
     "event; --stack N runs the schedule again and prints event N's call "
     "stack. The same schedule gives the same events on every run "
     "(docs/debugger.md); 'heisen debug' shows them in the Timeline "
     "screen.\n"
     "Exit status: 0 when listed; 2 for an unknown bug or run, a race "
     "that no serial run found, a bad or foreign repro file (a program "
     "whose hash differs, without --force), a bad option; 3 on an "
     "internal error.",
     0, 2, timeline_opts, tui_cmd_timeline},
    {"debug", "BUG | --run RUN | FILE.repro PROGRAM.wasm [--force] [--db FILE]",
     "step through a serial run in the Timeline screen",
     "Opens the TUI on the Timeline screen of a serial run's schedule (a "
     "bug found by explore or check --schedule, a run, or a schedule "
     "repro file with its program; the bug screen's d key opens the same "
     "screen). The schedule is replayed once, exactly, and every "
     "scheduling point becomes a row in its thread's lane: accesses to "
     "shared memory with their values, host calls, waits, notifies, "
     "spawns, ends; the race's two accesses are marked and the bytes at "
     "its address are watched. Keys: Down/Up step forward and back, n/p "
     "the current thread's next and previous event, r the race's "
     "accesses, b a breakpoint at FILE:LINE, FUNCTION or site N and c/C "
     "run forward or back to it, s the current event's call stack, w "
     "watch an address, ? all keys (docs/debugger.md). 'heisen "
     "timeline' prints the same events for scripts.\n"
     "Exit status: 0 when closed; 2 without a terminal, for an unknown "
     "bug or run, a race no serial run found, a bad or foreign repro "
     "file; 3 on an internal error.",
     0, 2, debug_opts, tui_cmd_debug},
    {"bisect",
     "--fail RUN|FILE.repro (--pass RUN|FILE.repro | --seeds N) "
     "[PROGRAM.wasm] [--failure F] [--force] [--db FILE] [--json]",
     "find the one switch that decides between a failing and a passing run",
     "From a failing serial run and a passing one of the same program "
     "(found by explore; --seeds N looks for a passing one among N new "
     "seeds of the failing run's strategy), narrows the scheduling "
     "decisions where the two differ down to the one switch that flips "
     "the outcome: schedules that follow the failing run's decisions "
     "before a point and the passing run's after it are run in a binary "
     "search, one run each (serial runs are deterministic), 2 + "
     "ceil(log2 m) runs for m differing points. It prints the point, "
     "which thread runs next in each case, the access the thread at that "
     "point was about to make and the first access of another thread to "
     "the same bytes after it, both with their call stacks, and whether "
     "the two race (docs/debugger.md). Failing is the --failure given, "
     "else the failing run's campaign's, else its run's race or ending. "
     "PROGRAM.wasm is needed for repro files; runs name their own.\n"
     "Exit status: 0 when the switch was found; 1 when --seeds found no "
     "passing schedule; 2 for unknown runs, runs that were not serial, "
     "schedules of two programs, a failing schedule that passes or a "
     "passing one that fails, the same decisions twice, bad options; 3 "
     "on an internal error.",
     0, 1, bisect_opts, tui_cmd_bisect},
    {"replay",
     "BUG [--run RUN] | --run RUN | --file FILE.repro PROGRAM.wasm "
     "[--force]  [--mode pinned|minimal|trigger] [--runs N] [--jobs J] "
     "[--hold TIME] [--any-address] [--until-first] [--save FILE.repro] "
     "[--progress] [--stdin FILE] "
     "[--dir HOST[::GUEST]]... [--env K=V]... [--max-threads N] "
     "[--max-memory SIZE] "
     "[--db FILE] [--json]",
     "reproduce a logged race and measure how often it shows",
     "Runs the program of a race again and again (--runs, default 100, "
     "in worker processes as a sweep does) and counts the runs that "
     "detect the race's pair of sites: the reproduction rate, with a "
     "95 % Wilson interval, next to the detectability of the cell "
     "(profile, density) the race was logged in. Modes:\n"
     "  pinned   the exact mask of the detecting run (the bug's first, "
     "or --run), same profile, arguments and delay\n"
     "  minimal  only the race's two sites armed\n"
     "  trigger  the two sites armed with a concurrent breakpoint: a "
     "thread at one site on the race's logged address waits up to --hold "
     "for another thread at the other site on the same bytes, then both "
     "go on together, so the race happens (a wait ends by its deadline: "
     "never a deadlock)\n"
     "pinned and minimal say how often the race shows by itself; "
     "trigger forces it and is the default. --save writes a repro file "
     "(text, docs/replay.md): the program's hash, name and size, the "
     "sites, the mode, the mask (seed, density, pool, generator "
     "version), profile, arguments, stdin (the bytes themselves), "
     "directories, environment and limits, delay, "
     "hold and the rate measured. "
     "'heisen replay --file FILE.repro PROGRAM.wasm' replays it on any "
     "machine without a workspace; a program whose hash differs is "
     "refused unless --force. The runs read the campaign's or the file's "
     "stdin, --stdin FILE's bytes instead when given, or an empty stdin "
     "when there is none; likewise --dir, --env, --max-threads and "
     "--max-memory, each given replacing the recorded one. On a terminal a "
     "progress line counts the "
     "runs; Ctrl-C stops and reports what ran.\n"
     "Exit status: 0 when the race was reproduced at least once; 1 when "
     "it was not (a failed reproduction); 2 for an unknown bug or run, "
     "a run that did not detect BUG, a bad, truncated or future repro "
     "file, a changed or missing program, sites that do not exist in "
     "it; 3 on an internal error; 130 when stopped by Ctrl-C.",
     0, 1, replay_opts, tui_cmd_replay},
    {"minimize",
     "PROGRAM.wasm --failure trap|exit:N|stdout:REGEX [--groups L] "
     "[--repeat R] [--budget TIME] [--seed S] [--delay UNITS] "
     "[--profile NAME | --schedule STRATEGY] [--timeout TIME] [--jobs J] "
     "[--baseline N] [--save FILE.repro] [--stdin FILE] "
     "[--dir HOST[::GUEST]]... [--env K=V]... [--max-threads N] "
     "[--max-memory SIZE] "
     "[--json] [-- ARGS...]",
     "find the few delay sites that make a program fail",
     "For a failure rather than a race (a trap, an exit code, an output "
     "pattern that shows now and then), finds a small set of sites "
     "whose delays elicit it: iterative group sampling (Tzoref et al.; "
     "docs/replay.md). Each iteration splits the candidate sites at "
     "random into L groups, runs every combination of groups but none "
     "and all (R runs each, delays at the armed sites as in a sweep), "
     "and drops the groups that elicited the failure least: those "
     "significantly below the others (p < 1e-6), else those with the "
     "fewest failures. Below L sites, every subset is tried and the "
     "best kept; the set is then run 20 times for its failure rate. "
     "Progress goes to stderr, an iteration a line. --baseline N runs "
     "N random subsets of the same size, to compare. --save writes a "
     "repro file that 'heisen replay --file' replays (mode failure). "
     "Without --stdin a run's stdin is empty; --stdin FILE gives every "
     "run FILE's bytes, and the repro file carries them, as it does "
     "--dir, --env, --max-threads and --max-memory (run's). "
     "--schedule STRATEGY runs every run serially, as 'sweep "
     "--schedule' does: an armed site's delay lets the other threads "
     "run --delay points of virtual time, and nothing else switches "
     "threads but the strategy at armed sites, host calls, waits, "
     "spawns and ends; so a failure that needs an interleaving shows "
     "only when sites that make it are armed, whatever the machine's "
     "load. Each run's schedule is drawn from --seed; the repro file "
     "records the strategy and replays serially.\n"
     "Exit status: 0 when a set was found; 1 when none was (the "
     "failure never showed, or the budget ran out first); 2 for bad "
     "usage or an unreadable or invalid program; 3 on an internal "
     "error; 130 when stopped by Ctrl-C.",
     1, TUI_MAX_OPERANDS, minimize_opts, tui_cmd_minimize},
    {"synthesize",
     "REPORT PROGRAM.wasm | --failure WHAT PROGRAM.wasm  [--index N] "
     "[--at FUNCTION|FILE:LINE] [-o FILE.repro] [--budget TIME] [--seed S] "
     "[--timeout TIME] [--stdin FILE] [--db FILE] [--json] [-- ARGS...]",
     "find an execution that makes a reported race or failure happen",
     "Execution synthesis (after ESD, docs/debugger.md#synthesis): from a "
     "bug report, searches serial executions of PROGRAM.wasm for one that "
     "makes the bug happen, and keeps it as a schedule that replays "
     "exactly. REPORT is a file holding ThreadSanitizer's report of a "
     "native build of the same source (its 'WARNING: ThreadSanitizer: data "
     "race' blocks as printed; several: the first, or --index N) or "
     "heisen's own race report text, or a bug id of the workspace; with "
     "--failure there is no REPORT, the program must fail that way "
     "(--at: in that function, or at that line's function for a trap). "
     "Each access of the report maps to the program's probe sites through "
     "DWARF: the first frame whose file base name and line the program "
     "has, else the first whose function it has. Runs are serial, under "
     "the happens-before detector: first a concurrent breakpoint holds a "
     "thread about to access one of the two lines until another thread is "
     "about to access the other at the same address (released after 4 000 "
     "points, when the other thread has spun 1 000 points in a row, or "
     "when it is the only thread that can run), at the first "
     "to the eighth reach of the lines; then PCT and chaos with new seeds. "
     "The first run whose race is on the same two lines (or that fails as "
     "asked) is the result: its schedule is shrunk (as replay --save "
     "does), written with -o as a repro file of mode schedule ('heisen "
     "replay --file FILE.repro PROGRAM.wasm' replays it) and recorded in "
     "the workspace as a one-run campaign of kind explore, with the bug. "
     "On a terminal a progress line shows the runs tried and the best "
     "match so far.\n"
     "Exit status: 0 when found; 1 when the budget was spent first (what "
     "came closest is printed); 2 on bad usage, a file that is not a race "
     "report (binary, cut short, no frames), a report whose lines are not "
     "in the program (naming them), a bug of another program, a budget of "
     "0; nothing is written to the workspace then; 3 on an internal "
     "error; 130 when stopped by Ctrl-C.",
     1, TUI_MAX_OPERANDS, synthesize_opts, tui_cmd_synthesize},
    {"mask", "save RUN -o FILE [--db FILE]",
     "write the exact mask of a recorded run to a mask file",
     "Regenerates the mask run RUN ran under (its seed and density over "
     "its campaign's site pool) and writes the armed site ids to FILE, "
     "as ranges after comment lines naming the run and program. 'heisen "
     "run PROGRAM.wasm --mask FILE' arms exactly those sites again; "
     "'heisen instrument --static FILE' probes only them.\n"
     "Exit status: 0; 2 for an unknown run, a database that cannot be "
     "used or a file that cannot be written; 3 on an internal error.",
     2, 2, mask_opts, tui_cmd_mask},
    {"shared",
     "FILE.wasm [--runs N] [--jobs J] [--timeout TIME] [--json] "
     "[-- ARGS...]",
     "list the sites that touch memory shared between threads",
     "Runs FILE.wasm N times with every site armed and the paper's "
     "Algorithm 2 as the probe: a site is shared when an address it "
     "accessed was also accessed by another thread during the run. "
     "Prints the union over the runs; 'heisen sweep --prune' arms only "
     "these sites.\n"
     "Exit status: 0 on success; 2 if FILE.wasm is unreadable, invalid, "
     "or no run finished normally; 3 on an internal error.",
     1, TUI_MAX_OPERANDS, shared_opts, tui_cmd_shared},
    {"campaigns", "[--db FILE] [--json]",
     "list the campaigns in the workspace database",
     "Lists every campaign of the workspace database, newest first: id, "
     "program, when it was created (local time), status (running, "
     "stopped, done, or interrupted: marked running but its sweep "
     "process on this machine is gone, killed or lost with the "
     "machine; 'heisen sweep --resume' continues it), runs recorded out of the "
     "plan (done/- for a time "
     "budget, whose plan is open-ended), cells (profile x density pairs "
     "with at least one run), distinct bugs found, densities (in "
     "percent) and profiles, as given to 'heisen sweep'.\n"
     "The database is --db FILE, else $HEISEN_DB, else ./heisen.db; "
     "this command and runs, bugs and show read it and never create "
     "one.\n"
     "Exit status: 0 on success; 2 if the database does not exist, "
     "cannot be read, is not a heisen database or is from a newer "
     "heisen; 3 on an internal error.",
     0, 0, campaigns_opts, tui_cmd_campaigns},
    {"runs", "CAMPAIGN [--bug BUG] [--db FILE] [--json]",
     "list the runs of a campaign",
     "Lists the recorded runs of campaign CAMPAIGN (an id from 'heisen "
     "campaigns') in plan order: run id, plan index, profile, density, "
     "mask seed (hex: with the density and the program it regenerates "
     "the run's mask), duration in milliseconds, number of bugs "
     "detected, and status: ok, exit with the exit code, trap, limit or "
     "error with the message, timeout, crash. With --bug, only the runs "
     "of the campaign that detected bug BUG.\n"
     "Exit status: 0 on success; 2 if CAMPAIGN or BUG is not in the "
     "database (\"no campaign 12 in heisen.db\") or the database cannot "
     "be used; 3 on an internal error.",
     1, 1, runs_opts, tui_cmd_runs},
    {"bugs",
     "[--program P] [--db FILE] [--json | --format sarif|junit|jsonl "
     "[--source-root DIR]] [--fail-on-bugs [new|any]] "
     "[--suppressions FILE] [--show-suppressed]",
     "list the races found, most often detected first",
     "Lists the bugs recorded in the workspace database, of every "
     "program or of program P: a bug is an unordered pair of racing "
     "sites. One row per bug: id, program, kinds (R read, W write, A "
     "atomic, one letter per site: W/R is a write racing a read), runs "
     "that detected it, when it was first seen (local time), and both "
     "sites as 'function file:line' from DWARF ('?' for what is not "
     "known). 'heisen show BUG' tells more about one.\n"
     "The state column is the bug's triage ('heisen triage'): new until "
     "someone decides. With --program NAME (a file name rather than an "
     "id or hash) the list spans every build of that name: bugs of "
     "different builds with the same signature (their sites' functions, "
     "files, lines counted from the function's start, and columns) are "
     "one row, the newest build's bug, with a column of the builds that "
     "had it and runs summed over them.\n"
     "Suppressions (--suppressions FILE, else ./.heisen-suppressions "
     "when it exists; docs/suppressions.md): a bug is suppressed when a "
     "race: rule matches one of its sites (function, file, or "
     "FILE:LINE), or when runs kept call stacks for it and a rule "
     "matches the stacks of every such run (called_from:FUNCTION, a "
     "caller's name). Suppressed bugs are left out and counted in a "
     "line at the end, with the rules that matched; --show-suppressed "
     "lists them too, in a first column 'suppressed' naming the rule "
     "('-' for the others).\n"
     "--format writes the list for CI tools instead (docs/triage.md, "
     "'Machine output for CI'): sarif, a SARIF 2.1.0 log of one run with "
     "a result per bug (error; note when triaged not-a-bug): the first "
     "access as its location, the other as related location, both call "
     "stacks as thread flows, the signature as partial fingerprint "
     "heisenSignature/v1; source files as absolute file: URIs, or under "
     "--source-root DIR relative to it (uriBaseId SRCROOT). junit, JUnit "
     "XML: a test case per program (each program that ran a campaign, "
     "or P), a failure per bug with its race report; a program without "
     "bugs passes. jsonl, a heisen.event/1 line per bug and a summary "
     "line (docs/json.md). Suppressed bugs are left out and counted (the "
     "SARIF run's and the JUnit suite's properties, the summary line); "
     "--show-suppressed does not combine with --format.\n"
     "Exit status: 0 on success; 1 with --fail-on-bugs when a listed bug "
     "is not suppressed (for CI; with new: nor triaged confirmed or "
     "not-a-bug); 2 on bad usage (--format with --json or "
     "--show-suppressed), if P matches no program, "
     "the suppressions file cannot be read or has a bad line (the "
     "message names FILE:LINE), or the database does not exist or "
     "cannot be used; 3 on an internal error.",
     0, 0, bugs_opts, tui_cmd_bugs},
    {"show", "BUG [--db FILE] [--json]", "show one bug in detail",
     "Shows bug BUG (an id from 'heisen bugs'): its program, its race "
     "report (both accesses with their stacks, the value when it "
     "changed; as check and run print races) from a run that kept both "
     "call stacks, the first whose value changed, else the first; and "
     "for "
     "each of its two sites the id, kind, function and file:line, with "
     "two lines of source on each side and the racing line marked '>' "
     "when the file can be read: at the path DWARF recorded, else its "
     "base name in the current directory, else in the program's "
     "directory. Then up to 5 runs that detected it (run, campaign, "
     "profile, density, mask seed, the two threads and addresses), and "
     "the detections per cell: a row per profile (and node, when runs "
     "came from several), a column per density, each cell K/N: K of the "
     "N runs of that cell detected the bug.\n"
     "Exit status: 0 on success; 2 if BUG is not in the database or the "
     "database cannot be used; 3 on an internal error.",
     1, 1, show_opts, tui_cmd_show},
    {"triage", "BUG [STATE] [--note TEXT] [--db FILE] [--json]",
     "mark a bug new, confirmed, fixed or not-a-bug",
     "Records a decision on bug BUG: STATE is new (nobody looked yet; "
     "every bug starts so), confirmed (a real race, to fix), fixed (the "
     "fix is in: a later detection is a regression) or not-a-bug "
     "(intended or harmless), with an optional note and the time. "
     "Without STATE, prints the bug's state and every decision so far. "
     "A decision belongs to the bug's signature within programs of its "
     "name, so it holds for the same race in every build, earlier and "
     "later: rebuild, sweep again, and the bug arrives triaged. "
     "'heisen bugs' shows the states; '--fail-on-bugs new' lets "
     "confirmed and not-a-bug bugs pass.\n"
     "Exit status: 0 on success; 2 if BUG is not in the database, STATE "
     "is not one of the four, or the database cannot be used; 3 on an "
     "internal error.",
     1, 2, triage_opts, tui_cmd_triage},
    {"diff", "CAMPAIGN_A CAMPAIGN_B [--db FILE] [--json]",
     "compare the bugs of two campaigns: new, gone, persisting",
     "Compares the bugs that the runs of CAMPAIGN_A and CAMPAIGN_B "
     "detected (typically two builds of a program, A the older), "
     "matching them by signature, so the same race in a rebuilt "
     "program is the same bug. Three sections, each a list like "
     "'heisen bugs' prints: new (in B, not in A), gone (in A, not in "
     "B: fixed, or not detected this time: compare the run counts) and "
     "persisting (in both; listed with B's ids).\n"
     "Exit status: 0 on success; 2 if a campaign is not in the database "
     "or the database cannot be used; 3 on an internal error.",
     2, 2, diff_opts, tui_cmd_diff},
    {"export", "[--since CURSOR] [--all-campaigns] [--db FILE] [-o FILE]",
     "write the workspace's runs as a stream another workspace imports",
     "Writes the runs of the workspace database with an id above CURSOR, "
     "and their campaigns, programs, nodes and bugs, as one binary "
     "stream (versioned, length-prefixed, checksummed; docs/sync.md) to "
     "stdout or FILE, for 'heisen import' in another workspace. Then "
     "prints 'heisen export: N runs, cursor C' on stderr: give C to "
     "--since next time to send only newer runs. It refuses to write to "
     "a terminal.\n"
     "Exit status: 0 on success; 2 if the database does not exist or "
     "cannot be read, CURSOR is not a number, stdout is a terminal or "
     "FILE cannot be written; 3 on an internal error.",
     0, 0, export_opts, tui_cmd_export},
    {"import", "FILE|- [--db FILE] [--json]",
     "add the records of an export stream to the workspace",
     "Reads a stream written by 'heisen export' from FILE (- for stdin) "
     "and adds its records to the workspace database in one "
     "transaction. Records already there are matched, not doubled: "
     "nodes by machine, programs by hash, campaigns by where they were "
     "made, runs by campaign and plan index, bugs by program and site "
     "pair, so importing a stream twice adds nothing. Runs keep the node "
     "that ran them. The whole stream is checked first (format version, "
     "lengths, record count, checksum) and every field as it is added: a "
     "truncated, corrupt or newer stream is refused, naming the byte, "
     "and nothing is imported. Prints 'heisen import: N runs added (M "
     "campaigns, K bugs new) from FILE'.\n"
     "Exit status: 0 on success; 2 if FILE cannot be read, the stream is "
     "not a heisen export, is truncated, corrupt or from a newer heisen, "
     "or the database cannot be used; 3 on an internal error.",
     1, 1, import_opts, tui_cmd_import},
    {"fetch", "NAME...|--all [--timeout TIME] [--wait] [--db FILE] [--json]",
     "bring the new records of remote nodes into the workspace",
     "For each node named (or every node with --all), runs 'heisen "
     "export --since CURSOR' in the node's workspace over ssh (or "
     "$HEISEN_SSH), CURSOR being where the last fetch from it ended, and "
     "imports the stream as 'heisen import' does: checked whole before "
     "anything is added, in one transaction with the node's new cursor, "
     "so that a fetch cut short adds nothing and the next one starts "
     "where the last good one ended, and a repeated fetch adds nothing. "
     "Runs keep the node that ran them: grids show each node as its own "
     "row. On a terminal, a progress line shows the bytes received. "
     "Prints 'NAME: N runs added (M campaigns, K bugs new), cursor C' "
     "per node. From a Slurm node, each finished array task's workspace "
     "file is imported the same way, in a transaction of its own: a "
     "damaged one is refused (exit 1) and the others imported; the "
     "slices already home are not asked for again. With --wait, a "
     "Slurm node is fetched again as its tasks end (at once when a "
     "task's export appears in a folder on this machine, else after "
     "0.05 s, doubling to 1 s, 5 s through ssh) until none is pending "
     "or running: 'dispatch' then 'fetch --wait' brings a whole "
     "campaign home, exit 1 when --timeout (default 10m) passes "
     "first.\n"
     "Exit status: 0 when every node was fetched; 1 when a node could "
     "not be reached or sent a stream that was refused (the message "
     "says why; nothing was imported from it); 2 on bad usage, an "
     "unknown node or a workspace that cannot be used; 3 on an internal "
     "error.",
     0, TUI_MAX_OPERANDS, fetch_opts, tui_cmd_fetch},
    {"dispatch",
     "NAME... PROGRAM.wasm [sweep options] [--db FILE] [--json] [-- "
     "ARGS] | NAME --resume CAMPAIGN",
     "start a sweep of a program on remote nodes",
     "Sends PROGRAM.wasm (the first operand ending in .wasm; the ones "
     "before it name the nodes) to each node, by hash, so a node that "
     "has it is not sent it again ('heisen node receive' stores it "
     "beside the node's workspace, in heisen-programs/HASH/), then "
     "starts 'heisen sweep' on it there with the sweep options given "
     "and the program's ARGS, detached ('heisen node start': its own "
     "session, output to heisen-dispatch.log beside the workspace), so "
     "that it runs on after the ssh session ends. Returns at once. "
     "'heisen node status NAME' shows the node's campaigns, 'heisen "
     "fetch NAME' brings the runs home. On a Slurm node (docs/slurm.md) "
     "the campaign is made here and its plan submitted as one sbatch "
     "--array job of the node's --tasks slices, task I running 'heisen "
     "sweep --plan-slice I/N --origin ...' into a workspace file of its "
     "own in the node's shared directory, then taking the slices of "
     "tasks Slurm has not started yet (each slice still its own file); "
     "'dispatch NAME --resume "
     "CAMPAIGN' submits again the slices with plan indices missing here "
     "whose task no longer runs.\n"
     "Exit status: 0 when the sweep started on every node; 1 when a node "
     "could not be reached or refused (the message says why); 2 on bad "
     "usage, an unknown node or an unreadable program; 3 on an internal "
     "error.",
     1, TUI_MAX_OPERANDS, dispatch_opts, tui_cmd_dispatch},
    {"node",
     "add NAME URL | list | remove NAME | check NAME | status NAME | "
     "self",
     "register the remote machines (nodes) a workspace works with",
     "A node is a heisen workspace on another machine, reached with ssh "
     "(docs/nodes.md). 'node add NAME ssh://[user@]host[:port]/path' "
     "registers one: NAME is letters, digits, '.', '_' and '-', the "
     "path the absolute path of the workspace database on the node; a "
     "name or URL with any other character is refused. 'node list' "
     "shows them, 'node remove NAME' forgets one. 'node check NAME' "
     "runs 'heisen node self --json' on the node through ssh (or the "
     "words of $HEISEN_SSH), one argument per word, never a local "
     "shell, with BatchMode so it never asks for a password, and "
     "reports whether it answered and its heisen version, architecture "
     "and cores, or the transport's last error line. 'node status NAME' "
     "shows the campaigns of the node's workspace ('heisen campaigns' "
     "run there). 'node self' prints what this machine is. 'node "
     "receive' and 'node start' are the node's side of 'heisen "
     "dispatch', 'node tasks DIR LIST [--ended | --claims JOB]' the "
     "cluster's side of fetching from a Slurm node. See also 'heisen fetch'.\n"
     "Exit status: 0 on success (check: the node answered); 1 if check "
     "or status found the node unreachable; 2 on bad usage, a bad name "
     "or URL, a duplicate or unknown node, or a database that cannot be "
     "used; 3 on an internal error.",
     1, TUI_MAX_OPERANDS, node_opts, node_cmd},
    {"factor",
     "[BUG] [--samples M] [--seed S] [--prior pooled|paper] [--db FILE] "
     "[--json]",
     "how much a bug's observability swings with the environment",
     "The heisen factor F of bug BUG, or of every bug, most heisen first "
     "(the paper's section 5.2; docs/analysis.md): the coefficient of "
     "variation of the bug's observability X = Y/Phi over its cells "
     "(node, profile, density), where Y = K/N is the share of a cell's "
     "runs that detected it and Phi the chance the mask armed its "
     "probes (density squared for two sites, density for one). F near "
     "0: the bug shows as often everywhere, once its probes are armed; "
     "F of 1 and more: it depends on where it runs. Estimated by M "
     "Monte-Carlo draws of each cell's Y from its Beta posterior, "
     "truncated to Y <= Phi, reported as the mode of a kernel density "
     "of the draws with a 90 % interval; the naive F of K/(N Phi) is "
     "printed beside it. The prior (--prior): pooled, the default, has "
     "the bug's pooled observability as its mean and lets the data "
     "weigh how far cells may differ, so that a rare bug's 0, 1 or 2 "
     "detections per cell do not pass for a heisenbug; paper is the "
     "paper's Beta(alpha, 1) with the bug's detecting fraction as its "
     "mean, which measured larger than the naive F on such a bug "
     "(docs/analysis.md). A bug with fewer than 10 detections is "
     "marked: read its interval, not its F.\n"
     "Exit status: 0; 2 for an unknown bug, a bad option or a database "
     "that cannot be used; 3 on an internal error.",
     0, 1, factor_opts, tui_cmd_factor},
    {"grid", "BUG [--csv | --json] [--db FILE]",
     "a bug's detections per node, profile and density",
     "The detectability grid of bug BUG: a row per (node, profile), a "
     "column per density, each cell K/N (K of the cell's N runs "
     "detected it). On a terminal the cells are coloured by K/N against "
     "the bug's best cell (as the paper's Fig. 11), unless NO_COLOR is "
     "set, and a grid wider than the terminal folds into blocks of "
     "densities. --csv and --json give every cell with its "
     "detectability Y = K/N, Phi (density squared for two sites, "
     "density for one) and observability X = Y/Phi.\n"
     "Exit status: 0; 2 for an unknown bug, --csv with --json, or a "
     "database that cannot be used; 3 on an internal error.",
     1, 1, grid_opts, tui_cmd_grid},
    {"simulate",
     "[--program P] [--budget TIME] [--strategies LIST] [--profile NAME] "
     "[--trials N] [--seed S] [--db FILE] [--json]",
     "which sweep strategy finds most bugs for a compute budget",
     "Replays the program's recorded runs as campaigns of a given "
     "budget of run time (the paper's section 5.4): a simulated "
     "campaign draws cells of its strategy at random, then one of a "
     "cell's recorded runs, until the runs' recorded durations use up "
     "the budget, and counts the distinct bugs they detected. "
     "Strategies: homogeneous (density 100 % on one profile), density "
     "(every density on that profile), profile (100 % on every profile "
     "and node), both (every cell). Prints per strategy the cells, runs "
     "a campaign gets, and the bugs found (mean, 5th and 95th "
     "percentile over the trials), then each bug's chance to be found "
     "under each strategy. Runs at lower densities are cheaper, so "
     "density diversity buys more runs for the same budget.\n"
     "Exit status: 0; 2 for an unknown program or strategy, a profile "
     "without runs, several programs without --program, or a database "
     "that cannot be used; 3 on an internal error.",
     0, 0, simulate_opts, tui_cmd_simulate},
    {"plot",
     "grid BUG | factor | simulate  -o FILE.svg [--db FILE] [the "
     "options of factor or simulate]",
     "draw a grid, the factors or a simulation as SVG",
     "Writes a standalone SVG that a browser opens and a report can "
     "embed: 'plot grid BUG' the bug's detections K/N per (node, "
     "profile) and density, each cell coloured by K/N against the best "
     "one (as heisen grid); 'plot factor' every bug's heisen factor with "
     "its 90 % interval and the naive estimate (as heisen factor); 'plot "
     "simulate' the bugs found per strategy, mean and 5-95 % (as heisen "
     "simulate, with its options). Each cell, bug and strategy carries "
     "its numbers as data- attributes.\n"
     "Exit status: 0; 2 for a bad kind or option, an unknown bug or "
     "program, a file that cannot be written or a database that cannot "
     "be used; 3 on an internal error.",
     1, 2, plot_opts, tui_cmd_plot},
    {"profiles", "[--json]", "list the execution profiles",
     "Lists the execution profiles 'heisen sweep --profiles' accepts: "
     "each is a regime for the program's threads on this machine (one "
     "core, throttled, background load...), standing in for the "
     "diversity of devices a race depends on. One line each: name and "
     "what it does.\n"
     "Exit status: 0.",
     0, 0, profiles_opts, tui_cmd_profiles},
    {"shell", "[--db FILE]",
     "an interactive command line: editing, history, completion",
     "Reads commands at a 'heisen> ' prompt and runs each line as a "
     "script line: the same words, quotes, comments, ';' and 'set' "
     "defaults. --db FILE starts with 'set db FILE' (the prompt then "
     "shows the file's name). A failed command prints its message and "
     "the prompt comes back. 'quit' or 'exit' on its own line, or Ctrl-D "
     "on an empty line, leaves. When standard input is not a terminal, "
     "its lines run as they come, without prompt, editing or history, "
     "until its end.\n"
     "Keys: Tab completes command names, options, file names, bug, run "
     "(of the newest campaign) and campaign ids from the workspace "
     "database (never creating it), setting names and profile names; Up "
     "and Down walk the history; "
     "Ctrl-R searches it; Ctrl-C clears the line, or stops a running "
     "sweep and returns to the prompt (during other commands it ends "
     "heisen, as from a shell).\n"
     "History: the last 1000 lines, in $XDG_STATE_HOME/heisen/history "
     "(default ~/.local/state/heisen/history); a line starting with a "
     "space or repeating the one before is not kept. When the file "
     "cannot be written, one warning says so and the shell goes on.\n"
     "Exit status: 0; 2 inside a script or another shell.",
     0, 0, shell_opts, tui_cmd_shell},
    {"tui", "[--db FILE]", "the full-screen interface (also plain 'heisen')",
     "Opens the workspace in a full-screen terminal interface: the "
     "campaigns, a form to start a sweep and its live progress (runs, "
     "runs/s, bugs, ETA; S stops it, R resumes a stopped campaign), the "
     "bugs with their heisen factor and class (sortable, / filters; "
     "computed in the background), a bug's sites with source context, "
     "its heisen factor and its detections table (K/N runs per profile "
     "and density, coloured by K/N), a replay of it (p) and a repro "
     "file (w), a campaign's runs, one run's violations, and an exact "
     "rerun of a run (x). ':' takes any heisen command, with Tab "
     "completion; '?' lists the keys of the screen. 'heisen' with no "
     "arguments on a terminal opens it on ./heisen.db or $HEISEN_DB.\n"
     "Sweeps, reruns and ':' commands run in child processes, so the "
     "interface stays responsive and a failing command cannot break the "
     "screen. Quitting (q on the first screen, Q, Ctrl-C) stops a "
     "running sweep first, so that every finished run is recorded. "
     "NO_COLOR turns colours off. Works from 80x24 up; resizing is "
     "followed. HEISEN_TUI_STATS=FILE makes it time itself and write, "
     "when it ends, how long each turn of its loop kept keys waiting "
     "and how long a key took to reach the screen (make bench reads "
     "it).\n"
     "Exit status: 0; 2 when standard input or output is not a terminal "
     "or the database cannot be used.",
     0, 0, tui_opts, tui_cmd_tui},
    {"completion", "bash | --line LINE", "print the bash completion script",
     "'heisen completion bash' prints a bash completion script for "
     "heisen: 'source <(heisen completion bash)' loads it in the "
     "running shell, and make install installs it where bash-completion "
     "finds it. Tab then completes what 'heisen shell' completes: "
     "commands, options, file names, profile and setting names, and "
     "bug, run and campaign ids from the workspace (--db on the line, "
     "else $HEISEN_DB or ./heisen.db, never creating it). The script "
     "asks the heisen being completed, with --line: 'heisen completion "
     "--line \"heisen sweep --pro\"' prints --profiles.\n"
     "Exit status: 0; 2 for another shell or extra words.",
     0, 1, completion_opts, tui_cmd_completion},
    {"set", "[NAME VALUE]", "give later commands of a script a default option",
     "In a script or at the command line (not as 'heisen set' from a "
     "shell: exit 2), 'set NAME VALUE' makes every later command that "
     "takes option --NAME use VALUE when it does not give --NAME itself; "
     "'set' alone lists the settings as set lines, 'unset NAME' removes "
     "one. Names: db (--db), delay (--delay), jobs (--jobs), timeout "
     "(--timeout), profiles (--profiles), densities (--densities), seed "
     "(--seed). A setting goes only where it fits: run takes seed and "
     "delay only with --density or --mask, and 'sweep --resume' only db "
     "and jobs. run and sweep read --timeout alike (30, 30s, 10m).\n"
     "Example script:\n"
     "  set db /tmp/w.db; set densities 10:50:10\n"
     "  sweep app.wasm --runs 4\n"
     "  bugs --json\n"
     "Exit status: 0; 2 for a name that cannot be set or outside a "
     "script.",
     0, 2, no_opts, tui_cmd_set},
    {"unset", "NAME", "remove a default set with 'set'",
     "Removes setting NAME (see 'heisen help set'); later commands use "
     "their own defaults again.\n"
     "Exit status: 0; 2 for a name that cannot be set or outside a "
     "script.",
     1, 1, no_opts, tui_cmd_unset},
    {NULL, NULL, NULL, NULL, 0, 0, NULL, NULL},
};
