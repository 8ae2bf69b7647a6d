/* zn_lower.h: the compiler's private interface between its files.
 *
 * Lowering turns one PTX function into one LLVM function that runs a whole
 * warp: every PTX register is a <32 x T> vector held in an alloca (SROA and
 * mem2reg promote them), every instruction runs under the warp's current
 * execution mask, and control flow uses per-lane program counters (see
 * zn_lower_func.c for the dispatcher scheme).
 *
 * Prefixes: ll_ for small IR-building helpers (zn_ll.c), zn_lower_* for the
 * instruction families, zn_lmod_/zn_lfn_ for module and function state.
 */
#ifndef ZN_LOWER_H
#define ZN_LOWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <llvm-c/Core.h>
#include "zn_compile.h"

#define ZN_LANES 32
/* pc of a lane that has returned or exited: larger than any block id, so the
 * dispatcher's unsigned minimum ignores it. */
#define ZN_PC_DONE 0x7fffffffu

/* ---- module-wide state ---------------------------------------------------- */

typedef struct zn_shared_slot {
    const ptx_var *var;
    uint32_t offset;
} zn_shared_slot;

typedef struct zn_lmod {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    const ptx_module *pm;
    const zn_compile_opts *opts;

    /* scalar types */
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_i128;
    LLVMTypeRef t_half, t_bf16, t_f32, t_f64, t_ptr;
    /* ABI structs (zn_abi_types.c) */
    LLVMTypeRef t_warp, t_block, t_rt;

    /* module-wide shared memory layout */
    zn_shared_slot *shared;
    uint32_t nshared;
    uint32_t static_shared;     /* total, incl. the bar.red scratch */
    uint32_t shared_declared;   /* the variables alone, unrounded (what a GPU reports) */
    uint32_t dyn_shared_off;    /* align16(static_shared) */
    int32_t bar_red_off;        /* scratch for bar.red (two u32), -1: none */
    int8_t uses_cluster;        /* zn_module_uses_cluster: 0 unknown, 1 no, 2 yes */

    LLVMValueRef *fns;          /* per pm->funcs[i]; NULL for externs */
    const char *cpu, *features;

    char *err;
    size_t errlen;
    int failed;
} zn_lmod;

/* ---- per-function state -------------------------------------------------- */

/* A window test's answer for one address register (zn_lower_window.c),
 * kept while straight-line code does not write the register. */
typedef struct zn_win_seen {
    int32_t reg;                /* address register */
    int space;                  /* its state space */
    int64_t imm;                /* its immediate offset then */
    LLVMValueRef emask;         /* the lanes it tested; NULL: an empty entry */
    LLVMValueRef base, exact;   /* i64 lane-0 address, i1 all at base + T */
} zn_win_seen;
#define ZN_WIN_SEEN 8           /* window tests remembered per straight-line run */
/* operands a lane loop's body may read through ll_lane_elt */
#define ZN_LANE_LOOP_INS 6

typedef struct zn_dead_reads zn_dead_reads;
typedef struct zn_lfn {
    zn_lmod *m;
    LLVMBuilderRef b;
    const ptx_func *f;
    LLVMValueRef fn;
    bool is_entry;

    LLVMValueRef w;             /* zn_warp_ctx * */
    LLVMValueRef block;         /* zn_block_ctx * (loaded once) */
    LLVMValueRef *regs;         /* alloca per PTX register */
    LLVMTypeRef *reg_ty;        /* vector type of each */
    bool *reg_inv;              /* written without a mask (zn_lower_invariant.c) */
    int32_t *reg_def;           /* the one defining instruction, or -1 */
    bool *reg_uni;              /* one value in all live lanes: scalar storage */
    bool *reg_nan_free;         /* only read by ops that canonicalise NaN (zn_lower_fpfix.c) */
    bool *reg_ftz_clean;        /* only written by flushed .ftz results (zn_lower_ftzclean.c) */
    bool *reg_ftz_flushdef;     /*   or flushed where written: only .ftz reads */
    bool *blk_conv;             /* block always runs with all live lanes */
    bool *reg_blocal;           /* dead at every block start (zn_lower_blocklocal.c) */
    bool regs_demoted;          /* cross-block registers kept in memory (zn_lower_demote.c) */
    struct zn_dead_reads *dead_reads; /* the lowering's register reads
                                 * (zn_lower_deadregs.c), or NULL */
    LLVMValueRef *local_slot;   /* per f->locals[i]: alloca of 32*size, or NULL */
    LLVMValueRef *param_arg;    /* .func: per f->params[i], LLVM pointer arg */
    LLVMValueRef *ret_arg;      /* .func: per f->rets[i], LLVM pointer arg */

    LLVMValueRef pc_slot;       /* <32 x i32> */
    LLVMValueRef mask_slot;     /* <32 x i1>: the block's mask */
    LLVMValueRef cc_slot;       /* <32 x i32>: carry flag of add.cc etc. */
    LLVMValueRef exited_slot;   /* i32: lanes that ran `exit` (.func) */
    LLVMValueRef hmma_buf;      /* mma fragments to zn.[hf]mma.* helpers (zn_lower_mma.c) */

    struct ptx_func *own_f;     /* f laid out again (zn_lower_layout.c), or NULL */
    bool layout_irregular;      /* a divergent branch's region runs past its
                                 * reconvergence block (zn_lower_uniform.c) */
    bool uniform_skipped;       /* the analysis did not run (too many blocks,
                                 * ZINC_NO_UNIFORM): layout unchecked */
    bool *blk_full;             /* per block: runs with every lane the warp
                                 * began with (zn_lower_uniform.c) */
    uint32_t nblocks;
    uint32_t *block_of_ins;     /* ins index -> block id; [nins] = nblocks */
    uint32_t *block_start;      /* first ins of each block */
    LLVMBasicBlockRef *bbs;     /* one per PTX block */
    LLVMBasicBlockRef *resume_bbs; /* per block + 1: "run block k if a lane waits there" */
    uint32_t *resume_skip;      /* where resume_bbs[k] goes when no lane waits at k */
    LLVMBasicBlockRef dispatch_bb, ret_bb;
    bool *goto_target;          /* blocks some lane can wait at */
    uint32_t *thread_stops;     /* prefix counts of blocks a branch is not
                                 * threaded past (zn_lower_thread.c); NULL: off */
    uint32_t *park_lo, *park_hi; /* per block starting with a barrier where
                                 * lanes park: blocks lanes can come back
                                 * from (zn_lower_park.c); NULL: none */
    bool has_park;
    bool has_brx;               /* brx.idx: lanes can wait at earlier blocks */

    /* state while lowering one block */
    uint32_t cur_block;
    LLVMValueRef mask;          /* current block mask, <32 x i1> */
    const ptx_ins *ins;         /* the instruction being lowered */
    LLVMValueRef emask;         /* mask & guard for this instruction */
    bool terminated;            /* the instruction ended the LLVM block */
    uint32_t hoist_end;         /* ins before this index were lowered early
                                 * (pure ins hoisted above a barrier, zn_lower_warp.c) */

    LLVMValueRef lane_ids;      /* <0, 1, ..., 31> as <32 x i32> */
    LLVMValueRef lane_pre;      /* in a lane loop's body: the branch into the
                                 * loop (ll_lane_elt stores operands there) */
    /* 256-byte stack buffers shared by all sites of the function (zn_ll.c):
     * run-time-index extracts, lane loops' results and operands */
    LLVMValueRef buf_extract, buf_lane_res, buf_lane_in[ZN_LANE_LOOP_INS];
    unsigned nlane_in;          /* operands stored for the current lane loop */
    LLVMValueRef sreg_cache[PTX_SREG_COUNT]; /* computed in the entry block */
    LLVMValueRef shared_base;   /* i64 splat of block->shared */
    bool uses_cluster;          /* mapa or .shared::cluster: shared atomics
                                 * may race with other blocks' threads */
    bool uses_barrier;
    LLVMValueRef seg_store_slot; /* i8: the warp stored to shared memory since
                                 * its last barrier; only in functions with
                                 * block barriers (zn_lower_warp.c) */
    LLVMValueRef chk_slot;      /* memcheck: <32 x i64> addresses passed to
                                 * the runtime (zn_lower_check.c), or NULL */
    bool *aff_join;             /* labels at ins i, [nins + 1]: reads tid.y/z (zn_lower_affine.c) */
    int32_t *aff_loop;          /* per register: induction loop facts (zn_lower_affine.c) */
    struct zn_pf_plan *pf_plan; /* loops and register writes (zn_lower_prefetch.c), or NULL */
    uint8_t *gs_latch;          /* per ins: a grid-stride loop's backward branch,
                                 * where a coroutine warp yields (zn_lower_coro.c) */
    uint32_t *pair_act;         /* paired 16-bit loads (zn_lower_pairld.c), or NULL */
    uint32_t *rec_act;          /* runs of record accesses (zn_lower_record.c), or NULL */
    uint8_t *stream_st;         /* per ins: a store that may go around the
                                 * cache (zn_lower_stream.c), or NULL */
    bool stream_now;            /* lowering such a store */
    uint64_t stream_min;        /* the fewest bytes a thread stores with one */
    uint8_t *lazy_at;           /* per ins: ZN_LAZY_OWE/PAY (zn_lower_lazybar.c), or NULL */
    LLVMValueRef owed_slot;     /* i32: block barriers the warp owes */
    struct zn_lanetab *lanetab; /* predicted lane offsets (zn_lower_lanetab.c), or NULL */
    struct zn_winslot *winslot; /* window tests carried in loops (zn_lower_winslot.c), or NULL */
    zn_win_seen win_seen[ZN_WIN_SEEN]; /* recent window tests (zn_lower_window.c) */
    unsigned win_next;          /* the entry the next test replaces */
    unsigned load_align;        /* alignment of the load being lowered when
                                 * below its size (a paired load: 2); 0 = size */
    bool coro;                  /* compiled as a coroutine (zn_lower_coro.c) */
    LLVMValueRef coro_hdl;      /* its coro.begin, once the prologue made it */
    LLVMBasicBlockRef coro_suspend_bb; /* where every suspend leaves */
    LLVMBasicBlockRef coro_exit_bb; /* the one coro.end, every exit's */
    LLVMValueRef coro_exit_st;  /* its phi: the status returned */
} zn_lfn;

