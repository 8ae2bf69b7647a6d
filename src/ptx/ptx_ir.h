/* ptx_ir.h: the typed in-memory form of a PTX module.
 *
 * This is the front end's whole interface: the parser builds it, the printer
 * writes it back as PTX text that ptxas accepts, and the compiler lowers it
 * to LLVM IR. It knows nothing of the driver or of LLVM.
 *
 * Memory: everything a module owns (names, instructions, operand arrays)
 * lives in the module's arena and is freed in one step by ptx_module_free().
 */
#ifndef ZN_PTX_IR_H
#define ZN_PTX_IR_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ---- opcode and modifier tables (X-macros) ---------------------------- */

enum { PTX_OF_BRANCH = 1, PTX_OF_SIDE = 2, PTX_OF_CONVERGENT = 4 };

typedef enum ptx_op {
#define O(id, name, flags) PTX_OP_##id,
#include "ptx_ops.def"
#undef O
    PTX_OP_COUNT
} ptx_op;

typedef struct ptx_op_info {
    const char *name;
    unsigned flags;
} ptx_op_info;
extern const ptx_op_info ptx_op_table[PTX_OP_COUNT];

typedef enum ptx_mod_cat {
    PTX_MC_TYPE, PTX_MC_SPACE, PTX_MC_VEC, PTX_MC_RND, PTX_MC_CMP,
    PTX_MC_SUBOP, PTX_MC_SEM, PTX_MC_SCOPE, PTX_MC_FLAG, PTX_MC_CACHE,
    PTX_MC_SHAPE    /* selectors with no decoded field (matrix shapes and
                     * layouts, texture geometries, mbarrier modes):
                     * read them from ptx_ins.mods[] */
} ptx_mod_cat;

typedef enum ptx_mod {
    PTX_MOD_NONE = 0,
#define M(id, name, cat) PTX_MOD_##id,
#include "ptx_mods.def"
#undef M
    PTX_MOD_COUNT
} ptx_mod;

typedef struct ptx_mod_info {
    const char *name;
    ptx_mod_cat cat;
} ptx_mod_info;
extern const ptx_mod_info ptx_mod_table[PTX_MOD_COUNT];

/* ---- types and spaces ----------------------------------------------------- */

typedef enum ptx_type {
    PTX_T_NONE = 0,
    PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64, PTX_T_B128,
    PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
    PTX_T_F16, PTX_T_F16X2, PTX_T_BF16, PTX_T_BF16X2, PTX_T_TF32,
    PTX_T_F32, PTX_T_F64,
    PTX_T_E4M3X2, PTX_T_E5M2X2,
    PTX_T_U16X2, PTX_T_S16X2,   /* packed halves: add/min/max (sm_90) */
    PTX_T_PRED,
    PTX_T_COUNT
} ptx_type;

/* Size in bytes (pred: 1, b128: 16), and classification helpers. */
unsigned ptx_type_size(ptx_type t);
bool ptx_type_is_float(ptx_type t);   /* f16 f16x2 bf16 bf16x2 tf32 f32 f64 */
bool ptx_type_is_signed(ptx_type t);  /* s8..s64 */
const char *ptx_type_name(ptx_type t);/* "u32" (no dot) */

typedef enum ptx_space {
    PTX_SPACE_GENERIC = 0, /* no space modifier */
    PTX_SPACE_REG,
    PTX_SPACE_GLOBAL,
    PTX_SPACE_SHARED,      /* also shared::cta; shared::cluster maps here too */
    PTX_SPACE_LOCAL,
    PTX_SPACE_PARAM,
    PTX_SPACE_CONST,
    PTX_SPACE_COUNT
} ptx_space;

typedef enum ptx_rnd {
    PTX_RND_NONE = 0, PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP,
    PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI, PTX_RND_RNA,
    PTX_RND_RS
} ptx_rnd;

