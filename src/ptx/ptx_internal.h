/* ptx_internal.h: symbols shared between the front end's files (not part of
 * the layer's interface; see ptx_ir.h for that). */
#ifndef ZN_PTX_INTERNAL_H
#define ZN_PTX_INTERNAL_H

#include <setjmp.h>
#include "ptx_ir.h"

#define PTX_HIDDEN __attribute__((visibility("hidden")))

/* ---- arena (ptx_arena.c): module-owned memory, freed in one step ---------- */

typedef struct ptx_arena ptx_arena;
PTX_HIDDEN ptx_arena *ptx_arena_new(void);
PTX_HIDDEN void ptx_arena_free(ptx_arena *a);
PTX_HIDDEN void *ptx_arena_alloc(ptx_arena *a, size_t n);    /* zeroed */
PTX_HIDDEN char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n);

/* A growable array in malloc'd memory owned by the parser; finished into
 * the arena at its exact size (so the module keeps no slack). */
typedef struct ptx_vec {
    void *data;
    uint32_t n, cap;
    size_t esz;
} ptx_vec;
PTX_HIDDEN void *ptx_vec_push(ptx_vec *v);                   /* zeroed slot */
PTX_HIDDEN void *ptx_vec_finish(ptx_vec *v, ptx_arena *a);   /* NULL if empty */
PTX_HIDDEN void ptx_vec_free(ptx_vec *v);

/* ---- string map (ptx_map.c): name -> int64, open addressing ---------------- */

typedef struct ptx_map_slot {
    const char *key;
    uint32_t klen;
    uint32_t hash;
    int64_t val;
} ptx_map_slot;
typedef struct ptx_map {
    ptx_map_slot *slots;
    uint32_t cap, n;
} ptx_map;
/* returns true and *val when present */
PTX_HIDDEN bool ptx_map_get(const ptx_map *m, const char *k, size_t klen, int64_t *val);
/* key must outlive the map; returns the previous value or -1 */
PTX_HIDDEN int64_t ptx_map_set(ptx_map *m, const char *k, size_t klen, int64_t val);
PTX_HIDDEN void ptx_map_free(ptx_map *m);

/* ---- tables (ptx_tables.c) -------------------------------------------------- */

PTX_HIDDEN int ptx_lookup_op(const char *s, size_t n);        /* -1 if unknown */
PTX_HIDDEN int ptx_lookup_mod(const char *s, size_t n, ptx_op op); /* 0 if unknown */
PTX_HIDDEN ptx_sreg ptx_lookup_sreg(const char *s, size_t n);  /* NONE if unknown */
PTX_HIDDEN ptx_type ptx_lookup_type(const char *s, size_t n);  /* "u32", NONE if not */

/* ---- lexer (ptx_lex.c) ------------------------------------------------------- */

typedef enum ptx_tok_kind {
    PTX_TK_EOF = 0,
    PTX_TK_IDENT,   /* foo, %r12, $L__BB0_2, _ */
    PTX_TK_DIR,     /* .reg, .u32, .shared::cta (text includes the dot) */
    PTX_TK_INT,     /* ival (unsigned 64-bit pattern) */
    PTX_TK_FBITS,   /* 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX: ival = bits, is_f64 */
    PTX_TK_DEC,     /* decimal float 1.5, 2e10: dval; also "9.0" for .version */
    PTX_TK_STRING,  /* "..." (text includes the quotes) */
    PTX_TK_PUNCT,   /* one char in c; "::" is c = ':' with len 2 */
    PTX_TK_ERROR    /* msg says why */
} ptx_tok_kind;

typedef struct ptx_tok {
    ptx_tok_kind kind;
    const char *s;      /* text in the source */
    uint32_t len;
    uint32_t line, col;
    uint64_t ival;
    double dval;
    bool is_f64;
    char c;
    const char *msg;
} ptx_tok;

typedef struct ptx_lexer {
    const char *text;
    size_t len, pos;
    uint32_t line, col;
} ptx_lexer;

PTX_HIDDEN void ptx_lex_init(ptx_lexer *lx, const char *text, size_t len);
PTX_HIDDEN void ptx_lex_next(ptx_lexer *lx, ptx_tok *t);

/* ---- parser state (ptx_parse*.c) ------------------------------------------ */

/* what a name in a function's scope stack is bound to */
typedef enum ptx_bind_kind {
    PTX_BIND_REG, PTX_BIND_VAR, PTX_BIND_PROTO, PTX_BIND_BTARGETS
} ptx_bind_kind;