/* ---- errors (zn_lower_module.c) ------------------------------------------ */

/* Records "file:line:col: msg" for the current instruction (first error wins). */
void zn_lerr(zn_lfn *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zn_merr(zn_lmod *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "unsupported instruction 'add.f16x2'" with the instruction spelled out. */
void zn_lerr_unsupported(zn_lfn *l);
/* whether the instruction carries modifier `mod` (a PTX_MOD_*): the
 * SHAPE-category ones have no decoded field of their own */
static inline bool zn_has_mod(const ptx_ins *ins, int mod)
{
    for (unsigned i = 0; i < ins->nmods; i++)
        if (ins->mods[i] == mod)
            return true;
    return false;
}

/* ---- IR helpers (zn_ll.c) ------------------------------------------------- */

LLVMTypeRef ll_vec(LLVMTypeRef t);                 /* <32 x t> */
LLVMValueRef ll_splat(zn_lfn *l, LLVMValueRef scalar);
/* lanes first .. first + n - 1 of v (n <= 32) */
LLVMValueRef ll_lanes(zn_lfn *l, LLVMValueRef v, unsigned first, unsigned n);
/* two 16-lane halves back into one 32-lane vector */
LLVMValueRef ll_join_halves(zn_lfn *l, LLVMValueRef lo, LLVMValueRef hi);
/* v[0..n-1] (n a power of two, equal lengths) concatenated in order,
 * pairwise (v[] is overwritten); at most LL_CONCAT_MAX elements in all */
#define LL_CONCAT_MAX (ZN_LANES * 8)
LLVMValueRef ll_concat(zn_lfn *l, LLVMValueRef *v, unsigned n);
/* scalar s in all w lanes of a <w x T> */
LLVMValueRef ll_splat_n(zn_lfn *l, LLVMValueRef s, unsigned w);
/* the scalar every lane of v holds when v is ll_splat's shuffle or a
 * constant with equal lanes; NULL otherwise */
LLVMValueRef ll_splat_scalar(LLVMValueRef v);
/* whether the target's feature string enables feat ("avx512vnni"): the
 * code paths that use x86 intrinsics */
bool zn_target_has(const zn_lmod *m, const char *feat);
/* An AMD Zen CPU (LLVM's znver*): code choices measured to differ there
 * (zn_lower_atom.c's shared adds, zn_lower_prefetch.c's streams). */
bool zn_target_is_zen(const zn_lmod *m);
LLVMValueRef ll_const_vec(LLVMTypeRef t, uint64_t v); /* splat of int v */
LLVMValueRef ll_const_fvec(LLVMTypeRef t, double v);
LLVMValueRef ll_all_ones(zn_lfn *l);               /* <32 x i1> true */
LLVMValueRef ll_mask_to_i32(zn_lfn *l, LLVMValueRef m);
LLVMValueRef ll_i32_to_mask(zn_lfn *l, LLVMValueRef i);
LLVMValueRef ll_any(zn_lfn *l, LLVMValueRef m);    /* i1: any lane set */
/* i32: the lowest set lane of m; 0 when none is (an index always in range) */
LLVMValueRef ll_first_lane(zn_lfn *l, LLVMValueRef m);
LLVMValueRef ll_entry_alloca(zn_lfn *l, LLVMTypeRef t, const char *name);
/* Whole-vector load/store of a call argument slot: a .param variable's
 * slot is only 16-byte aligned (zn_lower_func.c), and in a coroutine's
 * frame it lands at that alignment, so these never claim more. */
LLVMValueRef ll_load_slot(zn_lfn *l, LLVMTypeRef t, LLVMValueRef slot);
/* element j (bits wide) of a <32 x i32> of packed elements, sign- or
 * zero-extended to i32 (mma's packed integers, the video instructions) */
LLVMValueRef ll_unpack(zn_lfn *l, LLVMValueRef w, unsigned bits, unsigned j, bool sign);
void ll_store_slot(zn_lfn *l, LLVMValueRef v, LLVMValueRef slot);
LLVMValueRef ll_entry_alloca_bytes(zn_lfn *l, uint64_t bytes, uint32_t align,
                                   const char *name);
/* Calls an overloaded intrinsic by name: "llvm.fma" with overload types. */
LLVMValueRef ll_intrin(zn_lfn *l, const char *name, LLVMTypeRef *over,
                       unsigned nover, LLVMValueRef *args, unsigned nargs);
LLVMValueRef ll_intrin1(zn_lfn *l, const char *name, LLVMValueRef a);
LLVMValueRef ll_intrin2(zn_lfn *l, const char *name, LLVMValueRef a,
                        LLVMValueRef b);
LLVMValueRef ll_intrin3(zn_lfn *l, const char *name, LLVMValueRef a,
                        LLVMValueRef b, LLVMValueRef c);
/* Width in bits of a scalar or the element of a vector. */
unsigned ll_bits(LLVMTypeRef t);
LLVMTypeRef ll_elem(LLVMTypeRef t);
bool ll_is_fp(LLVMTypeRef t);
/* Reinterprets/resizes v to type `to` (vector); ints extend by `sign`. */
LLVMValueRef ll_coerce(zn_lfn *l, LLVMValueRef v, LLVMTypeRef to, bool sign);
/* Calls a function pointer loaded from w->rt at field `field`. */
LLVMValueRef ll_rt_fn(zn_lfn *l, unsigned field);
/* Lane loop: for every lane set in mask (ascending), body(l, lane, ud)
 * returns a scalar (or NULL); the result vector collects them (undefined
 * for other lanes). res_ty is the scalar type or NULL for no result. */
typedef LLVMValueRef (*ll_lane_body)(zn_lfn *l, LLVMValueRef lane, void *ud);
LLVMValueRef ll_lane_loop(zn_lfn *l, LLVMValueRef mask, LLVMTypeRef res_ty,
                          ll_lane_body body, void *ud);
/* In a lane loop's body: element `lane` of the 32-lane vector v, which must
 * be defined before the loop (read from a copy stored once, before it). */
LLVMValueRef ll_lane_elt(zn_lfn *l, LLVMValueRef v, LLVMValueRef lane);
/* extractelement(v, k) for a run-time k; in functions of more than 400
 * PTX instructions through the function's extract buffer (zn_ll.c) */
LLVMValueRef ll_extract_dyn(zn_lfn *l, LLVMValueRef v, LLVMValueRef k);
LLVMValueRef ll_field_ptr(zn_lfn *l, LLVMTypeRef st, LLVMValueRef p,
                          unsigned field);
LLVMValueRef ll_load_field(zn_lfn *l, LLVMTypeRef st, LLVMValueRef p,
                           unsigned field, LLVMTypeRef ty);

/* ---- ABI types (zn_abi_types.c) ------------------------------------------ */

void zn_abi_types(zn_lmod *m);
enum { ZN_RT_BARRIER, ZN_RT_ASSERTFAIL, ZN_RT_VPRINTF, ZN_RT_CLOCK64,
       ZN_RT_GLOBALTIMER, ZN_RT_MALLOC, ZN_RT_FREE, ZN_RT_MEMCHECK, ZN_RT_TEX,
       ZN_RT_SPIN, ZN_RT_CLUSTER_BARRIER, ZN_RT_CORO_FRAME, ZN_RT_CDP, ZN_RT_TMA, ZN_RT_NFIELDS };

/* ---- types and operands (zn_lower_operand.c) ----------------------------- */

LLVMTypeRef zn_scalar_type(zn_lmod *m, ptx_type t);
LLVMTypeRef zn_vec_type(zn_lmod *m, ptx_type t);
/* Value of a source operand as <32 x type t>. */
LLVMValueRef zn_src(zn_lfn *l, const ptx_opnd *o, ptx_type t);
/* Writes v (a <32 x type t> value) to a destination operand under the
 * instruction's mask (a REG, a %r|%p pair's first half, a sink or a {vec}). */
void zn_dst(zn_lfn *l, const ptx_opnd *o, ptx_type t, LLVMValueRef v);
void zn_dst_reg(zn_lfn *l, int32_t reg, ptx_type t, LLVMValueRef v);
LLVMValueRef zn_load_reg(zn_lfn *l, int32_t reg);
/* The scalar of a uniform register (l->reg_uni). */
LLVMValueRef zn_load_reg_scalar(zn_lfn *l, int32_t reg);
LLVMValueRef zn_sreg(zn_lfn *l, ptx_sreg s);
/* %tid.x (d = 0), .y, .z of the warp's lanes, loaded here from the warp
 * context (the prologue's copies are zn_sreg's) */
LLVMValueRef zn_load_tid(zn_lfn *l, unsigned d);

/* ---- code for one block shape (zn_lower_shape.c) ---- */
/* the shape the unit is compiled for (zn_compile_opts.block), NULL: any */
const uint32_t *zn_fixed_block(const zn_lmod *m);
/* %tid's dimension d computed from the warp index for that shape, NULL
 * where it is loaded as in generic code */
LLVMValueRef zn_fixed_tid(zn_lfn *l, unsigned d);
/* %tid.x/y/z the same in every lane of a warp for that shape */
bool zn_fixed_tid_uniform(const zn_lmod *m, ptx_sreg s);
/* a kernel warp's live lanes as an i32 constant for that shape (every
 * warp full, or the one warp), NULL: loaded */
LLVMValueRef zn_fixed_live_mask(zn_lfn *l);
/* the prologue's %ntid and %nwarpid as constants for that shape */
void zn_fixed_shape_sregs(zn_lfn *l);
/* The instruction's guard AND block mask. */
LLVMValueRef zn_guard_mask(zn_lfn *l, const ptx_ins *ins);
/* Per-lane i64 address of a SYM (its generic/space address + ival). */
LLVMValueRef zn_sym_addr(zn_lfn *l, const ptx_opnd *o);
/* Byte offset of a .shared variable in the module layout, or -1. */
int64_t zn_shared_offset(zn_lmod *m, const ptx_var *v);
/* Classifies a variable reference of the function. */
typedef enum zn_var_kind {
    ZN_VAR_UNKNOWN, ZN_VAR_MODULE, ZN_VAR_PARAM, ZN_VAR_RET, ZN_VAR_LOCAL
} zn_var_kind;
zn_var_kind zn_var_find(zn_lfn *l, const ptx_opnd *o, uint32_t *index,
                        const ptx_var **var);
/* Fills sreg_cache and shared_base in the entry block. */
void zn_sreg_prologue(zn_lfn *l);
/* block->shared as an i64 splat: the entry block's, or in a coroutine
 * loaded where it is used (zn_lower_operand.c) */
LLVMValueRef zn_shared_base(zn_lfn *l);
/* Byte offset of kernel parameter i in the parameter buffer. */
uint32_t zn_param_offset(const ptx_func *f, uint32_t i, uint32_t *total);

/* ---- memcheck (zn_lower_check.c) ------------------------------------------ */

enum { ZN_CHECK_WRITE = 1, ZN_CHECK_ATOMIC = 2 }; /* flags of zn_check_access */
/* In check mode: the active lanes' host addresses (<32 x i64>), each
 * accessing `size` bytes in `space`, go to the runtime first; a bad one
 * returns ZN_KSTATUS_ILLEGAL_ADDRESS from the function. No code otherwise. */
void zn_check_access(zn_lfn *l, LLVMValueRef addrs, unsigned size, ptx_space space,
                     unsigned flags);

/* ---- the instruction families -------------------------------------------- */

/* Each returns nothing; errors go through zn_lerr. */
void zn_lower_ins(zn_lfn *l, const ptx_ins *ins);
void zn_lower_int(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_arith.c */
void zn_lower_bits(zn_lfn *l, const ptx_ins *ins);    /* zn_lower_bits.c */
void zn_lower_video(zn_lfn *l, const ptx_ins *ins);   /* zn_lower_video.c */
void zn_lower_video_scalar(zn_lfn *l, const ptx_ins *ins); /* zn_lower_video_scalar.c */
/* shared by both video files: the exact element operation (vadd ...
 * vmax, vavrg2/4) on extended values, vset's compare (i1), .u32/.s32 */
LLVMValueRef zn_video_op(zn_lfn *l, ptx_op o, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef zn_video_cmp(zn_lfn *l, ptx_cmp c, LLVMValueRef x, LLVMValueRef y);
bool zn_video_type_ok(ptx_type t);
/* add/min/max.{u16x2,s16x2}{.relu} (zn_lower_video.c) */
void zn_lower_int16x2(zn_lfn *l, const ptx_ins *ins);
void zn_lower_float(zn_lfn *l, const ptx_ins *ins);   /* zn_lower_float.c */
void zn_lower_cmp(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_cmp.c */
void zn_lower_cvt(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_cvt.c */
void zn_lower_mov(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_cvt.c */
/* cvt to/from e4m3x2/e5m2x2 and to tf32; false if ins is no such cvt */
bool zn_lower_cvt_small(zn_lfn *l, const ptx_ins *ins); /* zn_lower_fp8.c */
/* fp8 code in the low byte of <32 x i32> -> <32 x float> (exact) */
LLVMValueRef zn_fp8_to_f32(zn_lfn *l, LLVMValueRef c, bool e5m2); /* zn_lower_fp8.c */
void zn_lower_mem(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_mem.c */
/* ld/st with .relaxed/.acquire/.release/.sc/.volatile in global or generic
 * memory: per-lane atomic accesses (zn_lower_strong.c) */
bool zn_strong_access(const ptx_ins *ins);
void zn_strong_load(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMTypeRef et,
                    unsigned n, unsigned size, LLVMValueRef *out);
void zn_strong_store(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMValueRef *vals,
                     unsigned n, unsigned size);
void zn_lower_atom(zn_lfn *l, const ptx_ins *ins);    /* zn_lower_atom.c */
void zn_lower_warp(zn_lfn *l, const ptx_ins *ins);    /* zn_lower_warp.c */
void zn_lower_bar(zn_lfn *l, const ptx_ins *ins);     /* zn_lower_warp.c */
/* Whether warps whose lanes all leave right after this barrier return at
 * it (zn_lower_warp.c; for an owable bar.sync, which has no red operands). */
bool zn_bar_leaves(const zn_lfn *l, const ptx_ins *bar);
/* After a shared-memory store: the warp's first since a barrier lets the
 * block's other warps run to theirs (zn_lower_warp.c). */
void zn_shared_store_stagger(zn_lfn *l);
/* Before a shared store that a barrier follows: the yield when the store
 * is the first of its segment and a loop lies between the segment's shared
 * reads and the store, in program order or around them (zn_lower_warp.c). */
void zn_shared_store_stagger_before(zn_lfn *l);
/* Sets up what zn_shared_store_stagger needs, in the entry block. */
void zn_stagger_prologue(zn_lfn *l);
/* Barriers a warp owes until it next touches memory (zn_lower_lazybar.c):
 * the plan (fills l->lazy_at; after the park and thread plans), the owed
 * count in the entry block, a barrier counted as owed (false: lower it as
 * a real one), and the payment before an instruction that needs it. */
enum { ZN_LAZY_NONE, ZN_LAZY_OWE, ZN_LAZY_PAY };
void zn_lazy_barrier_plan(zn_lfn *l);
void zn_lazy_barrier_prologue(zn_lfn *l);
bool zn_lazy_barrier_owe(zn_lfn *l, const ptx_ins *ins);
void zn_lazy_barrier_pay(zn_lfn *l, const ptx_ins *ins);
/* at a kernel's exit: one warp fewer left in the block */
void zn_lazy_barrier_exit(zn_lfn *l);
void zn_lower_call(zn_lfn *l, const ptx_ins *ins);    /* zn_lower_call.c */
/* A call to the device runtime (__cudaCDP2*): slots[i] holds argument i's
 * 32 lane copies (np == f->nparams <= ZN_CDP_MAXARGS), ret_slot (or NULL)
 * the result's (zn_lower_cdp.c). */
void zn_lower_cdp(zn_lfn *l, const ptx_func *f, LLVMValueRef *slots, uint32_t np,
                  LLVMValueRef ret_slot);
void zn_lower_branch(zn_lfn *l, const ptx_ins *ins);  /* zn_lower_func.c */

/* <32 x ptr> host addresses of an [addr] operand in a space (zn_lower_mem.c) */
LLVMValueRef zn_mem_ptrs(zn_lfn *l, const ptx_opnd *o, ptx_space space);
/* the same operand's <32 x i64> address as written (space-relative) */
LLVMValueRef zn_mem_addr(zn_lfn *l, const ptx_opnd *o);
/* zn_lower_prefetch.c: PTX prefetch; a prefetch ahead of a load that
 * strides far in a loop or of a load or store that streams block by
 * block; the plan's memory */
void zn_lower_prefetch(zn_lfn *l, const ptx_ins *ins);
void zn_prefetch_ahead(zn_lfn *l, const ptx_ins *ins);
void zn_prefetch_store_ahead(zn_lfn *l, const ptx_ins *ins);
void zn_prefetch_free(zn_lfn *l);
/* Grid-stride loops (zn_lower_prefetch.c): a backward branch's loop whose
 * body adds a register computed from %nctaid outside it and makes a global
 * or generic access. latch (f->nins entries, or NULL): set at the backward
 * branch of each. Returns whether f has one. */
bool zn_grid_loops(const ptx_func *f, uint8_t *latch);

/* A warp's load/store at per-lane i64 host addresses `a` under l->emask:
 * contiguous, uniform or gather/scatter, picked at run time
 * (zn_lower_access.c). n elements of type et per lane (ld/st .v2/.v4), n <= 8;
 * a NULL store value is an element left out ({a, _}). */
void zn_access_load(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, unsigned n,
                    LLVMValueRef *out);
void zn_access_store(zn_lfn *l, LLVMValueRef a, LLVMValueRef *v, unsigned n,
                     unsigned size);
/* The same as a plain gather/scatter of one element, without the run-time
 * shape tests: for lane patterns known never to be contiguous (wmma). */
void zn_access_gather(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, LLVMValueRef *out);
void zn_access_scatter(zn_lfn *l, LLVMValueRef a, LLVMValueRef v, unsigned size);

/* Float helpers shared by float and cvt lowering (zn_lower_float.c). */
LLVMValueRef zn_ftz(zn_lfn *l, LLVMValueRef v);
LLVMValueRef zn_fsat(zn_lfn *l, LLVMValueRef v);
/* f16/bf16 stored as i16 bits <-> the LLVM half/bfloat vector. */
/* .relu on f16/bf16 bits: negative (-0 too) -> +0, NaN -> 0x7fff
 * (zn_lower_cvt.c; f16 arithmetic's .relu too) */
LLVMValueRef zn_relu16(zn_lfn *l, LLVMValueRef h, bool bf);
LLVMValueRef zn_to_half(zn_lfn *l, LLVMValueRef bits, bool bf);
LLVMValueRef zn_from_half(zn_lfn *l, LLVMValueRef h);

/* f16/bf16/f16x2/bf16x2 arithmetic, rounded once (zn_lower_half.c) */
void zn_lower_half(zn_lfn *l, const ptx_ins *ins);
LLVMValueRef zn_half_to_f32(zn_lfn *l, LLVMValueRef bits, bool bf);
LLVMValueRef zn_f32_to_half(zn_lfn *l, LLVMValueRef f, bool bf, bool rz);
/* ex2/tanh.approx for f16/bf16: the f64 value rounded to f32 */
LLVMValueRef zn_approx_f32_precise(zn_lfn *l, ptx_op op, LLVMValueRef x);
/* zn_lower_fpfix.c: f32 NaN -> 0x7fffffff; PTX min/max; f64 .ftz;
 * f64 (+ residue e, may be NULL) -> f32 rounded to odd */
LLVMValueRef zn_canon_nan(zn_lfn *l, LLVMValueRef v);
/* Fills l->reg_nan_free; whether ins's f32 result may skip zn_canon_nan. */
void zn_nan_free_regs(zn_lfn *l);
/* The operand of ins that it only moves to its destination's 32 bits
 * (mov.b32/f32 between registers, shfl's value), or -1. */
int zn_moved_src(const ptx_ins *ins);
/* cvt into one f32 register (zn_lower_cvt.c canonicalises its NaN, or
 * not, as the arithmetic does) */
bool zn_cvt_to_f32(const ptx_ins *ins);
/* zn_lower_ftzclean.c: registers whose every write is a flushed .ftz f32
 * result, a value never subnormal in f32, or a move of such a register;
 * zn_ftz_clean: o is such a register (its .ftz reads need no flush) */
void zn_ftz_clean_regs(zn_lfn *l);
bool zn_ftz_clean(const zn_lfn *l, const ptx_opnd *o);
/* the writes of reg by the current instruction are to be flushed */
bool zn_ftz_flush_at_def(const zn_lfn *l, int32_t reg);
bool zn_ftz_flushes_result(const ptx_ins *ins);
bool zn_nan_canon_elided(const zn_lfn *l, const ptx_ins *ins);
LLVMValueRef zn_minmax(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef zn_ftz64(zn_lfn *l, LLVMValueRef v);
LLVMValueRef zn_round_odd_f32(zn_lfn *l, LLVMValueRef w, LLVMValueRef e);

/* warp matrix operations (zn_lower_mma.c: mma, wmma) and cp.async,
 * ldmatrix/stmatrix/movmatrix, f16/bf16 atomics (zn_lower_async.c) */
void zn_lower_mma(zn_lfn *l, const ptx_ins *ins);
/* an m16n8 mma tile for wgmma (zn_lower_mma.c) and wgmma itself
 * (zn_lower_wgmma.c) */
void zn_mma_tile_m16n8(zn_lfn *l, ptx_type at, bool acc16, LLVMValueRef *ra, LLVMValueRef *rb,
                       LLVMValueRef *ce, LLVMValueRef *de);
void zn_mma_tile_m16n8_8bit(zn_lfn *l, ptx_type at, ptx_type bt, bool acc16, bool sat,
                            LLVMValueRef *ra, LLVMValueRef *rb, LLVMValueRef *ce, LLVMValueRef *de);
void zn_mma_tile_m16n8_b1(zn_lfn *l, LLVMValueRef *ra, LLVMValueRef *rb, LLVMValueRef *ce,
                          LLVMValueRef *de);
void zn_lower_wgmma(zn_lfn *l, const ptx_ins *ins);
void zn_lower_tensormap_replace(zn_lfn *l, const ptx_ins *ins);
void zn_lower_async(zn_lfn *l, const ptx_ins *ins);
bool zn_is_atom16(const ptx_ins *ins);
void zn_lower_atom16(zn_lfn *l, const ptx_ins *ins);
/* mbarrier.* and cp.async.mbarrier.arrive (zn_lower_mbarrier.c); yield:
 * rt->barrier mode 2, lets the block's other warps run (spin loops) */
void zn_lower_mbarrier(zn_lfn *l, const ptx_ins *ins);
/* complete tx bytes on the active lanes' mbarriers (zn_lower_mbarrier.c) */
void zn_mbarrier_complete_tx(zn_lfn *l, LLVMValueRef ptrs, LLVMValueRef tx);
void zn_lower_tma(zn_lfn *l, const ptx_ins *ins);   /* zn_lower_tma.c */
void zn_lower_tensormap(zn_lfn *l, const ptx_ins *ins);
/* each active lane copies n bytes (<32 x i64>) now (zn_lower_mbarrier.c) */
void zn_bulk_copy(zn_lfn *l, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef n);
void zn_lower_yield(zn_lfn *l);

/* Thread block clusters (zn_lower_cluster.c): %cluster* special registers
 * (NULL for any other register), mapa, barrier.cluster; the host addresses
 * of a .shared::cluster access; whether an instruction names
 * .shared::cluster; whether a function may touch another block's shared
 * memory (its shared atomics must then be real atomics). */
LLVMValueRef zn_cluster_sreg(zn_lfn *l, ptx_sreg s);
void zn_lower_mapa(zn_lfn *l, const ptx_ins *ins);
void zn_lower_getctarank(zn_lfn *l, const ptx_ins *ins);
void zn_lower_cluster_barrier(zn_lfn *l, const ptx_ins *ins);
LLVMValueRef zn_cluster_host_addr(zn_lfn *l, LLVMValueRef a);
/* <32 x ptr>: shared::cluster address a's offset in rank's window */
LLVMValueRef zn_cluster_rank_ptrs(zn_lfn *l, LLVMValueRef a, LLVMValueRef rank);
/* .multicast::cluster (zn_lower_multicast.c): for each rank k set in a
 * lane's ctaMask (<32 x i32>), copy n bytes from src (<32 x ptr>, or NULL:
 * copied already) to dst's offset in k's window, then complete n bytes
 * (<32 x i64>) on mbar's offset there; dst and mbar as written */
void zn_lower_multicast(zn_lfn *l, LLVMValueRef cta_mask, LLVMValueRef dst, LLVMValueRef src,
                        LLVMValueRef mbar, LLVMValueRef n);
bool zn_ins_shared_cluster(const ptx_ins *ins);
bool zn_func_uses_cluster(const ptx_func *f);
/* zn_func_uses_cluster for any function of the module (computed once) */
bool zn_module_uses_cluster(zn_lmod *m);

/* .reg parameters and results of a .func (zn_lower_regparam.c), and
 * brx.idx (zn_lower_brx.c) */
void zn_reg_params_divergent(zn_lfn *l);
void zn_reg_params_in(zn_lfn *l);
void zn_reg_params_out(zn_lfn *l);
void zn_lower_brx(zn_lfn *l, const ptx_ins *ins);
/* tex, tld4, txq, suld, sust: one zn_rt_ops.tex call per warp (zn_lower_tex.c) */
void zn_lower_tex(zn_lfn *l, const ptx_ins *ins);

/* ex2/lg2/sin/cos/tanh of an <32 x float> as vector code, NULL for other
 * ops (zn_lower_approx.c). */
LLVMValueRef zn_approx_f32(zn_lfn *l, ptx_op op, LLVMValueRef x);

/* Directed rounding .rz/.rm/.rp (zn_lower_round.c); NULL if unsupported. */
LLVMValueRef zn_fop_directed(zn_lfn *l, ptx_op op, LLVMValueRef *s, ptx_rnd rnd);
LLVMValueRef zn_fptrunc_directed(zn_lfn *l, LLVMValueRef a, LLVMTypeRef to, ptx_rnd rnd);
LLVMValueRef zn_itofp_directed(zn_lfn *l, LLVMValueRef a, bool sign, LLVMTypeRef to,
                               ptx_rnd rnd);
LLVMValueRef zn_round_fix(zn_lfn *l, LLVMValueRef r, LLVMValueRef err, ptx_rnd rnd);

/* ---- control flow (zn_lower_func.c) -------------------------------------- */

/* Moves lanes `taken` (subset of the block mask) to block T and the rest of
 * the block mask to block F (ZN_PC_DONE: finished). Ends the LLVM block. */
void zn_goto(zn_lfn *l, LLVMValueRef taken, uint32_t T, uint32_t F);
/* A guarded bra whose predicate a few instructions before it compute
 * (setps combined by or/and/xor/not.pred, nothing between writing their
 * sources), at least one comparing a lane-affine integer with a uniform
 * one (zn_lower_lanecmp.c): scalar i1 tests that every lane / no lane of
 * the warp takes it (sufficient for any mask: false when unsure). */
#define ZN_LANECMP_NODES 16
typedef struct zn_lanecmp {
    const ptx_ins *ins[ZN_LANECMP_NODES];   /* the tree, in program order */
    unsigned n;
    LLVMValueRef all, none;
} zn_lanecmp;
bool zn_lanecmp_branch(zn_lfn *l, const ptx_ins *bra, zn_lanecmp *out);
/* The branch's taken lanes, the tree lowered again here (its sources are
 * unchanged since it ran: zn_lanecmp_branch checked). */
LLVMValueRef zn_lanecmp_taken(zn_lfn *l, const zn_lanecmp *lc);
/* zn_goto for a branch with such tests: its uniform paths are taken on
 * the scalar tests, the vector compare only where the lanes may split. */
void zn_goto_lanecmp(zn_lfn *l, const zn_lanecmp *lc, uint32_t T, uint32_t F);
/* Partial-warp barriers (zn_lower_park.c). */
bool zn_bar_parkable(const ptx_ins *ins);
bool zn_park_wants_split(const zn_lfn *l);   /* split blocks at barriers? */
void zn_park_plan(zn_lfn *l);
bool zn_park_at(const zn_lfn *l, uint32_t k);
void zn_park_at_barrier(zn_lfn *l);
void zn_park_chain_end(zn_lfn *l);
bool zn_park_in(const zn_lfn *l, uint32_t h, uint32_t end);
/* Returns `status` (i32) from the function right now (trap, assert). */
void zn_return_status(zn_lfn *l, LLVMValueRef status);
/* After a call: lanes in `exited` (i32) leave the warp for good. */
void zn_lanes_exited(zn_lfn *l, LLVMValueRef exited);

/* ---- analyses ------------------------------------------------------------ */

/* Fills l->reg_inv: registers with one pure, time-invariant definition. */
void zn_invariant_regs(zn_lfn *l);
/* Fills l->reg_blocal: registers never live across a block boundary. */
void zn_block_local_regs(zn_lfn *l);
/* The registers an instruction reads (its guard, every operand it does
 * not fully write, a guarded write's destination) and those it fully
 * writes (an unguarded pure op's or load's first operand), in that order
 * (zn_lower_blocklocal.c). */
void zn_ins_regs(const ptx_ins *ins, void (*read)(int32_t, void *),
                 void (*write)(int32_t, void *), void *ud);
/* Registers dead for every lane from some block on (zn_lower_deadregs.c):
 * begin before the blocks are lowered (the lowering's own reads are
 * noted from then on), finish after, before the resume chain is built. */
void zn_dead_regs_begin(zn_lfn *l);
void zn_dead_regs_note_read(zn_lfn *l, int32_t reg);
void zn_dead_regs_finish(zn_lfn *l);
void zn_dead_regs_free(zn_lfn *l);
/* The blocks a lane in block k can go to next (l->nblocks: it returns),
 * up to two in out[]; -1 where any block may follow (brx.idx, a bad
 * label). zn_lower_uniform.c */
int zn_block_succs(const zn_lfn *l, uint32_t k, uint32_t out[2]);
/* l->f with its blocks in an order where lowest-pc-first scheduling
 * reconverges at immediate post-dominators, or NULL when it is one already,
 * cannot be, or neither `needed` nor a loop with two back edges asks for it
 * (zn_lower_layout.c); freed by zn_layout_free. */
struct ptx_func *zn_layout_func(const zn_lfn *l, bool needed);
void zn_layout_free(struct ptx_func *g);
/* Branches to trampoline blocks threaded to their targets
 * (zn_lower_thread.c): the plan, then a branch's target from block `from`. */
bool zn_thread_jumps_disabled(void);
void zn_thread_plan(zn_lfn *l);
uint32_t zn_thread_target(const zn_lfn *l, uint32_t from, uint32_t t);
/* Fills l->blk_conv and l->reg_uni (zn_lower_uniform.c). */
void zn_uniform_analysis(zn_lfn *l);
/* Whether block b starts with an unguarded ret or exit (or is the exit
 * node, b == nblocks). */
bool zn_block_is_exit(const zn_lfn *l, uint32_t b);
/* zn_lower_demote.c: a register whose value may live across blocks (not
 * block-local, not invariant); in a huge function all of them stay in
 * their stack slots instead of becoming phis in every block. Call after
 * the registers' allocas exist, in the entry block. */
bool zn_reg_crosses_blocks(const zn_lfn *l, uint32_t r);
uint32_t zn_demote_estimate(const zn_lfn *l);   /* such registers x dispatch targets */
void zn_demote_regs(zn_lfn *l);
/* An unguarded ld/ldu/st whose address is the same in every live lane
 * (div: the analysis' divergent set, NULL: after it, from l->reg_uni):
 * lowered as one scalar access. */
bool zn_uniform_access(zn_lfn *l, const ptx_ins *ins, const bool *div);
/* The address of the ld/ldu/st being lowered (l->ins) by the affine-address
 * analysis (zn_lower_affine.c): lane 0's i64 host address `base` (a scalar)
 * and i1 run-time facts built at the current position (NULL: never):
 * lin: lane l at base + l * s; rows: ntid.x = X divides 32 and lane
 * r * X + c at base + c * s + r * sy. */
typedef struct zn_aff_addr {
    int64_t s, sy;
    LLVMValueRef syv;           /* i64: sy as a run-time value, or NULL */
    LLVMValueRef base, lin, rows;
    LLVMValueRef ntid_x;        /* i32; NULL when the address has no %tid */
} zn_aff_addr;
bool zn_affine_addr(zn_lfn *l, zn_aff_addr *out);
/* The per-lane i64 host addresses of the ld/st being lowered, rebuilt at
 * the current position from the definitions the affine walk follows
 * (NULL: it cannot). For the fall-back path of a proven shape: the address
 * register's own vector is then not read, so a register that only
 * addresses read needs no per-lane definition (the <32 x i64> arithmetic
 * of `y * w + x` at every warp entry, kept alive through the phis of
 * divergent code). */
LLVMValueRef zn_affine_lanes(zn_lfn *l);
/* Integer register r as instruction `at` reads it, when lane l holds
 * *v0 + l * *s (mod 2^bits; *v0 a scalar built at the current position,
 * valid when nothing wrote r's inputs between `at` and here) under the i1
 * run-time facts *cond (NULL: none needed). */
bool zn_affine_reg_lin(zn_lfn *l, int32_t r, uint32_t at, LLVMValueRef *v0, int64_t *s,
                       LLVMValueRef *cond);
/* the function reads %tid.y or %tid.z: it expects 2D or 3D blocks */
bool zn_func_uses_2d(zn_lfn *l);
/* Deletes writes to registers (and mask/pc slots) that nothing reads and
 * what only they used, before LLVM's pipeline (zn_lower_dce.c). */
void zn_drop_dead_writes(zn_lfn *l);
/* The predicted offsets of the ld being lowered (l->ins) from lane 0's
 * address, one per lane (zn_lower_lanetab.c): a guess that the access
 * checks at run time; false: none. *step: what a loop iteration adds to
 * the address when it is stepped by immediates (0: not known). */
bool zn_lanetab_addr(zn_lfn *l, int64_t *out, int64_t *step);
/* The same prediction for register r (zeros for a uniform one). */
bool zn_lanetab_reg(zn_lfn *l, int32_t r, int64_t *out);
/* whether a lane table is all zeros (the same value in every lane) */
bool zn_lanetab_is_zero(const int64_t *t);
void zn_lanetab_free(struct zn_lanetab *t);
/* whether [addr] a is the same in every block of the grid (the walk
 * over %ctaid.x of zn_lower_prefetch.c finds it invariant) */
bool zn_prefetch_block_invariant(zn_lfn *l, const ptx_opnd *a);
/* A load whose lane groups read inside 64-byte windows (zn_lower_window.c):
 * plan (false: not worth it or not possible), then at run time the test
 * (i1; sets base and mi) and, where it holds, the loaded <32 x et>. */
typedef struct zn_window {
    int64_t t[ZN_LANES];        /* lane offsets from lane 0 */
    unsigned p, size;           /* lanes per window, bytes per lane */
    int64_t step;               /* the address's loop step, 0 if none */
    LLVMValueRef base, mi;      /* i64 lane-0 address, i32 active lanes */
} zn_window;
bool zn_window_plan(zn_lfn *l, unsigned size, zn_window *w);
LLVMValueRef zn_window_test(zn_lfn *l, zn_window *w, LLVMValueRef a);
LLVMValueRef zn_window_fetch(zn_lfn *l, const zn_window *w, LLVMTypeRef et);
/* acc + the dot products of the 4 bytes of a and b in each lane (signed
 * or unsigned bytes each), mod 2^32, with AVX-512 VNNI (zn_lower_bits.c:
 * dp4a; integer mma.sync) */
LLVMValueRef zn_dot4_vnni(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, LLVMValueRef acc,
                          bool sa, bool sb);
/* A u8/u16/u32 load from a module table of up to 128 bytes at a
 * lane-varying offset (zn_lower_table.c): byte permutes of the table where
 * every active lane's offset is inside it, zn_access_load elsewhere; false
 * (nothing emitted): not such a load. a: the lanes' host addresses. */
bool zn_table_load(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMTypeRef et,
                   LLVMValueRef *out);
/* After instruction ins (or at a block's start, ins NULL): forget the
 * remembered window tests whose register ins may have written, or all of
 * them when ins leaves straight-line code, so that a later load never
 * reuses a stale one; and update the carried slots of the registers ins
 * wrote (zn_winslot_def). */
void zn_window_forget(zn_lfn *l, const ptx_ins *ins);
/* i1: the active lanes of v (<32 x i64>) are base + t[lane] for one base
 * (*base, i64). */
LLVMValueRef zn_window_lanes_at(zn_lfn *l, LLVMValueRef v, const int64_t *t, LLVMValueRef *base);
/* Window tests carried around loops (zn_lower_winslot.c): plan before
 * lowering, slots in the prologue, zn_winslot_def after each instruction;
 * at a window load, known: whether the address's test is known to pass
 * (then *base is its base), and tested: record a test's answer. */
void zn_winslot_plan(zn_lfn *l);
void zn_winslot_prologue(zn_lfn *l);
void zn_winslot_def(zn_lfn *l, const ptx_ins *ins);
bool zn_winslot_known(zn_lfn *l, const ptx_opnd *a, LLVMValueRef *hit, LLVMValueRef *base);
void zn_winslot_tested(zn_lfn *l, const ptx_opnd *a, LLVMValueRef exact, LLVMValueRef base);
/* the same for a load whose register's table is lane * stride (the
 * contiguous run-time shape of zn_lower_access.c); *ao: its [addr] */
bool zn_winslot_contig(zn_lfn *l, uint64_t stride, LLVMValueRef *hit, LLVMValueRef *base,
                       const ptx_opnd **ao);
void zn_winslot_free(struct zn_winslot *s);
/* Shared by both (zn_lower_invariant.c): ops without side effects whose
 * result depends on their operands only; ld.param of a kernel parameter;
 * f(reg) for every register an operand names. */
bool zn_op_is_pure(ptx_op op);
bool zn_is_kernel_param_load(zn_lfn *l, const ptx_ins *ins);
void zn_each_reg(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud);
/* f(reg) for the registers an instruction's first operand may write (all
 * but the [addr] of st/red). */
void zn_each_def(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud);
/* Each register's defining instructions (zn_each_def on every
 * instruction's first operand) as CSR: r's are (*defs)[(*start)[r] ..
 * (*start)[r + 1]); false without memory (both NULL). */
bool zn_reg_defs(const ptx_func *f, uint32_t **start, uint32_t **defs);
/* For zn_each_reg / zn_each_def: sets hit when a register is one of
 * r[0 .. n) (-1: no register). */
typedef struct zn_reg_hit {
    const int32_t *r;
    uint32_t n;
    bool hit;
} zn_reg_hit;
void zn_reg_hit_cb(int32_t r, void *ud);
/* whether ins writes (its destination operand; reads_too: or names in any
 * operand or its guard) one of r[0 .. n) (-1: none) */
bool zn_ins_touches(const ptx_ins *ins, const int32_t *r, uint32_t n, bool reads_too);

/* Non-temporal stores for kernels that stream their output past the
 * last-level cache (zn_lower_stream.c): the plan (per st, after
 * zn_record_plan), whether ins is such a store, its write prefetch only in
 * launches where it stays cached, the run-time test (i1: mask full, lane
 * 0's i64 address `base` on a line, the launch writing at least the cache
 * through `bytes` per thread) and the store itself. */
void zn_stream_plan(zn_lfn *l);
bool zn_stream_store(const zn_lfn *l, const ptx_ins *ins);
void zn_stream_prefetch_store(zn_lfn *l, const ptx_ins *ins);
/* before ins: an sfence where it orders memory and the function has such
 * stores (they are weakly ordered) */
void zn_stream_fence(zn_lfn *l, const ptx_ins *ins);
LLVMValueRef zn_stream_test(zn_lfn *l, LLVMValueRef mask, LLVMValueRef base, uint64_t bytes);
void zn_stream_store_vec(zn_lfn *l, LLVMValueRef v, LLVMValueRef ptr);

/* Pairs of 16-bit loads joined by mov.b32 {lo, hi} (zn_lower_pairld.c):
 * zn_pair_loads finds them (after zn_invariant_regs); the second load and
 * the mov are dropped, the first becomes *wide: a b32 load into the mov's
 * register, lowered with l->load_align = 2. */
void zn_pair_loads(zn_lfn *l);
static inline unsigned zn_ld_align(const zn_lfn *l, unsigned size)
{
    return l->load_align && l->load_align < size ? l->load_align : size;
}
bool zn_pair_dropped(const zn_lfn *l, const ptx_ins *ins);
bool zn_pair_head(const zn_lfn *l, const ptx_ins *ins, ptx_ins *wide);

/* Runs of 32- or 64-bit loads or stores of consecutive items at one
 * address register (zn_lower_record.c): zn_record_plan finds them (after
 * zn_pair_loads); the run's head (its first load, its last store) lowers
 * all of them (zn_lower_record, with `one` lowering a single ld or st for
 * the fall-back), the others are dropped. */
typedef void (*zn_lower_one_fn)(zn_lfn *l, const ptx_ins *ins);
bool zn_records_disabled(void);
void zn_record_plan(zn_lfn *l);
bool zn_record_dropped(const zn_lfn *l, const ptx_ins *ins);
bool zn_record_head(const zn_lfn *l, const ptx_ins *ins);
void zn_lower_record(zn_lfn *l, const ptx_ins *head, zn_lower_one_fn one);

/* ---- functions and module (zn_lower_func.c, zn_lower_module.c) ----------- */

bool zn_func_is_runtime(const ptx_func *f); /* vprintf, __assertfail, ... */
LLVMValueRef zn_declare_func(zn_lmod *m, const ptx_func *f);
void zn_lower_func(zn_lmod *m, const ptx_func *f, LLVMValueRef fn);
int zn_shared_layout(zn_lmod *m, const bool *want);
bool zn_func_uses_barrier(const ptx_module *pm, const ptx_func *f);
/* whether f, or a function it calls, has an instruction pred holds for */
bool zn_func_reaches(const ptx_module *pm, const ptx_func *f,
                     bool (*pred)(const ptx_func *, uint32_t));
/* the bra at f->ins[i] closes a spin-wait loop: it yields (zn_lower_module.c) */
bool zn_ins_spin_edge(const ptx_func *f, uint32_t i);
/* zn_lower_coro.c: kernels with barriers as coroutines */
bool zn_coro_disabled(void);    /* ZINC_NO_CORO */
bool zn_func_coro(const ptx_module *pm, const ptx_func *f);
/* an entry without block barriers whose grid-stride loops yield at their
 * backward branch, so the block's warps take turns per iteration (a
 * coroutine, zn_lower_coro.c) */
bool zn_func_grid_interleaved(const ptx_module *pm, const ptx_func *f);
/* l->gs_latch, where the function is interleaved (zn_func_grid_interleaved) */
void zn_grid_yield_latches(zn_lfn *l, const ptx_module *pm, const ptx_func *f);
/* at a grid-stride loop's backward branch: a yield when a lane takes it */
void zn_grid_loop_yield(zn_lfn *l);
void zn_coro_prologue(zn_lfn *l);
void zn_coro_return(zn_lfn *l, LLVMValueRef status); /* branches to the exit */
void zn_call_barrier_rt(zn_lfn *l, LLVMValueRef id, LLVMValueRef count, unsigned mode);
/* bar.sync/bar.arrive/barrier.* of the block (not bar.warp.sync) */
bool zn_ins_is_block_barrier(const ptx_ins *ins);
/* f->ins[i] is a bra back to *top (<= i): a loop's latch in nvcc's layout,
 * the body between them (zn_lower_module.c) */
bool zn_ins_backward_branch(const ptx_func *f, uint32_t i, uint32_t *top);
/* the instruction index a `bra` to a label goes to; UINT32_MAX: not one */
uint32_t zn_bra_target(const ptx_func *f, const ptx_ins *br);
/* polls memory other blocks write: strong global loads, nanosleep */
bool zn_func_polls(const ptx_module *pm, const ptx_func *f);
uint32_t zn_func_local_bytes(const ptx_func *f);
bool zn_func_address_taken(const ptx_module *pm, const ptx_func *f);

#endif
