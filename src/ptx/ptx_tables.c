/* ptx_tables.c: the opcode and modifier tables expanded from the .def
 * X-macros, type properties, and the special-register names. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "ptx_internal.h"

const ptx_op_info ptx_op_table[PTX_OP_COUNT] = {
#define O(id, name, flags) [PTX_OP_##id] = { name, flags },
#include "ptx_ops.def"
#undef O
};

const ptx_mod_info ptx_mod_table[PTX_MOD_COUNT] = {
    [PTX_MOD_NONE] = { "", PTX_MC_FLAG },
#define M(id, name, cat) [PTX_MOD_##id] = { name, PTX_MC_##cat },
#include "ptx_mods.def"
#undef M
};

/* The TYPE rows of ptx_mods.def are in ptx_type order. */
_Static_assert(PTX_MOD_pred - PTX_MOD_b8 == PTX_T_PRED - PTX_T_B8,
               "ptx_mods.def type rows must follow enum ptx_type");

static const struct { const char *name; unsigned size; } type_info[PTX_T_COUNT] = {
    [PTX_T_NONE] = { "", 0 },
    [PTX_T_B8] = { "b8", 1 },   [PTX_T_B16] = { "b16", 2 },
    [PTX_T_B32] = { "b32", 4 }, [PTX_T_B64] = { "b64", 8 },
    [PTX_T_B128] = { "b128", 16 },
    [PTX_T_U8] = { "u8", 1 },   [PTX_T_U16] = { "u16", 2 },
    [PTX_T_U32] = { "u32", 4 }, [PTX_T_U64] = { "u64", 8 },
    [PTX_T_S8] = { "s8", 1 },   [PTX_T_S16] = { "s16", 2 },
    [PTX_T_S32] = { "s32", 4 }, [PTX_T_S64] = { "s64", 8 },
    [PTX_T_F16] = { "f16", 2 }, [PTX_T_F16X2] = { "f16x2", 4 },
    [PTX_T_BF16] = { "bf16", 2 }, [PTX_T_BF16X2] = { "bf16x2", 4 },
    [PTX_T_TF32] = { "tf32", 4 },
    [PTX_T_F32] = { "f32", 4 }, [PTX_T_F64] = { "f64", 8 },
    [PTX_T_E4M3X2] = { "e4m3x2", 2 }, [PTX_T_E5M2X2] = { "e5m2x2", 2 },
    [PTX_T_U16X2] = { "u16x2", 4 }, [PTX_T_S16X2] = { "s16x2", 4 },
    [PTX_T_PRED] = { "pred", 1 },
};

unsigned ptx_type_size(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_info[t].size : 0;
}

bool ptx_type_is_float(ptx_type t)
{
    return (t >= PTX_T_F16 && t <= PTX_T_F64);
}

bool ptx_type_is_signed(ptx_type t)
{
    return t >= PTX_T_S8 && t <= PTX_T_S64;
}

const char *ptx_type_name(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_info[t].name : "?";
}

ptx_type ptx_lookup_type(const char *s, size_t n)
{
    for (int t = PTX_T_B8; t < PTX_T_COUNT; t++)
        if (strlen(type_info[t].name) == n && !memcmp(type_info[t].name, s, n))
            return (ptx_type)t;
    return PTX_T_NONE;
}

/* Name indexes of the opcode and modifier tables: chains of table rows
 * by a hash of the name, in table order. The parser looks up every
 * opcode and modifier of every instruction; a scan of ~250 modifier names
 * per token was a tenth of llama.cpp's load (174 MB of PTX parsed at
 * cuModuleLoad). Built once per process. */
#define NAME_HASH 1024
typedef struct name_index {
    const char *(*name)(int);   /* row's name */
    uint16_t head[NAME_HASH];   /* first row + 1, 0: none */
    uint16_t *next;             /* next row + 1 with the same hash */
    uint8_t *len;
} name_index;

static const char *op_name(int i) { return ptx_op_table[i].name; }
static const char *mod_name(int i) { return ptx_mod_table[i].name; }

static uint16_t op_next[PTX_OP_COUNT], mod_next[PTX_MOD_COUNT];
static uint8_t op_len[PTX_OP_COUNT], mod_len[PTX_MOD_COUNT];
static name_index op_index = {.name = op_name, .next = op_next, .len = op_len};
static name_index mod_index = {.name = mod_name, .next = mod_next, .len = mod_len};
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static unsigned name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h & (NAME_HASH - 1);
}