typedef enum ptx_cmp {
    PTX_CMP_NONE = 0,
    PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU,
    PTX_CMP_GEU, PTX_CMP_NUM, PTX_CMP_NAN
} ptx_cmp;

/* The instruction's sub-operation: atom/red/redux op, shfl mode, vote mode,
 * match mode, setp/set boolean combiner. */
typedef enum ptx_subop {
    PTX_SUB_NONE = 0,
    PTX_SUB_ADD, PTX_SUB_MIN, PTX_SUB_MAX, PTX_SUB_INC, PTX_SUB_DEC,
    PTX_SUB_EXCH, PTX_SUB_CAS, PTX_SUB_AND, PTX_SUB_OR, PTX_SUB_XOR,
    PTX_SUB_UP, PTX_SUB_DOWN, PTX_SUB_BFLY, PTX_SUB_IDX,
    PTX_SUB_ALL, PTX_SUB_ANY, PTX_SUB_UNI, PTX_SUB_BALLOT
} ptx_subop;

typedef enum ptx_sem {
    PTX_SEM_NONE = 0, PTX_SEM_RELAXED, PTX_SEM_ACQUIRE, PTX_SEM_RELEASE,
    PTX_SEM_ACQ_REL, PTX_SEM_SC, PTX_SEM_VOLATILE, PTX_SEM_WEAK, PTX_SEM_MMIO
} ptx_sem;

typedef enum ptx_scope {
    PTX_SCOPE_NONE = 0, PTX_SCOPE_CTA, PTX_SCOPE_GPU, PTX_SCOPE_SYS,
    PTX_SCOPE_CLUSTER
} ptx_scope;

/* Bits of ptx_ins.flags, one per FLAG modifier, in ptx_mods.def order. */
enum {
#define M(id, name, cat) PTX_FBIT_##id,
#include "ptx_mods.def"
#undef M
};
#define PTX_F(id) (UINT64_C(1) << (PTX_FBIT_##id - PTX_FBIT_ftz))
/* e.g. (ins->flags & PTX_F(ftz)), PTX_F(approx), PTX_F(wide), PTX_F(lo_half) */

/* ---- special registers ---------------------------------------------------- */

typedef enum ptx_sreg {
    PTX_SREG_NONE = 0,
    PTX_SREG_TID_X, PTX_SREG_TID_Y, PTX_SREG_TID_Z,
    PTX_SREG_NTID_X, PTX_SREG_NTID_Y, PTX_SREG_NTID_Z,
    PTX_SREG_CTAID_X, PTX_SREG_CTAID_Y, PTX_SREG_CTAID_Z,
    PTX_SREG_NCTAID_X, PTX_SREG_NCTAID_Y, PTX_SREG_NCTAID_Z,
    PTX_SREG_LANEID, PTX_SREG_WARPID, PTX_SREG_NWARPID,
    PTX_SREG_SMID, PTX_SREG_NSMID, PTX_SREG_GRIDID,
    PTX_SREG_LANEMASK_EQ, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_LT,
    PTX_SREG_LANEMASK_GE, PTX_SREG_LANEMASK_GT,
    PTX_SREG_CLOCK, PTX_SREG_CLOCK_HI, PTX_SREG_CLOCK64,
    PTX_SREG_GLOBALTIMER, PTX_SREG_GLOBALTIMER_LO, PTX_SREG_GLOBALTIMER_HI,
    PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE, PTX_SREG_AGGR_SMEM_SIZE,
    /* the GPU's reserved shared memory (sm_80+; cooperative groups) */
    PTX_SREG_RESERVED_SMEM_BEGIN, PTX_SREG_RESERVED_SMEM_END, PTX_SREG_RESERVED_SMEM_CAP,
    PTX_SREG_RESERVED_SMEM_0, PTX_SREG_RESERVED_SMEM_1,
    /* thread block clusters (sm_90) */
    PTX_SREG_CLUSTERID_X, PTX_SREG_CLUSTERID_Y, PTX_SREG_CLUSTERID_Z,
    PTX_SREG_NCLUSTERID_X, PTX_SREG_NCLUSTERID_Y, PTX_SREG_NCLUSTERID_Z,
    PTX_SREG_CLUSTER_CTAID_X, PTX_SREG_CLUSTER_CTAID_Y, PTX_SREG_CLUSTER_CTAID_Z,
    PTX_SREG_CLUSTER_NCTAID_X, PTX_SREG_CLUSTER_NCTAID_Y, PTX_SREG_CLUSTER_NCTAID_Z,
    PTX_SREG_CLUSTER_CTARANK, PTX_SREG_CLUSTER_NCTARANK, PTX_SREG_IS_EXPLICIT_CLUSTER,
    PTX_SREG_CURRENT_GRAPH_EXEC, /* the device graph a kernel runs in (sm_90) */
    PTX_SREG_ENVREG0, /* %envreg0..31 follow: PTX_SREG_ENVREG0 + n */
    PTX_SREG_COUNT = PTX_SREG_ENVREG0 + 32
} ptx_sreg;
const char *ptx_sreg_name(ptx_sreg s); /* "%tid.x" */
/* video instructions: 1 scalar (vadd ... vset, vmad), 2 vop2/vset2,
 * 4 vop4/vset4; 0 any other op */
