/* zn_trace_tramp_x86_64.S: generic forwarders for functions whose
 * signature the tracer does not know (System V x86-64).
 *
 * Stub i loads the address of record i (zn_tr_tramp_recs, 32 bytes each)
 * into %r11 and jumps to the common part, which saves the six integer and
 * eight vector argument registers and %rax (the vector count of variadic
 * calls), asks zn_tr_tramp_pre(record, saved registers) for the target,
 * copies a window of 8 stack words (the caller's 7th and later integer
 * arguments), calls the target with the registers restored, and reports
 * its result to zn_tr_tramp_post(record, rax) before returning it. Enough
 * for any function of up to 14 integer-class arguments.
 */
#define NTRAMP 1024
#define REC_SIZE 32

    .text
    .globl zn_tr_tramp_stubs
    .hidden zn_tr_tramp_stubs
    .p2align 4
zn_tr_tramp_stubs:
    .set i, 0
    .rept NTRAMP
    leaq zn_tr_tramp_recs+i*REC_SIZE(%rip), %r11
    jmp zn_tr_tramp_common
    .p2align 4
    .set i, i+1
    .endr

    .p2align 4
    .type zn_tr_tramp_common, @function
zn_tr_tramp_common:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $256, %rsp
    /* 0..47 integer args, 48 rax, 56 record, 64..191 xmm0-7, 192 target,
     * 200 rax out, 208 rdx out, 216 xmm0 out */
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    movq %r11, 56(%rsp)
    movdqu %xmm0, 64(%rsp)
    movdqu %xmm1, 80(%rsp)
    movdqu %xmm2, 96(%rsp)
    movdqu %xmm3, 112(%rsp)
    movdqu %xmm4, 128(%rsp)
    movdqu %xmm5, 144(%rsp)
    movdqu %xmm6, 160(%rsp)
    movdqu %xmm7, 176(%rsp)
    movq %r11, %rdi
    movq %rsp, %rsi
    call zn_tr_tramp_pre
    movq %rax, 192(%rsp)
    /* the caller's stack arguments start at 16(%rbp) */
    subq $64, %rsp
    movq 16(%rbp), %rax
    movq %rax, 0(%rsp)
    movq 24(%rbp), %rax
    movq %rax, 8(%rsp)
    movq 32(%rbp), %rax
    movq %rax, 16(%rsp)
    movq 40(%rbp), %rax
    movq %rax, 24(%rsp)
    movq 48(%rbp), %rax
    movq %rax, 32(%rsp)
    movq 56(%rbp), %rax
    movq %rax, 40(%rsp)
    movq 64(%rbp), %rax
    movq %rax, 48(%rsp)
    movq 72(%rbp), %rax
    movq %rax, 56(%rsp)
    movq 64(%rsp), %rdi
    movq 72(%rsp), %rsi
    movq 80(%rsp), %rdx
    movq 88(%rsp), %rcx
    movq 96(%rsp), %r8
    movq 104(%rsp), %r9
    movdqu 128(%rsp), %xmm0
    movdqu 144(%rsp), %xmm1
    movdqu 160(%rsp), %xmm2
    movdqu 176(%rsp), %xmm3
    movdqu 192(%rsp), %xmm4
    movdqu 208(%rsp), %xmm5
    movdqu 224(%rsp), %xmm6
    movdqu 240(%rsp), %xmm7
    movq 112(%rsp), %rax
    call *256(%rsp)
    addq $64, %rsp
    movq %rax, 200(%rsp)
    movq %rdx, 208(%rsp)
    movdqu %xmm0, 216(%rsp)
    movq 56(%rsp), %rdi
    movq %rax, %rsi
    call zn_tr_tramp_post
    movq 200(%rsp), %rax
    movq 208(%rsp), %rdx
    movdqu 216(%rsp), %xmm0
    leave
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size zn_tr_tramp_common, .-zn_tr_tramp_common

    .section .note.GNU-stack,"",@progbits