static void index_rows(name_index *x, int first, int count)
{
    for (int i = count - 1; i >= first; i--) {   /* from the end: chains in table order */
        const char *nm = x->name(i);
        size_t n = strlen(nm);
        unsigned h = name_hash(nm, n);
        x->len[i] = (uint8_t)n;
        x->next[i] = x->head[h];
        x->head[h] = (uint16_t)(i + 1);
    }
}

static void build_indexes(void)
{
    _Static_assert(PTX_OP_COUNT < UINT16_MAX && PTX_MOD_COUNT < UINT16_MAX, "row ids fit");
    index_rows(&op_index, 0, PTX_OP_COUNT);
    index_rows(&mod_index, 1, PTX_MOD_COUNT);
}

/* the next row after row+1 (0: start) named s[0..n), +1; 0 at the end */
static int next_named(const name_index *x, int row1, const char *s, size_t n)
{
    int r = row1 ? x->next[row1 - 1] : x->head[name_hash(s, n)];
    for (; r; r = x->next[r - 1])
        if (x->len[r - 1] == n && !memcmp(x->name(r - 1), s, n))
            return r;
    return 0;
}

int ptx_lookup_op(const char *s, size_t n)
{
    pthread_once(&index_once, build_indexes);
    return next_named(&op_index, 0, s, n) - 1;
}

/* A spelling listed twice is chosen by opcode (see ptx_mods.def): the vote
 * sub-operation "uni", and the set/setp comparisons "lo"/"hi". */
int ptx_lookup_mod(const char *s, size_t n, ptx_op op)
{
    pthread_once(&index_once, build_indexes);
    int found = 0;
    for (int r = next_named(&mod_index, 0, s, n); r; r = next_named(&mod_index, r, s, n)) {
        int i = r - 1;
        ptx_mod_cat c = ptx_mod_table[i].cat;
        if (!found)
            found = i;
        if (op == PTX_OP_vote && c == PTX_MC_SUBOP)
            return i;
        if ((op == PTX_OP_set || op == PTX_OP_setp) && c == PTX_MC_CMP)
            return i;
        if (op != PTX_OP_vote && op != PTX_OP_set && op != PTX_OP_setp &&
            c == PTX_MC_FLAG)
            return i;
    }
    return found;
}