typedef struct ptx_bind {
    const char *name;   /* as written (map key) */
    const char *uniq;   /* unique name in the flat function */
    ptx_bind_kind kind;
    int32_t idx;        /* REG: register id */
    uint32_t scope;     /* number of the scope that declared it (0 = body) */
    int64_t prev;       /* binding this one shadows, -1 if none */
    void *ptr;          /* PROTO: ptx_func*; BTARGETS: ptx_opnd* (a LIST) */
} ptx_bind;

enum { PTX_LOOKAHEAD = 4 };

typedef struct ptx_parser {
    ptx_lexer lx;
    ptx_tok la[PTX_LOOKAHEAD];  /* ring of peeked tokens */
    uint32_t la_head, la_n;
    uint32_t prev_line;         /* line of the last consumed token */
    const char *name;
    char *err;
    size_t errlen;
    jmp_buf jb;
    ptx_module *m;
    ptx_arena *a;

    ptx_vec vars, funcs;        /* module-level, finished at the end */
    ptx_vec items;              /* scratch: initializer values */
    ptx_vec scratch;            /* scratch: prototype params, list elements */
    ptx_map msyms;              /* name -> (index << 1) | is_func */

    /* the function being parsed */
    ptx_func curfn;             /* copied into funcs at the end */
    ptx_func *fn;               /* &curfn while in a function, else NULL */
    uint32_t scope_id[256];     /* ids of the open { } scopes */
    uint32_t scope_mark[256];   /* binds.n when each was opened */
    ptx_vec regs, locals, ins, labels, binds;
    ptx_vec labpos;             /* per label: where first referred to */
    ptx_map scope;              /* name -> index in binds */
    ptx_map labmap;             /* label name -> label index */
    uint32_t depth, nscopes;
    uint32_t loc_file, loc_line;
} ptx_parser;

PTX_HIDDEN _Noreturn void ptx_error_at(ptx_parser *p, const ptx_tok *t,
                                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
PTX_HIDDEN const ptx_tok *ptx_peek(ptx_parser *p, uint32_t k);
PTX_HIDDEN ptx_tok ptx_next(ptx_parser *p);
PTX_HIDDEN bool ptx_accept_punct(ptx_parser *p, char c);
PTX_HIDDEN void ptx_expect_punct(ptx_parser *p, char c);
PTX_HIDDEN bool ptx_tok_is(const ptx_tok *t, const char *s);
PTX_HIDDEN ptx_tok ptx_expect_ident(ptx_parser *p, const char *what);
PTX_HIDDEN int64_t ptx_parse_int_expr(ptx_parser *p);
PTX_HIDDEN uint32_t ptx_parse_u32(ptx_parser *p, const char *what);
PTX_HIDDEN void ptx_parse_loc(ptx_parser *p);
PTX_HIDDEN void ptx_skip_pragma(ptx_parser *p);
/* Binds a name in the current function scope; returns its unique name. */
PTX_HIDDEN const char *ptx_declare(ptx_parser *p, const ptx_tok *at,
                                   const char *name, size_t len,
                                   ptx_bind_kind kind, int32_t idx, void *ptr);

/* module level (ptx_parse_module.c) */
PTX_HIDDEN void ptx_parse_module(ptx_parser *p);

/* declarations (ptx_parse_decl.c) */
typedef struct ptx_decl_ctx {
    ptx_space space;
    ptx_linkage linkage;
    bool in_body;
} ptx_decl_ctx;
PTX_HIDDEN void ptx_parse_var_decl(ptx_parser *p, ptx_decl_ctx ctx, ptx_vec *out,
                                   bool allow_init, bool single);
PTX_HIDDEN void ptx_parse_param_list(ptx_parser *p, ptx_vec *out);

/* function bodies (ptx_parse_body.c) and instructions (ptx_parse_ins.c) */
PTX_HIDDEN void ptx_parse_body(ptx_parser *p);
PTX_HIDDEN int32_t ptx_label_ref(ptx_parser *p, const ptx_tok *t);
PTX_HIDDEN const ptx_bind *ptx_lookup_bind(ptx_parser *p, const char *s, size_t n);
PTX_HIDDEN void ptx_parse_instruction(ptx_parser *p);
PTX_HIDDEN void ptx_resolve_module(ptx_parser *p);

/* ptx_verify.c: ptx_verify() with the source name in messages */
PTX_HIDDEN int ptx_verify_named(const ptx_module *m, const char *name, char *err,
                                size_t errlen);

#endif
