/*
 * lab/insn/mark on|off: open or close the instruction counter's window
 * (insn-count.c).  No libc, so the process itself adds little to a window.
 */
	.globl _start
	.text
_start:
	cmpq	$2, (%rsp)		/* argc */
	jne	usage
	movq	16(%rsp), %rsi		/* argv[1] */
	cmpb	$'n', 1(%rsi)
	je	on
	cmpb	$'f', 1(%rsi)
	je	off
usage:
	movl	$2, %edi
	jmp	leave
on:
	xchg	%bx, %bx
	xorl	%edi, %edi
	jmp	leave
off:
	xchg	%cx, %cx
	xorl	%edi, %edi
leave:
	movl	$60, %eax		/* exit */
	syscall
	.section .note.GNU-stack,"",@progbits