unsigned ptx_video_kind(ptx_op op);

/* ---- operands ------------------------------------------------------------- */

typedef enum ptx_opnd_kind {
    PTX_OPND_NONE = 0,
    PTX_OPND_REG,      /* .reg: register id in the function */
    PTX_OPND_SREG,     /* special register */
    PTX_OPND_IMM,      /* integer immediate: .ival */
    PTX_OPND_FIMM,     /* float immediate: .fbits with .is_f64 (0fXXXXXXXX / 0dXXXX..) */
    PTX_OPND_SYM,      /* a variable or function name: .sym (+ .ival offset) */
    PTX_OPND_ADDR,     /* [base + ival]: base is reg (.reg) or symbol (.sym)
                        * or neither (absolute [imm]). Texture/surface
                        * operands [h, {x, y}] / [t, s, {x, y}]: base is
                        * h (or t), .elems the rest (s, then the VEC) */
    PTX_OPND_VEC,      /* {a, b, c, d}: .elems/.nelems (regs, imms, or sink) */
    PTX_OPND_LABEL,    /* branch target: .label = index in ptx_func.labels */
    PTX_OPND_SINK,     /* _ */
    PTX_OPND_LIST      /* (a, b, ...) in call: .elems/.nelems; also the
                        * target list of brx.idx (LABEL elements, taken
                        * from its .branchtargets declaration) */
} ptx_opnd_kind;

typedef struct ptx_var ptx_var;
typedef struct ptx_func ptx_func;

typedef struct ptx_opnd {
    ptx_opnd_kind kind;
    bool neg;           /* !%p (predicate negation in operand position) */
    bool pair;          /* dst written as %r|%p : .reg is the value, .reg2 the pred */
    int32_t reg;        /* register id; -1 if none */
    int32_t reg2;       /* second register of a %r|%p pair; -1 if none */
    ptx_sreg sreg;
    int64_t ival;       /* immediate value, or address/symbol offset */
    uint64_t fbits;     /* FIMM bit pattern (f32 in the low 32 bits) */
    bool is_f64;
    const ptx_var *var; /* SYM/ADDR: the variable referred to (NULL if a function) */
    const ptx_func *func; /* SYM: a function (call target / function address).
                         * The last operand of a call through a pointer
                         * names its .callprototype: a ptx_func with
                         * is_decl set that is NOT in ptx_module.funcs */
    const char *sym;    /* SYM/ADDR: the name as written */
    int32_t label;      /* LABEL: index into ptx_func.labels */
    struct ptx_opnd *elems;
    uint32_t nelems;
    /* video instructions: -%r (vmad's negated operands) and the selector
     * or mask suffix: %r1.b3210 -> vsel 'b', nsel 4, sel {3,2,1,0} (digits
     * as written); vsel 0 when none */
    bool minus;
    char vsel;
    uint8_t nsel;
    uint8_t sel[4];
} ptx_opnd;

