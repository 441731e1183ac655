# longjmp.s - the throw behind longjmp (demos/guest/setjmp.c).
#
# clang names the tag __c_longjmp and defines it (weak) in every object
# with a function that calls setjmp; it is defined here too, weak, so
# that a program whose longjmp has no setjmp anywhere still links (and
# traps with "uncaught exception" when it jumps). Each symbol in its own
# section, as clang writes them: the assembler needs one to define it.

	.section .text.__heisen_throw_longjmp,"",@
	.tagtype __c_longjmp i32
	.globl __heisen_throw_longjmp
	.type __heisen_throw_longjmp,@function
__heisen_throw_longjmp:
	.functype __heisen_throw_longjmp (i32) -> ()
	local.get 0
	throw __c_longjmp
	# never reached; clang 14's assembler does not know throw pops
	unreachable
	end_function

	.weak __c_longjmp
__c_longjmp:
