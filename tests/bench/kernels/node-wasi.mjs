// node-wasi.mjs - run a wasm32-wasi command module under Node's built-in WASI.
//
//   node --no-warnings node-wasi.mjs FILE.wasm [ARGS...]
//
// The module sees argv = [basename of FILE.wasm, ARGS...], an empty
// environment and no preopened directories; stdin/stdout/stderr are the
// process's. Exits with the module's exit code (proc_exit or the return of
// main). Used by tests/bench/kernels.sh as the JIT reference.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { WASI } from 'node:wasi';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
	process.stderr.write('usage: node --no-warnings node-wasi.mjs FILE.wasm [ARGS...]\n');
	process.exit(2);
}

const wasi = new WASI({
	version: 'preview1',
	args: [basename(file), ...rest],
	env: {},
	preopens: {},
});
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
