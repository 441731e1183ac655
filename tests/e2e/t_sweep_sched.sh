#!/usr/bin/env bash
# sweep --schedule (docs/schedules.md, "Serial sweeps"): a sweep whose
# runs are serial, each under a schedule drawn from its seed, an armed
# probe's delay a sleep of virtual time while the others run. The same
# campaign seed gives the same runs (digests, statuses, bugs); its races
# replay exactly from their schedules (under the same mask and detector),
# also from a repro file in a fresh folder; bad options exit 2.
. "$(dirname "$0")/lib.sh"
need_demos
cd "$dir" || exit 1
unset HEISEN_DB
cp "$root/demos/build/fibonacci.wasm" app.wasm

for w in a b; do
	hq "sw$w" sweep app.wasm --schedule pct:3 --runs 3 --densities 20,100 --seed 3 --jobs 2 --db "$dir/$w.db" --json
	want "sw$w" 0
done
runs() {
	sqlite3 "$1" "SELECT r.density_bp, r.status, s.digest, s.points, (SELECT count(*) FROM run_bugs rb WHERE rb.run_id = r.id) FROM runs r JOIN schedules s ON s.run_id = r.id ORDER BY 1, 3"
}
[ "$(runs a.db | wc -l)" = 6 ] || bad "not 6 serial runs recorded: $(runs a.db | tr '\n' ' ')"
[ "$(runs a.db)" = "$(runs b.db)" ] || bad "two sweeps of one seed differ: $(runs a.db | tr '\n' ' ') / $(runs b.db | tr '\n' ' ')"
nb=$(sqlite3 a.db "SELECT count(*) FROM bugs")
[ "$nb" -ge 1 ] || bad "the serial sweep found no race in fibonacci"
[ "$(sqlite3 a.db "SELECT schedule FROM campaigns")" = "pct:3:100000" ] || bad "the campaign does not record its schedule"

bug=$(sqlite3 a.db "SELECT id FROM bugs ORDER BY id LIMIT 1")
hq rp replay "$bug" --db a.db --mode schedule --runs 3 --json
want rp 0
python3 - "$dir/rp.out" <<'PY' || bad "replay of a serial sweep's race: $(snippet "$dir/rp.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reproduced"] == 3 and d["runs"] == 3, d
assert d["schedule"]["diverged"] == 0, d["schedule"]
PY
hq save replay "$bug" --db a.db --mode schedule --runs 1 --save "$dir/s.repro"
want save 0
grep -q '^sched_detector = collision$' s.repro || bad "the repro does not say its detector"
mkdir fresh && cp app.wasm s.repro fresh/
(cd fresh && timeout -s KILL 120 "$HEISEN" replay --file s.repro app.wasm --runs 2 --json >../fr.out 2>../fr.err)
rc=$?
want fr 0
grep -q '"reproduced":2' fr.out || bad "the repro in a fresh folder: $(snippet fr.out)"
(cd fresh && timeout -s KILL 120 "$HEISEN" timeline s.repro app.wasm --count 0 --json >../tl.out 2>../tl.err)
rc=$?
want tl 0
python3 - "$dir/tl.out" <<'PY' || bad "the repro's timeline has no race"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["races"] and d["schedule"]["diverged_at"] is None and d["schedule"]["fits"]
PY

expect 2 "sweep --schedule fixed" "$HEISEN" sweep app.wasm --schedule fixed --db "$dir/x.db"
expect 2 "sweep --schedule bogus" "$HEISEN" sweep app.wasm --schedule pct:0 --db "$dir/x.db"
expect 2 "sweep --schedule with --profiles" "$HEISEN" sweep app.wasm --schedule random --profiles noisy --db "$dir/x.db"
[ ! -e "$dir/x.db" ] || bad "a refused sweep created a workspace"
finish t_sweep_sched
