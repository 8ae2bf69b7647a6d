/* zn_fiber_aarch64.S: context switch for AArch64 (AAPCS64).
 *
 * void zn_fiber_swap(void **save_sp, void *new_sp)
 * Saves x19-x30 (x29 frame pointer, x30 return address) and d8-d15 in a
 * 176-byte frame (16 bytes unused), stores sp in *save_sp, loads new_sp
 * and restores the same frame from it, returning through the restored
 * x30. fpcr is not switched: compiled kernels never change it and the
 * executor sets it around the blocks a worker runs (zn_fpenv.h). A new
 * fiber's frame has x30 = zn_fiber_start, x19 = the C entry function and
 * x20 = its argument.
 */
    .text
    .globl zn_fiber_swap
    .hidden zn_fiber_swap
    .type zn_fiber_swap, %function
    .p2align 4
zn_fiber_swap:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x10, sp
    str x10, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #176
    ret
    .size zn_fiber_swap, .-zn_fiber_swap

/* First code a new fiber runs: entry(arg); the entry never returns. */
    .globl zn_fiber_start
    .hidden zn_fiber_start
    .type zn_fiber_start, %function
    .p2align 4
zn_fiber_start:
    mov x0, x20
    blr x19
    brk #0
    .size zn_fiber_start, .-zn_fiber_start

    .section .note.GNU-stack,"",%progbits