/* ---- instructions --------------------------------------------------------- */

#define PTX_MAX_MODS 16
#define PTX_MAX_OPNDS 8

typedef struct ptx_ins {
    ptx_op op;
    /* guard predicate: @%p or @!%p; guard_reg = -1 when none */
    int32_t guard_reg;
    bool guard_neg;

    /* modifiers as written, in order (for the printer) */
    uint8_t nmods;
    uint16_t mods[PTX_MAX_MODS];

    /* the same, decoded */
    ptx_type type[3];   /* types in order written: cvt.f32.s32 -> {F32, S32};
                         * most ops use type[0] only. setp.lt.s32 -> {S32} */
    uint8_t ntypes;
    ptx_space space;    /* state space; GENERIC when none written */
    ptx_space space2;   /* cvta.to.global: space = GLOBAL with PTX_F(to); for
                         * cp.async.shared.global: space=SHARED, space2=GLOBAL */
    uint8_t vec;        /* 1, 2, 4 or 8 */
    ptx_rnd rnd;
    ptx_cmp cmp;
    ptx_subop subop;
    ptx_sem sem;
    ptx_scope scope;
    uint64_t flags;     /* PTX_F(...) bits */

    uint8_t nopnds;
    ptx_opnd opnds[PTX_MAX_OPNDS]; /* destination(s) first, as written */

    uint32_t line, col; /* position in the PTX text */
    uint32_t loc_file, loc_line; /* last .loc before it (0 = none) */
} ptx_ins;

/* ---- registers, variables, functions, module ------------------------------ */

typedef struct ptx_reg {
    const char *name;   /* "%r12", "%SP", scoped names get a unique suffix */
    ptx_type type;      /* declared type (.pred, .b32, .f64, ...) */
    uint8_t vec;        /* .reg .v2 .f32 %x: 2 (rare); 1 normally */
} ptx_reg;

typedef enum ptx_linkage {
    PTX_LINK_NONE = 0, PTX_LINK_VISIBLE, PTX_LINK_EXTERN, PTX_LINK_WEAK,
    PTX_LINK_COMMON
} ptx_linkage;

/* An address taken in an initializer: {foo, generic(bar)+8} */
typedef struct ptx_reloc {
    uint32_t offset;    /* byte offset in the variable */
    const char *sym;    /* variable or function name */
    int64_t addend;
    bool generic;       /* generic(sym): the generic address */
} ptx_reloc;

struct ptx_var {
    const char *name;
    ptx_space space;    /* GLOBAL, SHARED, CONST, LOCAL, PARAM */
    ptx_linkage linkage;
    ptx_type type;      /* element type */
    uint8_t vec;        /* .v2/.v4 element vector width, 1 normally */
    uint32_t align;     /* bytes; natural alignment of type when not written */
    uint64_t size;      /* total bytes; 0 for unsized extern arrays (dyn shared) */
    bool unsized;       /* name[] */
    uint8_t *init;      /* size bytes of initial value, NULL = zero */
    ptx_reloc *relocs;
    uint32_t nrelocs;
    uint32_t line;
    bool managed;       /* .attribute(.managed): a __managed__ variable */
    bool ptr_attrs;     /* .param .u64 .ptr .global ... on kernel params */
    ptx_space ptr_space;
    uint32_t ptr_align;
};

typedef struct ptx_label {
    const char *name;
    uint32_t ins;       /* index of the first instruction after the label */
} ptx_label;

struct ptx_func {
    const char *name;
    bool is_entry;      /* .entry (kernel) vs .func */
    bool is_decl;       /* prototype only (no body): extern or forward decl */
    ptx_linkage linkage;