static const char *const sreg_names[PTX_SREG_ENVREG0] = {
    [PTX_SREG_NONE] = "",
    [PTX_SREG_TID_X] = "%tid.x", [PTX_SREG_TID_Y] = "%tid.y",
    [PTX_SREG_TID_Z] = "%tid.z",
    [PTX_SREG_NTID_X] = "%ntid.x", [PTX_SREG_NTID_Y] = "%ntid.y",
    [PTX_SREG_NTID_Z] = "%ntid.z",
    [PTX_SREG_CTAID_X] = "%ctaid.x", [PTX_SREG_CTAID_Y] = "%ctaid.y",
    [PTX_SREG_CTAID_Z] = "%ctaid.z",
    [PTX_SREG_NCTAID_X] = "%nctaid.x", [PTX_SREG_NCTAID_Y] = "%nctaid.y",
    [PTX_SREG_NCTAID_Z] = "%nctaid.z",
    [PTX_SREG_LANEID] = "%laneid", [PTX_SREG_WARPID] = "%warpid",
    [PTX_SREG_NWARPID] = "%nwarpid", [PTX_SREG_SMID] = "%smid",
    [PTX_SREG_NSMID] = "%nsmid", [PTX_SREG_GRIDID] = "%gridid",
    [PTX_SREG_LANEMASK_EQ] = "%lanemask_eq",
    [PTX_SREG_LANEMASK_LE] = "%lanemask_le",
    [PTX_SREG_LANEMASK_LT] = "%lanemask_lt",
    [PTX_SREG_LANEMASK_GE] = "%lanemask_ge",
    [PTX_SREG_LANEMASK_GT] = "%lanemask_gt",
    [PTX_SREG_CLOCK] = "%clock", [PTX_SREG_CLOCK_HI] = "%clock_hi",
    [PTX_SREG_CLOCK64] = "%clock64",
    [PTX_SREG_GLOBALTIMER] = "%globaltimer",
    [PTX_SREG_GLOBALTIMER_LO] = "%globaltimer_lo",
    [PTX_SREG_GLOBALTIMER_HI] = "%globaltimer_hi",
    [PTX_SREG_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size",
    [PTX_SREG_TOTAL_SMEM_SIZE] = "%total_smem_size",
    [PTX_SREG_AGGR_SMEM_SIZE] = "%aggr_smem_size",
    [PTX_SREG_RESERVED_SMEM_BEGIN] = "%reserved_smem_offset_begin",
    [PTX_SREG_RESERVED_SMEM_END] = "%reserved_smem_offset_end",
    [PTX_SREG_RESERVED_SMEM_CAP] = "%reserved_smem_offset_cap",
    [PTX_SREG_RESERVED_SMEM_0] = "%reserved_smem_offset_0",
    [PTX_SREG_RESERVED_SMEM_1] = "%reserved_smem_offset_1",
    [PTX_SREG_CLUSTERID_X] = "%clusterid.x", [PTX_SREG_CLUSTERID_Y] = "%clusterid.y",
    [PTX_SREG_CLUSTERID_Z] = "%clusterid.z",
    [PTX_SREG_NCLUSTERID_X] = "%nclusterid.x", [PTX_SREG_NCLUSTERID_Y] = "%nclusterid.y",
    [PTX_SREG_NCLUSTERID_Z] = "%nclusterid.z",
    [PTX_SREG_CLUSTER_CTAID_X] = "%cluster_ctaid.x",
    [PTX_SREG_CLUSTER_CTAID_Y] = "%cluster_ctaid.y",
    [PTX_SREG_CLUSTER_CTAID_Z] = "%cluster_ctaid.z",
    [PTX_SREG_CLUSTER_NCTAID_X] = "%cluster_nctaid.x",
    [PTX_SREG_CLUSTER_NCTAID_Y] = "%cluster_nctaid.y",
    [PTX_SREG_CLUSTER_NCTAID_Z] = "%cluster_nctaid.z",
    [PTX_SREG_CLUSTER_CTARANK] = "%cluster_ctarank",
    [PTX_SREG_CLUSTER_NCTARANK] = "%cluster_nctarank",
    [PTX_SREG_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster",
    [PTX_SREG_CURRENT_GRAPH_EXEC] = "%current_graph_exec",
};

static const char *const envreg_names[32] = {
    "%envreg0", "%envreg1", "%envreg2", "%envreg3", "%envreg4", "%envreg5",
    "%envreg6", "%envreg7", "%envreg8", "%envreg9", "%envreg10", "%envreg11",
    "%envreg12", "%envreg13", "%envreg14", "%envreg15", "%envreg16",
    "%envreg17", "%envreg18", "%envreg19", "%envreg20", "%envreg21",
    "%envreg22", "%envreg23", "%envreg24", "%envreg25", "%envreg26",
    "%envreg27", "%envreg28", "%envreg29", "%envreg30", "%envreg31",
};

const char *ptx_sreg_name(ptx_sreg s)
{
    if ((unsigned)s < PTX_SREG_ENVREG0)
        return sreg_names[s];
    if ((unsigned)s < PTX_SREG_COUNT)
        return envreg_names[s - PTX_SREG_ENVREG0];
    return "?";
}

ptx_sreg ptx_lookup_sreg(const char *s, size_t n)
{
    for (int i = 1; i < PTX_SREG_COUNT; i++) {
        const char *nm = ptx_sreg_name((ptx_sreg)i);
        if (strlen(nm) == n && !memcmp(nm, s, n))
            return (ptx_sreg)i;
    }
    return PTX_SREG_NONE;
}

_Static_assert(PTX_MOD_shr15 - PTX_MOD_ftz < 64, "FLAG modifiers must fit ptx_ins.flags");

unsigned ptx_video_kind(ptx_op op)
{
    switch (op) {
    case PTX_OP_vadd: case PTX_OP_vsub: case PTX_OP_vabsdiff: case PTX_OP_vmin:
    case PTX_OP_vmax: case PTX_OP_vshl: case PTX_OP_vshr: case PTX_OP_vmad:
    case PTX_OP_vset:
        return 1;
    case PTX_OP_vadd2: case PTX_OP_vsub2: case PTX_OP_vavrg2: case PTX_OP_vabsdiff2:
    case PTX_OP_vmin2: case PTX_OP_vmax2: case PTX_OP_vset2:
        return 2;
    case PTX_OP_vadd4: case PTX_OP_vsub4: case PTX_OP_vavrg4: case PTX_OP_vabsdiff4:
    case PTX_OP_vmin4: case PTX_OP_vmax4: case PTX_OP_vset4:
        return 4;
    default:
        return 0;
    }
}
