#!/usr/bin/env bash
# `heisen import FILE.db` of a hostile workspace (issue 31): a copy of a
# real sweep's workspace, damaged one way at a time (a missing table or
# column, values of the wrong type, ids that point nowhere or do not fit,
# oversized and malformed site and stack texts, a future schema version),
# and files that are not workspaces at all. Each is refused with exit 2
# and a message naming the problem, and the target workspace is left as
# it was: the same rows in every table and PRAGMA integrity_check ok.
. "$(dirname "$0")/lib.sh"
unset HEISEN_DB
need_demos
b=$root/demos/build
good=$dir/good.db
T=$dir/t.db

sweep() { # WASM DB SEED
	"$HEISEN" sweep "$1" --db "$2" --densities 50:100:50 --runs 2 \
		--profiles default --seed "$3" >"$dir/sweep.out" 2>&1 ||
		[ $? -eq 1 ] || bad "sweep into $2: $(snippet "$dir/sweep.out")"
	sqlite3 "$2" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
}
sweep "$b/fibonacci.wasm" "$good" 7
sweep "$b/antidep.wasm" "$T" 3
[ "$(sqlite3 "$good" "SELECT count(*) FROM stacks")" -gt 0 ] ||
	bad "the source workspace has no call stacks to damage"

# Every table's row count, and the integrity check, on one line.
state() {
	local t out
	out=$(sqlite3 "$T" "PRAGMA integrity_check")
	for t in $(sqlite3 "$T" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
		out="$out $t=$(sqlite3 "$T" "SELECT count(*) FROM \"$t\"")"
	done
	echo "$out"
}
before=$(state)
case $before in ok\ *) ;; *) bad "target workspace not sound to begin with: $before" ;; esac

# refused NAME ERE FILE: import FILE into T must exit 2 with a message
# matching ERE and leave T as it was.
refused() {
	hq "$1" import "$3" --db "$T"
	want "$1" 2
	grep -Eq -- "$2" "$dir/$1.err" ||
		bad "$1: message does not say '$2': $(snippet "$dir/$1.err")"
	[ "$(state)" = "$before" ] || bad "$1: the target changed: $(state)"
}
# damaged NAME ERE SQL: a copy of the good workspace with SQL applied.
damaged() {
	local h=$dir/$1.db
	cp "$good" "$h"
	sqlite3 "$h" "$3" >"$dir/$1.sql.err" 2>&1 ||
		{ bad "$1: could not damage the copy: $(snippet "$dir/$1.sql.err")"; return; }
	refused "$1" "$2" "$h"
}

first_bug=$(sqlite3 "$good" "SELECT min(id) FROM bugs")
rb="run_id = (SELECT min(run_id) FROM run_bugs) AND bug_id = (SELECT min(bug_id) FROM run_bugs WHERE run_id = (SELECT min(run_id) FROM run_bugs))"

# --- missing tables and columns ----------------------------------------------
damaged no-table 'no such table: run_bugs' "DROP TABLE run_bugs"
damaged no-stacks 'no such table: (main\.)?stacks' "DROP TABLE stacks"
damaged no-column 'no column named msg|no such column: msg' "ALTER TABLE runs DROP COLUMN msg"

# --- values of the wrong type --------------------------------------------------
damaged text-time 'run [0-9]+: started is not a number' "UPDATE runs SET started = 'yesterday'"
damaged blob-int 'run [0-9]+: duration_us is not an integer' "UPDATE runs SET duration_us = x'0102'"
damaged real-int 'run [0-9]+: density_bp is not an integer' "UPDATE runs SET density_bp = 5.5"
damaged text-blob 'campaign [0-9]+: density_bp is not a blob' "UPDATE campaigns SET density_bp = 'half'"
damaged text-site "bug $first_bug: site_a is not an integer" "UPDATE bugs SET site_a = 'x' WHERE id = $first_bug"
damaged bad-hash 'program [0-9]+: hash is not 16 hex digits' "UPDATE programs SET hash = 'zz'"
damaged null-text 'missing \(null\)|not.*text' "UPDATE runs SET status = x'00'"

# --- ids that point nowhere or do not fit -----------------------------------------
damaged no-campaign 'not in the stream: run campaign' "UPDATE runs SET campaign_id = 99999 WHERE id = 1"
damaged no-node 'not in the stream: run node' "UPDATE runs SET node_id = 777 WHERE id = 1"
damaged no-first-run 'not in the stream: bug first run' "UPDATE bugs SET first_run = 777 WHERE id = $first_bug"
damaged no-bug 'not in the stream: run_bug' "UPDATE run_bugs SET bug_id = 999 WHERE $rb"
damaged big-site "bug $first_bug: site_a is not an integer from 0 to 2\\^32-1" "UPDATE bugs SET site_a = 1099511627776 WHERE id = $first_bug"
damaged negative-tid 'run_bug [0-9]+: tid_a is not an integer from 0' "UPDATE run_bugs SET tid_a = -5"
damaged negative-sites 'program [0-9]+: nsites is not an integer from 0' "UPDATE programs SET nsites = -3"
damaged big-kind "bug $first_bug: kind_a is not an integer from 0 to 255" "UPDATE bugs SET kind_a = 300 WHERE id = $first_bug"
damaged site-order 'bad site kind or order in bug' "UPDATE bugs SET site_a = site_b + 1 WHERE id = $first_bug"

# --- oversized and malformed texts ------------------------------------------------
damaged huge-func 'longer than 64 KiB: bug site function' \
	"UPDATE bugs SET func_a = printf('%.*c', 100000, 'f') WHERE id = $first_bug"
damaged huge-file 'longer than 1 MiB: bug site file' \
	"UPDATE bugs SET file_a = printf('%.*c', 2000000, 'f') WHERE id = $first_bug"
damaged nul-file 'NUL byte inside bug site file' \
	"UPDATE bugs SET file_a = CAST(x'612f00622e63' AS TEXT) WHERE id = $first_bug"
damaged bad-stack 'malformed run_bug call stack' "UPDATE stacks SET frames = 'not a stack ' || id"
damaged huge-stack 'longer than 1 MiB: run_bug call stack' \
	"UPDATE stacks SET frames = printf('%.*c', 2000000, 'f') || id || char(9, 9) || '1' || char(9) || '2' || char(10)"
damaged bad-sig 'malformed bug signature' "UPDATE bugs SET sig = 'not-hex' WHERE id = $first_bug"
damaged bad-value 'malformed|value' "UPDATE run_bugs SET value = 'garbage' WHERE $rb"

# --- a future schema, and files that are not workspaces ------------------------------
damaged future 'newer heisen \(schema 9999' "PRAGMA user_version = 9999"
printf 'not a database, nor a stream\n' >"$dir/text.db"
refused not-sqlite "not the output of 'heisen export'" "$dir/text.db"
head -c 2048 "$good" >"$dir/cut.db"
refused cut-sqlite 'is damaged|malformed|not a heisen database' "$dir/cut.db"
{ printf 'SQLite format 3\0'; head -c 4000 /dev/zero | tr '\0' 'x'; } >"$dir/fake.db"
refused fake-sqlite 'not a heisen database|is damaged' "$dir/fake.db"

# --- the good copy still imports: the checks above refuse only damage -------------
hq good import "$good" --db "$T"
want good 0
[ "$(state)" != "$before" ] || bad "importing the good workspace added nothing"
case $(state) in ok\ *) ;; *) bad "target not sound after the good import" ;; esac
finish t_import_hostile
