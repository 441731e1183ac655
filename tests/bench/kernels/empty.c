/*
 * empty.c - benchmark kernel that does nothing: main returns 0.
 *
 * Built for wasm32-wasi by tests/bench/kernels.sh to time a whole
 * `heisen run empty.wasm` process (start-up, decode, validate,
 * instantiate, run an empty _start, exit), an upper bound on the
 * engine's fixed cost per run.
 */
int main(void)
{
	return 0;
}