    ptx_var *params;    /* .param list, in order; space PARAM (for .func
                         * parameters that are declared .reg, space REG;
                         * such .reg returns and then .reg params are also
                         * the body's first registers, ids 0.., in order) */
    uint32_t nparams;
    ptx_var *rets;      /* .func return parameters */
    uint32_t nrets;

    ptx_reg *regs;      /* every register declared anywhere in the body */
    uint32_t nregs;
    ptx_var *locals;    /* .local/.shared/.param(call scopes) declared in the
                         * body, scoped names made unique */
    uint32_t nlocals;

    ptx_ins *ins;       /* the body, flat; scopes { } are flattened */
    uint32_t nins;
    ptx_label *labels;
    uint32_t nlabels;

    /* performance directives; 0 = not given */
    uint32_t maxntid[3], reqntid[3], minnctapersm, maxnreg;
    bool noreturn;
    uint32_t line;
    /* cluster directives (sm_90); 0 = not given */
    uint32_t reqnctapercluster[3], maxclusterrank;
    bool explicitcluster;
};

typedef struct ptx_module {
    uint32_t version_major, version_minor; /* .version 9.0 */
    char target[32];    /* "sm_75" */
    uint32_t sm;        /* 75 */
    uint32_t address_size; /* 64 */

    ptx_var *vars;      /* module-scope variables (.global .const .shared
                         * .local), in order */
    uint32_t nvars;
    ptx_func *funcs;    /* .entry and .func, declarations included, in order */
    uint32_t nfuncs;

    char **files;       /* .file table: files[n] for ".file n" (NULL if absent) */
    uint32_t nfiles;

    void *arena;        /* owner of all of the above */
} ptx_module;

/* ---- API ----------------------------------------------------------------- */

/* Parses PTX text (len bytes, need not be NUL-terminated; trailing NULs are
 * fine). On error returns NULL and writes "name:line:col: message near 'tok'"
 * into err (errlen bytes). name labels the source in messages. */
ptx_module *ptx_parse(const char *text, size_t len, const char *name,
                      char *err, size_t errlen);
void ptx_module_free(ptx_module *m);

/* Checks types/operands per opcode family; 0 if fine, else -1 and a message
 * with line:col in err. ptx_parse() runs it already. */
int ptx_verify(const ptx_module *m, char *err, size_t errlen);

/* Writes the module back as PTX text that ptxas accepts. Returns a malloc'd
 * NUL-terminated string (caller frees). */
char *ptx_print(const ptx_module *m);

/* Links several modules into one (cuLink*, the translation units of an nvcc
 * -rdc program): .extern symbols resolve to the other images' definitions,
 * .weak definitions yield to strong ones, .common variables merge (largest),
 * private symbols that clash are renamed; .version/.target are the highest.
 * names[i] labels image i in messages. Returns a new module (the inputs are
 * not changed), and in *text (if not NULL) its PTX text, malloc'd; NULL and
 * a message in err on a duplicate strong definition (both images named), an
 * unresolved .extern (the symbol named) or conflicting kinds (ptx_link.c). */
ptx_module *ptx_link(const ptx_module *const *mods, const char *const *names, unsigned n,
                     char **text, char *err, size_t errlen);

/* Functions that Zinc provides to device code (ptx_runtime.c): the
 * runtime externs (vprintf, __assertfail, malloc, free, and the device
 * runtime's __cudaCDP2*), which stay declarations when linking. */
bool ptx_is_runtime_extern(const char *name);
bool ptx_is_device_runtime_call(const char *name);    /* __cudaCDP2* */
/* libcudadevrt's image (it defines __cudaCDP2LaunchDeviceV2 over NVIDIA's
 * firmware calls): ptx_link leaves it out. */
bool ptx_is_device_runtime_image(const ptx_module *m);

/* Lookups; NULL when absent. */
const ptx_func *ptx_find_func(const ptx_module *m, const char *name);
const ptx_var *ptx_find_var(const ptx_module *m, const char *name);

#endif
