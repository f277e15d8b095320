/* pprint.c: the pretty printer (CLHS 22.2): pretty streams and logical blocks, the layout of
 * their text (XP's algorithm), the standard layouts of code and data, and the PPRINT-...
 * functions. The plain printer is printer.c. */
#include "pprint.h"
#include "prim.h"
#include "package.h"
#include "lstring.h"
#include "stream.h"
#include "number.h"
#include "eval.h"
#include "hash.h"
#include "array.h"

/* ================================================================== */
/* The pretty printer                                                  */
/*
 * A pretty stream is a string output stream collecting the text of the outermost logical
 * block; the operations (block starts and ends, conditional newlines, indentation, tabs) are
 * recorded with their positions in the text. When the outermost block ends the whole is laid
 * out by the algorithm of XP (Waters) as SBCL runs it, and written to the target stream.
 *
 * The registry SYSTEM::*PRETTY-STREAMS* is a list of context vectors:
 *   [0] the pretty stream  [1] the target  [2] ops vector  [3] op count  [4] open blocks
 * and each op takes OPW slots of the ops vector: kind, position, depth, a, b.
 */

enum { OP_BLOCK_START, OP_BLOCK_END, OP_NEWLINE, OP_INDENT, OP_TAB };
#define OPW 5
enum { CTX_STREAM, CTX_TARGET, CTX_OPS, CTX_NOPS, CTX_DEPTH, CTX_SIZE };

static Obj pp_context(Lisp *L, Obj stream) {
    for (Obj l = SYM(S(PP_PRETTY_STREAMS))->value; is_cons(l); l = CDR(l))
        if (VEC(CAR(l))->data[CTX_STREAM] == stream) return CAR(l);
    return NIL;
}

bool pp_stream_p(Lisp *L, Obj stream) { return pp_context(L, stream) != NIL; }

static void pp_record(Lisp *L, Obj ctx, int kind, Obj a, Obj b) {
    Vector *c = VEC(ctx);
    long n = (long)fixnum_val(c->data[CTX_NOPS]);
    Obj ops = c->data[CTX_OPS];
    if ((size_t)(n + 1) * OPW > VEC(ops)->len) {
        size_t ncap = VEC(ops)->len * 2;
        Vector *nv = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + ncap * sizeof(Obj));
        nv->len = ncap;
        memcpy(nv->data, VEC(ops)->data, VEC(ops)->len * sizeof(Obj));
        for (size_t i = VEC(ops)->len; i < ncap; i++) nv->data[i] = NIL;
        ops = (Obj)nv;
        c->data[CTX_OPS] = ops;
    }
    Obj *op = VEC(ops)->data + n * OPW;
    op[0] = FIX(kind);
    op[1] = FIX((intptr_t)STREAM(c->data[CTX_STREAM])->buf.len);
    op[2] = c->data[CTX_DEPTH];
    op[3] = a;
    op[4] = b;
    c->data[CTX_NOPS] = FIX(n + 1);
}

static Obj pp_new_context(Lisp *L, Obj target) {
    Vector *c = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + CTX_SIZE * sizeof(Obj));
    c->len = CTX_SIZE;
    /* a capped target (a session's output limit) caps the buffer too, so that printing a
     * circular list without *print-circle* ends */
    size_t cap = STREAM(target)->cap;
    Obj s = cap ? make_capped_output_stream(L, cap + cap / 2 + 4096) : make_string_output_stream(L);
    STREAM(s)->column = stream_column(L, target);
    c->data[CTX_STREAM] = s;
    c->data[CTX_TARGET] = target;
    size_t opcap = 64 * OPW;
    Vector *ops = (Vector *)heap_alloc(L, T_VECTOR, sizeof(Vector) + opcap * sizeof(Obj));
    ops->len = opcap;
    for (size_t i = 0; i < opcap; i++) ops->data[i] = NIL;
    c->data[CTX_OPS] = (Obj)ops;
    c->data[CTX_NOPS] = FIX(0);
    c->data[CTX_DEPTH] = FIX(0);
    return (Obj)c;
}

static bool print_pretty_p(Lisp *L) { return SYM(S(PRINT_PRETTY))->value != NIL; }

void pp_newline(Lisp *L, Obj stream, int kind) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_NEWLINE, FIX(kind), NIL);
}

void pp_indent(Lisp *L, Obj stream, int kind, long n) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_INDENT, FIX(kind), FIX(n));
}

void pp_tab(Lisp *L, Obj stream, int kind, long colnum, long colinc) {
    Obj ctx = pp_context(L, stream);
    if (ctx == NIL || !print_pretty_p(L)) return;
    pp_record(L, ctx, OP_TAB, FIX(kind), cons(L, FIX(colnum), FIX(colinc)));
}

/* ---- layout ---- */

typedef struct LOp {
    int kind;
    long pos, depth;
    Obj a, b;
    long end;          /* section end: index of the op, -1 none */
    long match;        /* block start: its end */
    long next_forced;  /* the next mandatory or literal newline after this op, -1 none */
    long parent;       /* tab or block start: the start of the innermost block around it, -1 none */
    long col;          /* block start: its column, once a tab in it was done; -1 before */
} LOp;

typedef struct LBlock {
    long start_col, section_col, per_line_end, prefix_len, suffix_len, section_start_line;
    Obj suffix;
} LBlock;

typedef struct Layout {
    Lisp *L;
    Obj target;
    const uint32_t *text;
    long n;
    LOp *ops;
    long nops;
    StrBuf line;       /* the current output line: prefix, then text */
    long emitted;      /* text index up to which text is in LINE */
    long line_number;
    long line_length, miser_width, print_lines;
    bool readably;
    LBlock *blocks;
    int nblocks, capblocks;
    uint32_t *prefix;
    long prefix_cap;
    bool stopped;      /* *print-lines* reached */
    long col_base;     /* the target's column where the current line's buffer starts */
    long cur;          /* the op being processed */
    bool has_tabs;
} Layout;

static long lay_column(Layout *y, long pos) { return y->col_base + (long)y->line.len + (pos - y->emitted); }

static void lay_emit_to(Layout *y, long pos) {
    if (pos > y->emitted) {
        sb_putn(y->L, &y->line, y->text + y->emitted, (size_t)(pos - y->emitted));
        y->emitted = pos;
    }
}

static LBlock *lay_top(Layout *y) { return &y->blocks[y->nblocks - 1]; }

static void lay_prefix_room(Layout *y, long n) {
    if (n <= y->prefix_cap) return;
    long nc = y->prefix_cap * 2 > n ? y->prefix_cap * 2 : n + 16;
    uint32_t *np = (uint32_t *)gc_alloc_atomic(y->L, (size_t)nc * sizeof(uint32_t));
    memcpy(np, y->prefix, (size_t)y->prefix_cap * sizeof(uint32_t));
    y->prefix = np;
    y->prefix_cap = nc;
}

static void lay_set_indentation(Layout *y, long column) {
    LBlock *b = lay_top(y);
    if (column < b->per_line_end) column = b->per_line_end;
    lay_prefix_room(y, column + 1);
    for (long i = b->prefix_len; i < column; i++) y->prefix[i] = ' ';
    b->prefix_len = column;
}

static void lay_start_block(Layout *y, long column, Obj per_line_prefix, Obj suffix) {
    if (y->nblocks == y->capblocks) {
        int nc = y->capblocks * 2;
        LBlock *nb = (LBlock *)gc_alloc(y->L, (size_t)nc * sizeof(LBlock));
        memcpy(nb, y->blocks, (size_t)y->nblocks * sizeof(LBlock));
        y->blocks = nb;
        y->capblocks = nc;
    }
    LBlock *prev = lay_top(y);
    LBlock *b = &y->blocks[y->nblocks++];
    b->start_col = column;
    b->section_col = column;
    b->per_line_end = prev->per_line_end;
    b->prefix_len = prev->prefix_len;
    b->suffix_len = prev->suffix_len;
    b->section_start_line = y->line_number;
    b->suffix = NIL;
    lay_set_indentation(y, column);
    if (per_line_prefix != NIL) {
        long len = (long)STR(per_line_prefix)->len;
        b->per_line_end = column;
        lay_prefix_room(y, column + 1);
        long from = column - len;
        for (long i = 0; i < len; i++)
            if (from + i >= 0) y->prefix[from + i] = STR(per_line_prefix)->data[i];
    }
    if (suffix != NIL && STR(suffix)->len > 0) {
        b->suffix = suffix;
        b->suffix_len += (long)STR(suffix)->len;
    }
}

static void lay_end_block(Layout *y) {
    if (y->nblocks <= 1) return;
    LBlock *old = lay_top(y);
    y->nblocks--;
    LBlock *nw = lay_top(y);
    if (nw->prefix_len > old->prefix_len) {
        lay_prefix_room(y, nw->prefix_len + 1);
        for (long i = old->prefix_len; i < nw->prefix_len; i++) y->prefix[i] = ' ';
    }
}

static bool lay_misering(Layout *y) {
    return y->miser_width >= 0 && (y->line_length - lay_top(y)->start_col) <= y->miser_width;
}

enum { FIT_NO, FIT_YES, FIT_STOP };

static long lay_tab_size(Layout *y, LOp *op, long column);

/* The column of text position POS if printed flat from here, counting the tabs before it. */
static long lay_column_ahead(Layout *y, long pos) {
    if (!y->has_tabs) return lay_column(y, pos);
    long extra = 0;
    for (long q = y->cur; q < y->nops && y->ops[q].pos < pos; q++)
        if (y->ops[q].kind == OP_TAB && y->ops[q].pos >= y->emitted)
            extra += lay_tab_size(y, &y->ops[q], lay_column(y, y->ops[q].pos) + extra);
    return lay_column(y, pos) + extra;
}

static int lay_fits(Layout *y, long i) {
    long available = y->line_length;
    if (!y->readably && y->print_lines >= 0 && y->print_lines == y->line_number)
        available -= 3 + lay_top(y)->suffix_len;
    LOp *op = &y->ops[i];
    long e = op->end;
    if (op->next_forced >= 0 && (e < 0 || op->next_forced < e)) return FIT_NO;
    if (e >= 0) return lay_column_ahead(y, y->ops[e].pos) <= available ? FIT_YES : FIT_NO;
    return lay_column_ahead(y, y->n) > available ? FIT_NO : FIT_STOP;
}

static void lay_write_line(Layout *y) {
    stream_write_u32(y->L, y->target, y->line.data, y->line.len);
    y->line.len = 0;
}

/* Take a newline at op I. */
static void lay_output_line(Layout *y, long i) {
    LOp *op = &y->ops[i];
    bool literal = op->kind == OP_NEWLINE && fixnum_val(op->a) == PP_LITERAL;
    lay_emit_to(y, op->pos);
    if (!literal)
        while (y->line.len > 0 && y->line.data[y->line.len - 1] == ' ') y->line.len--;
    lay_write_line(y);
    long line_number = y->line_number + 1;
    if (!y->readably && y->print_lines >= 0 && line_number >= y->print_lines) {
        stream_write_cstr(y->L, y->target, " ..");
        for (int k = y->nblocks - 1; k >= 1; k--)
            if (y->blocks[k].suffix != NIL) stream_write_u32(y->L, y->target, STR(y->blocks[k].suffix)->data, STR(y->blocks[k].suffix)->len);
        y->stopped = true;
        return;
    }
    y->line_number = line_number;
    stream_write_char(y->L, y->target, '\n');
    y->col_base = 0;
    LBlock *b = lay_top(y);
    long prefix_len = literal ? b->per_line_end : b->prefix_len;
    lay_prefix_room(y, prefix_len + 1);
    sb_putn(y->L, &y->line, y->prefix, (size_t)prefix_len);
    if (!literal) {
        b->section_col = prefix_len;
        b->section_start_line = line_number;
    }
}

static long lay_tab_size(Layout *y, LOp *op, long column) {
    int kind = (int)fixnum_val(op->a);
    long colnum = (long)fixnum_val(CAR(op->b)), colinc = (long)fixnum_val(CDR(op->b));
    bool sectionp = kind == PP_TAB_SECTION || kind == PP_TAB_SECTION_RELATIVE;
    bool relativep = kind == PP_TAB_LINE_RELATIVE || kind == PP_TAB_SECTION_RELATIVE;
    long origin = sectionp ? lay_top(y)->section_col : 0;
    long bi = op->parent;
    if (sectionp && bi >= 0 && y->nblocks - 1 < y->ops[bi].depth + 1) {
        /* the block was not started because it fits on the line (or is measured ahead):
         * no newline was taken in it, so its section starts where the block starts */
        origin = y->ops[bi].col >= 0 ? y->ops[bi].col : lay_column(y, y->ops[bi].pos);
    }
    long position = column - origin;
    if (relativep) {
        if (colinc > 1) {
            long newposn = position + colnum;
            long rem = newposn % colinc;
            if (rem) colnum += colinc - rem;
        }
        return colnum;
    }
    if (position < colnum) return colnum - position;
    if (colinc == 0) return 0;
    return colinc - (position - colnum) % colinc;
}

static void lay_do_tab(Layout *y, LOp *op) {
    lay_emit_to(y, op->pos);
    /* the columns of the blocks around the tab, before its spaces shift the text after them */
    for (long bi = op->parent; bi >= 0 && y->ops[bi].col < 0; bi = y->ops[bi].parent)
        y->ops[bi].col = lay_column(y, y->ops[bi].pos);
    long size = lay_tab_size(y, op, lay_column(y, op->pos));
    for (long k = 0; k < size; k++) sb_putc(y->L, &y->line, ' ');
}

static void pp_layout(Lisp *L, Obj ctx) {
    Vector *c = VEC(ctx);
    Obj pstream = c->data[CTX_STREAM];
    Obj target = c->data[CTX_TARGET];
    String raw;
    raw.data = STREAM(pstream)->buf.data;
    raw.len = STREAM(pstream)->buf.len;
    long nraw = (long)raw.len;
    long nops_raw = (long)fixnum_val(c->data[CTX_NOPS]);
    Obj *rops = VEC(c->data[CTX_OPS])->data;
    /* text without literal newlines, and ops with the literal newlines merged in */
    long nl = 0;
    for (long k = 0; k < nraw; k++) if (raw.data[k] == '\n') nl++;
    uint32_t *text = (uint32_t *)gc_alloc_atomic(L, (size_t)(nraw + 1) * sizeof(uint32_t));
    LOp *ops = (LOp *)gc_alloc(L, (size_t)(nops_raw + nl + 1) * sizeof(LOp));
    long nt = 0, no = 0, oi = 0, depth = 0;
    for (long k = 0; k <= nraw; k++) {
        while (oi < nops_raw && fixnum_val(rops[oi * OPW + 1]) <= k) {
            LOp *o = &ops[no++];
            o->kind = (int)fixnum_val(rops[oi * OPW]);
            o->pos = nt;
            o->depth = (long)fixnum_val(rops[oi * OPW + 2]);
            o->a = rops[oi * OPW + 3];
            o->b = rops[oi * OPW + 4];
            if (o->kind == OP_BLOCK_START) depth = o->depth + 1;
            else if (o->kind == OP_BLOCK_END) depth = o->depth - 1;
            oi++;
        }
        if (k == nraw) break;
        if (raw.data[k] == '\n') {
            LOp *o = &ops[no++];
            o->kind = OP_NEWLINE;
            o->pos = nt;
            o->depth = depth;
            o->a = FIX(PP_LITERAL);
            o->b = NIL;
        } else text[nt++] = raw.data[k];
    }
    /* section ends, block matches, forced newlines */
    long *pending = (long *)gc_alloc_atomic(L, (size_t)(no + 1) * sizeof(long));
    long npend = 0;
    long *bstack = (long *)gc_alloc_atomic(L, (size_t)(no + 1) * sizeof(long));
    long nb = 0;
    for (long k = 0; k < no; k++) {
        LOp *o = &ops[k];
        o->end = -1;
        o->match = -1;
        o->col = -1;
        o->parent = nb > 0 ? bstack[nb - 1] : -1;
        if (o->kind == OP_NEWLINE) {
            long w = 0;
            for (long p = 0; p < npend; p++) {
                LOp *q = &ops[pending[p]];
                if (o->depth <= q->depth) q->end = k;
                else pending[w++] = pending[p];
            }
            npend = w;
            pending[npend++] = k;
        } else if (o->kind == OP_BLOCK_START) {
            pending[npend++] = k;
            bstack[nb++] = k;
        } else if (o->kind == OP_BLOCK_END) {
            if (nb > 0) ops[bstack[--nb]].match = k;
        }
    }
    long next_forced = -1;
    for (long k = no - 1; k >= 0; k--) {
        ops[k].next_forced = next_forced;
        if (ops[k].kind == OP_NEWLINE) {
            long kind = (long)fixnum_val(ops[k].a);
            if (kind == PP_MANDATORY || kind == PP_LITERAL) next_forced = k;
        }
    }
    Layout y;
    memset(&y, 0, sizeof y);
    y.L = L;
    y.target = target;
    y.text = text;
    y.n = nt;
    y.ops = ops;
    y.nops = no;
    for (long k = 0; k < no; k++) if (ops[k].kind == OP_TAB) { y.has_tabs = true; break; }
    sb_init(L, &y.line, 128);
    y.emitted = 0;
    Obj rm = SYM(S(PRINT_RIGHT_MARGIN))->value;
    y.line_length = is_fixnum(rm) && fixnum_val(rm) > 0 ? (long)fixnum_val(rm) : 80;
    Obj mw = SYM(S(PRINT_MISER_WIDTH))->value;
    y.miser_width = is_fixnum(mw) ? (long)fixnum_val(mw) : -1;
    Obj pl = SYM(S(PRINT_LINES))->value;
    y.print_lines = is_fixnum(pl) && fixnum_val(pl) >= 0 ? (long)fixnum_val(pl) : -1;
    y.readably = SYM(S(PRINT_READABLY))->value != NIL;
    y.capblocks = 16;
    y.blocks = (LBlock *)gc_alloc(L, (size_t)y.capblocks * sizeof(LBlock));
    y.nblocks = 1;
    memset(&y.blocks[0], 0, sizeof(LBlock));
    y.blocks[0].suffix = NIL;
    y.prefix_cap = 64;
    y.prefix = (uint32_t *)gc_alloc_atomic(L, (size_t)y.prefix_cap * sizeof(uint32_t));
    y.col_base = (long)stream_column(L, target);
    bool stop = false;
    for (long k = 0; k < no && !stop && !y.stopped; k++) {
        LOp *o = &ops[k];
        y.cur = k;
        if ((k & 255) == 255) safe_point(L);
        switch (o->kind) {
        case OP_NEWLINE: {
            long kind = (long)fixnum_val(o->a);
            bool take;
            if (kind == PP_LITERAL || kind == PP_MANDATORY || kind == PP_LINEAR) take = true;
            else if (kind == PP_MISER) take = lay_misering(&y);
            else {
                take = lay_misering(&y) || y.line_number > lay_top(&y)->section_start_line;
                if (!take) {
                    int f = lay_fits(&y, k);
                    if (f == FIT_STOP) { stop = true; break; }
                    take = f == FIT_NO;
                }
            }
            if (take) lay_output_line(&y, k);
            else lay_top(&y)->section_col = lay_column(&y, o->pos);
            break;
        }
        case OP_INDENT:
            if (!lay_misering(&y)) {
                long base = fixnum_val(o->a) == PP_INDENT_BLOCK ? lay_top(&y)->start_col : lay_column(&y, o->pos);
                lay_set_indentation(&y, base + (long)fixnum_val(o->b));
            }
            break;
        case OP_BLOCK_START: {
            int f = lay_fits(&y, k);
            if (f == FIT_STOP) { stop = true; break; }
            if (f == FIT_YES && o->match >= 0) {
                for (long q = k + 1; q < o->match; q++)
                    if (ops[q].kind == OP_TAB) lay_do_tab(&y, &ops[q]);
                k = o->match;
                break;
            }
            lay_start_block(&y, lay_column(&y, o->pos), o->a, o->b);
            break;
        }
        case OP_BLOCK_END: lay_end_block(&y); break;
        case OP_TAB: lay_do_tab(&y, o); break;
        }
    }
    if (!y.stopped) {
        if (stop)
            for (long k = 0; k < no; k++)
                if (ops[k].kind == OP_TAB && ops[k].pos >= y.emitted) lay_do_tab(&y, &ops[k]);
        lay_emit_to(&y, y.n);
        lay_write_line(&y);
    }
}

/* ---- logical blocks ---- */

typedef struct LispBody { Obj fn; } LispBody;

static void pp_block_run(Lisp *L, Obj ctx, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body, void *data) {
    Obj pstream = VEC(ctx)->data[CTX_STREAM];
    if (prefix != NIL && STR(prefix)->len) stream_write_u32(L, pstream, STR(prefix)->data, STR(prefix)->len);
    pp_record(L, ctx, OP_BLOCK_START, per_line && prefix != NIL ? prefix : NIL, suffix);
    VEC(ctx)->data[CTX_DEPTH] = FIX(fixnum_val(VEC(ctx)->data[CTX_DEPTH]) + 1);
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(printer_depth(L) + 1));
    body(L, pstream, object, data);
    unbind_specials(L, sp);
    VEC(ctx)->data[CTX_DEPTH] = FIX(fixnum_val(VEC(ctx)->data[CTX_DEPTH]) - 1);
    pp_record(L, ctx, OP_BLOCK_END, suffix, NIL);
    if (suffix != NIL && STR(suffix)->len) stream_write_u32(L, pstream, STR(suffix)->data, STR(suffix)->len);
}

static void pp_logical_block_ex(Lisp *L, Obj stream, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body,
                                void *data, bool check_object) {
    if (check_object) {
        if (!is_list(object)) {
            print_write(L, object, stream);
            return;
        }
        long level = SYM(S(PRINT_READABLY))->value != NIL ? -1 : printer_limit_var(L, S(PRINT_LEVEL));
        if (level >= 0 && printer_depth(L) >= level) {
            stream_write_char(L, stream, '#');
            return;
        }
        Obj circ = SYM(S(PP_CIRCLE_TABLE))->value;
        if (is_cons(object) && is_cons(circ) && SYM(S(PRINT_CIRCLE))->value != NIL) {
            PState ps;
            printer_state_init(L, &ps, stream, true);
            ps.circ = circ;
            if (printer_circ_label(L, &ps, object)) return;
        }
    }
    size_t sp = L->special_sp;
    /* A block begun outside any printer call (PPRINT-FILL from user code) starts the
     * circularity scan itself, as WRITE would, so that shared parts get #n= labels. */
    if (check_object && is_cons(object) && SYM(S(PRINT_CIRCLE))->value != NIL &&
        !is_cons(SYM(S(PP_CIRCLE_TABLE))->value)) {
        PState ps;
        printer_state_init(L, &ps, stream, true);
        ps.pretty = true; /* the block's elements come through PPRINT-POP */
        Obj table = hash_new(L, HT_EQ, 64);
        printer_circ_scan(L, &ps, table, object, printer_depth(L));
        Obj circ = cons(L, table, FIX(0));
        bind_special(L, S(PP_CIRCLE_TABLE), circ);
        ps.circ = circ;
        printer_circ_label(L, &ps, object); /* a fresh table: the object's first occurrence */
    }
    Obj ctx = pp_context(L, stream);
    if (ctx != NIL) {
        pp_block_run(L, ctx, object, prefix, per_line, suffix, body, data);
        unbind_specials(L, sp);
        return;
    }
    ctx = pp_new_context(L, stream);
    bind_special(L, S(PP_PRETTY_STREAMS), cons(L, ctx, SYM(S(PP_PRETTY_STREAMS))->value));
    pp_block_run(L, ctx, object, prefix, per_line, suffix, body, data);
    unbind_specials(L, sp);
    pp_layout(L, ctx);
}

void pp_logical_block(Lisp *L, Obj stream, Obj object, Obj prefix, bool per_line, Obj suffix, PPBody body, void *data) {
    pp_logical_block_ex(L, stream, object, prefix, per_line, suffix, body, data, true);
}

bool pp_pop_check(Lisp *L, Obj stream, Obj list, long count) {
    if (!is_list(list) || (count > 0 && printer_unquote_form(L, list))) {
        stream_write_cstr(L, stream, ". ");
        print_write(L, list, stream);
        return true;
    }
    if (SYM(S(PRINT_READABLY))->value == NIL) {
        long len = printer_limit_var(L, S(PRINT_LENGTH));
        if (len >= 0 && count >= len) {
            stream_write_cstr(L, stream, "...");
            return true;
        }
    }
    Obj circ = SYM(S(PP_CIRCLE_TABLE))->value;
    if (list != NIL && count > 0 && is_cons(circ) && SYM(S(PRINT_CIRCLE))->value != NIL) {
        Obj st = hash_get(L, CAR(circ), list, NO_VALUE);
        if (st != NO_VALUE && st != NIL) {
            stream_write_cstr(L, stream, ". ");
            print_write(L, list, stream);
            return true;
        }
    }
    return false;
}

/* ---- the standard layouts (pretty printing of lists) ----
 * Each layout is the body of a "(" ... ")" logical block over the form, written as a short
 * program of steps (the table LAYOUTS) that one interpreter (lay_run) runs. A cursor pops the
 * elements with the PPRINT-POP checks; "more" is PPRINT-EXIT-IF-LIST-EXHAUSTED's test. */

static Obj str_lit(Lisp *L, const char *s) { return string_from_cstr(L, s); }

typedef struct Cur { Lisp *L; Obj s; Obj list; long count; bool dead; } Cur;

static bool cur_more(Cur *c) { return !c->dead && c->list != NIL; }

static bool cur_pop(Cur *c, Obj *out) {
    if (!cur_more(c) || STREAM(c->s)->truncated) return false;
    if (pp_pop_check(c->L, c->s, c->list, c->count)) { c->dead = true; return false; }
    c->count++;
    *out = CAR(c->list);
    c->list = CDR(c->list);
    return true;
}

/* Pop and print the next element; false when the block must end. */
static bool cur_out(Cur *c) {
    Obj x;
    if (!cur_pop(c, &x)) return false;
    print_write(c->L, x, c->s);
    return true;
}

/* Once a pop has ended the block (". x", "...", a circular tail), nothing more is written. */
static void cur_sp(Cur *c) { if (!c->dead) stream_write_char(c->L, c->s, ' '); }
static void cur_nl(Cur *c, int kind) { if (!c->dead) pp_newline(c->L, c->s, kind); }
static void cur_ind(Cur *c, int kind, long n) { if (!c->dead) pp_indent(c->L, c->s, kind, n); }

/* The layouts, by name. */
enum {
    LAY_FILL, LAY_LINEAR, LAY_TABULAR, LAY_CALL, LAY_CALL_SPREAD, LAY_CALL_FORM, LAY_BLOCK,
    LAY_LL_KEY_NAME, LAY_LL_OPT, LAY_LL_KEY, LAY_LAMBDA_LIST, LAY_DEFUN, LAY_DEFMETHOD, LAY_LAMBDA,
    LAY_DBIND, LAY_PROG2, LAY_PROGV, LAY_IF, LAY_BINDING, LAY_BINDINGS, LAY_LET, LAY_FLET_DEF,
    LAY_FLET_DEFS, LAY_FLET, LAY_SETQ_PAIRS, LAY_SETQ, LAY_TAGBODY, LAY_PROG, LAY_FTL_FILL,
    LAY_FTL_MISER, LAY_DOLIST, LAY_DO_VARS, LAY_DO, LAY_CLAUSE_KEYS, LAY_CASE, LAY_TYPECASE,
    LAY_LOOP, LAY_DEFPACKAGE_OPTION, LAY_DEFPACKAGE, LAY_COUNT
};

/* The steps. "Ends" means the block ends there when the step fails; the steps marked
 * (last) end the layout. */
enum {
    LK_END,       /* (last) */
    LK_OUT,       /* pop and print the next element; ends when there is none */
    LK_MORE,      /* ends when no element is left */
    LK_SP,        /* a space */
    LK_NL,        /* a conditional newline of kind A */
    LK_IND,       /* indentation A relative to the block's start */
    LK_IND_CUR,   /* indentation relative to the current column */
    LK_TAB,       /* a section-relative tab, column increment the layout's argument */
    LK_SUB,       /* pop the next element and print it as a "(" ")" block of layout A; ends if none */
    LK_SUB_CONT,  /* the same, going on to the next step when there is none */
    LK_EACH,      /* (last) while elements remain: a space, a newline of kind A, the element */
    LK_EACH_SUB,  /* (last) while elements remain: [a space,] a newline of kind B, a block of layout A */
    LK_REST,      /* (last) the elements, each followed (but the last) by a space and a newline of
                   * kind A, or by a space alone when A is -1 */
    LK_GOTO,      /* go on at step A */
    /* the steps that decide by the form's shape */
    LK_TAGBODY,   /* (last) tags at indentation 0, forms at 1, linear newlines */
    LK_LAMBDA_LIST, /* (last) a lambda list: &-keywords start linear sections */
    LK_QUALIFIER, /* DEFMETHOD: a non-list after the name is a qualifier, printed with a space */
    LK_FLET_NAME, /* (flet foo) and (flet foo :in bar), function names: printed plainly */
    LK_SETQ_TAIL, /* (last) SETQ's pairs, in a block of their own */
    LK_CALL_FORM, /* (last) a macro with &body: the layout's argument counts the special arguments */
    LK_LOOP,      /* (last) LOOP: each clause keyword starts a new line */
};
#define LK_SPACE 0x10 /* in B of LK_EACH_SUB: a space before the newline */

typedef struct LayStep { unsigned char kind; signed char a, b; } LayStep;
typedef struct LayCall { int layout; long arg; } LayCall;

#define L_(...) (const LayStep[]){__VA_ARGS__, {LK_END, 0, 0}}
#define OUT {LK_OUT, 0, 0}
#define MORE {LK_MORE, 0, 0}
#define SP {LK_SP, 0, 0}
#define NL(k) {LK_NL, k, 0}
#define IND(n) {LK_IND, n, 0}
#define IND_CUR {LK_IND_CUR, 0, 0}
#define SUB(l) {LK_SUB, l, 0}
#define SUB_CONT(l) {LK_SUB_CONT, l, 0}
#define EACH(k) {LK_EACH, k, 0}
#define EACH_SUB(l, k) {LK_EACH_SUB, l, k}
#define RST(k) {LK_REST, k, 0}
#define BODY IND(1), EACH(PP_LINEAR)

static const LayStep *const layouts[LAY_COUNT] = {
    [LAY_FILL] = L_(RST(PP_FILL)),
    [LAY_LINEAR] = L_(RST(PP_LINEAR)),
    [LAY_TABULAR] = L_(OUT, MORE, SP, {LK_TAB, 0, 0}, NL(PP_FILL), {LK_GOTO, 0, 0}),
    /* (f a b ...): arguments aligned after the first; SPREAD: every argument on its own line */
    [LAY_CALL] = L_(OUT, MORE, SP, NL(PP_FILL), IND_CUR, RST(PP_FILL)),
    [LAY_CALL_SPREAD] = L_(OUT, MORE, SP, NL(PP_FILL), IND_CUR, RST(PP_MANDATORY)),
    [LAY_CALL_FORM] = L_({LK_CALL_FORM, 0, 0}),
    /* (block name body...), (when test body...) */
    [LAY_BLOCK] = L_(OUT, MORE, IND(3), SP, NL(PP_FILL), OUT, BODY),
    /* lambda lists: parameters separated by fill newlines; (&key ((:key var) ...)) */
    [LAY_LL_KEY_NAME] = L_(OUT, EACH(PP_FILL)),
    [LAY_LL_OPT] = L_(MORE, OUT, EACH(PP_LINEAR)),
    [LAY_LL_KEY] = L_(MORE, SUB(LAY_LL_KEY_NAME), EACH(PP_LINEAR)),
    [LAY_LAMBDA_LIST] = L_({LK_LAMBDA_LIST, 0, 0}),
    /* (defun name lambda-list body...), (defmethod name qualifier... lambda-list body...) */
    [LAY_DEFUN] = L_(OUT, MORE, SP, NL(PP_MISER), IND_CUR, OUT, MORE, SP, NL(PP_FILL), SUB_CONT(LAY_LAMBDA_LIST), BODY),
    [LAY_DEFMETHOD] = L_(OUT, MORE, SP, NL(PP_MISER), IND_CUR, OUT, MORE, SP, {LK_QUALIFIER, 0, 0}, NL(PP_FILL),
                         SUB_CONT(LAY_LAMBDA_LIST), BODY),
    [LAY_LAMBDA] = L_(OUT, MORE, IND(3), SP, NL(PP_FILL), SUB_CONT(LAY_LAMBDA_LIST), BODY),
    /* (destructuring-bind lambda-list expression body...) */
    [LAY_DBIND] = L_(OUT, MORE, IND(3), SP, NL(PP_LINEAR), SUB(LAY_LAMBDA_LIST), MORE, SP, NL(PP_LINEAR), OUT, BODY),
    /* (prog2 a b body...), (multiple-value-bind vars form body...), (progv syms vals body...) */
    [LAY_PROG2] = L_(OUT, MORE, IND(3), SP, NL(PP_FILL), OUT, MORE, SP, NL(PP_LINEAR), OUT, MORE, BODY),
    [LAY_PROGV] = L_(OUT, MORE, IND(3), SP, NL(PP_LINEAR), OUT, MORE, SP, NL(PP_LINEAR), OUT, MORE, BODY),
    /* (if test then else): branches on lines of their own under the test */
    [LAY_IF] = L_(OUT, MORE, SP, IND_CUR, OUT, MORE, SP, NL(PP_MANDATORY), RST(PP_MANDATORY)),
    /* (let ((var value) ...) body...); also a CASE clause (keys form...) */
    [LAY_BINDING] = L_(OUT, EACH(PP_LINEAR)),
    [LAY_BINDINGS] = L_(SUB(LAY_BINDING), EACH_SUB(LAY_BINDING, LK_SPACE | PP_LINEAR)),
    [LAY_LET] = L_(OUT, MORE, SP, NL(PP_MISER), SUB(LAY_BINDINGS), IND(1), MORE, NL(PP_MANDATORY), RST(PP_LINEAR)),
    /* (flet ((name lambda-list body...) ...) body...) */
    [LAY_FLET_DEF] = L_(OUT, MORE, IND(3), SP, NL(PP_FILL), SUB_CONT(LAY_LAMBDA_LIST), IND(1), NL(PP_MANDATORY),
                        RST(PP_LINEAR)),
    [LAY_FLET_DEFS] = L_(SUB(LAY_FLET_DEF), EACH_SUB(LAY_FLET_DEF, LK_SPACE | PP_LINEAR)),
    [LAY_FLET] = L_({LK_FLET_NAME, 0, 0}, OUT, MORE, SP, NL(PP_MISER), SUB(LAY_FLET_DEFS), IND(1), MORE,
                    NL(PP_MANDATORY), RST(PP_LINEAR)),
    /* (setq var value ...): each pair on a line of its own */
    [LAY_SETQ_PAIRS] = L_(IND(2), OUT, MORE, SP, NL(PP_FILL), IND(0), OUT, MORE, SP, NL(PP_MANDATORY), {LK_GOTO, 0, 0}),
    [LAY_SETQ] = L_(OUT, MORE, SP, {LK_SETQ_TAIL, 0, 0}),
    /* (tagbody tag form ...), (prog (vars) tag form ...) */
    [LAY_TAGBODY] = L_(OUT, {LK_TAGBODY, 0, 0}),
    [LAY_PROG] = L_(OUT, MORE, SP, NL(PP_MISER), SUB(LAY_FILL), {LK_TAGBODY, 0, 0}),
    /* the first element followed by a fill (DOLIST's spec) or miser (a DO variable) newline,
     * the rest on linear newlines under the second */
    [LAY_FTL_FILL] = L_(OUT, MORE, SP, NL(PP_FILL), IND_CUR, OUT, EACH(PP_LINEAR)),
    [LAY_FTL_MISER] = L_(OUT, MORE, SP, NL(PP_MISER), IND_CUR, OUT, EACH(PP_LINEAR)),
    /* (dolist (var list [result]) body...), (do ((var init step) ...) (end result...) body...) */
    [LAY_DOLIST] = L_(OUT, MORE, IND(3), SP, NL(PP_FILL), SUB(LAY_FTL_FILL), {LK_TAGBODY, 0, 0}),
    [LAY_DO_VARS] = L_(SUB(LAY_FTL_MISER), EACH_SUB(LAY_FTL_MISER, PP_MANDATORY)),
    [LAY_DO] = L_(OUT, MORE, SP, IND_CUR, SUB(LAY_DO_VARS), MORE, SP, NL(PP_LINEAR), SUB(LAY_LINEAR), {LK_TAGBODY, 0, 0}),
    /* (case key ((keys...) form...) ...) and (typecase key (type form...) ...) */
    [LAY_CLAUSE_KEYS] = L_(SUB(LAY_FILL), EACH(PP_LINEAR)),
    [LAY_CASE] = L_(OUT, MORE, SP, IND(3), NL(PP_FILL), OUT, IND(1), EACH_SUB(LAY_CLAUSE_KEYS, LK_SPACE | PP_LINEAR)),
    [LAY_TYPECASE] = L_(OUT, MORE, SP, IND(3), NL(PP_FILL), OUT, IND(1), EACH_SUB(LAY_BINDING, LK_SPACE | PP_LINEAR)),
    [LAY_LOOP] = L_({LK_LOOP, 0, 0}),
    /* (defpackage name (option value...) ...) */
    [LAY_DEFPACKAGE_OPTION] = L_(OUT, MORE, SP, IND_CUR, NL(PP_MISER), RST(PP_LINEAR)),
    [LAY_DEFPACKAGE] = L_(OUT, MORE, SP, IND(3), NL(PP_FILL), OUT, IND(1), EACH_SUB(LAY_DEFPACKAGE_OPTION, PP_MANDATORY)),
};

#undef L_
#undef OUT
#undef MORE
#undef SP
#undef NL
#undef IND
#undef IND_CUR
#undef SUB
#undef SUB_CONT
#undef EACH
#undef EACH_SUB
#undef RST
#undef BODY

static void lay_run(Cur *c, int layout, long arg);

/* The PPBody of a layout: DATA is a LayCall. */
static void body_layout(Lisp *L, Obj s, Obj list, void *data) {
    const LayCall *call = (const LayCall *)data;
    Cur c = {L, s, list, 0, false};
    lay_run(&c, call->layout, call->arg);
}

static void lay_block(Lisp *L, Obj s, Obj obj, Obj prefix, Obj suffix, int layout, long arg) {
    LayCall call = {layout, arg};
    pp_logical_block(L, s, obj, prefix, false, suffix, body_layout, &call);
}

/* Pop the next element and print it as a "(" ")" block of LAYOUT; false when there is none. */
static bool cur_sub(Cur *c, int layout) {
    Obj x;
    if (!cur_pop(c, &x)) return false;
    lay_block(c->L, c->s, x, str_lit(c->L, "("), str_lit(c->L, ")"), layout, 0);
    return true;
}

static void cur_tagbody_guts(Cur *c) {
    for (;;) {
        if (!cur_more(c)) return;
        cur_sp(c);
        Obj x;
        if (!cur_pop(c, &x)) return;
        cur_ind(c, PP_INDENT_BLOCK, is_cons(x) ? 1 : 0);
        cur_nl(c, PP_LINEAR);
        print_write(c->L, x, c->s);
    }
}

static void cur_lambda_list(Cur *c) {
    Lisp *L = c->L;
    enum { REQ, OPT, KEY } state = REQ;
    bool first = true;
    for (;;) {
        if (!cur_more(c)) return;
        if (!first) cur_sp(c);
        Obj arg;
        if (!cur_pop(c, &arg)) return;
        if (arg == S(AND_OPTIONAL) || arg == S(AND_AUX)) { state = OPT; cur_nl(c, PP_LINEAR); }
        else if (arg == S(AND_REST) || arg == S(AND_BODY)) { state = REQ; cur_nl(c, PP_LINEAR); }
        else if (arg == S(AND_KEY)) { state = KEY; cur_nl(c, PP_LINEAR); }
        else cur_nl(c, PP_FILL);
        lay_block(c->L, c->s, arg, str_lit(c->L, "("), str_lit(c->L, ")"),
                  state == REQ ? LAY_LINEAR : state == KEY ? LAY_LL_KEY : LAY_LL_OPT, 0);
        first = false;
    }
}

/* A macro with &body: the first N arguments, then the body forms on their own lines. */
static void cur_call_form(Cur *c, long n) {
    if (!cur_out(c) || !cur_more(c)) return;
    cur_sp(c);
    for (long k = 0; k < n; k++) {
        if (k > 0) {
            cur_ind(c, PP_INDENT_BLOCK, 3);
            cur_nl(c, PP_MANDATORY);
        }
        if (!cur_out(c) || !cur_more(c)) return;
    }
    cur_ind(c, PP_INDENT_BLOCK, 1);
    cur_nl(c, PP_MANDATORY);
    for (;;) {
        if (!cur_out(c) || !cur_more(c)) return;
        cur_nl(c, PP_MANDATORY);
    }
}

static bool loop_clause_keyword(Obj x);

static void cur_loop(Cur *c) {
    Obj list = c->list;
    /* (loop (form) ...), the simple loop: one form per line */
    if (!is_cons(CDR(list)) || is_cons(CAR(CDR(list)))) {
        lay_run(c, LAY_CALL_SPREAD, 0);
        return;
    }
    if (!cur_out(c) || !cur_more(c)) return;
    cur_sp(c);
    cur_ind(c, PP_INDENT_CURRENT, 0);
    if (!cur_out(c) || !cur_more(c)) return;
    cur_sp(c);
    for (;;) {
        Obj x;
        if (!cur_pop(c, &x)) return;
        if (loop_clause_keyword(x)) cur_nl(c, PP_MANDATORY);
        print_write(c->L, x, c->s);
        if (!cur_more(c)) return;
        cur_sp(c);
    }
}

static void lay_run(Cur *c, int layout, long arg) {
    Lisp *L = c->L;
    const LayStep *prog = layouts[layout];
    for (int pc = 0;; pc++) {
        const LayStep *st = &prog[pc];
        switch (st->kind) {
        case LK_END: return;
        case LK_OUT: if (!cur_out(c)) return; break;
        case LK_MORE: if (!cur_more(c)) return; break;
        case LK_SP: cur_sp(c); break;
        case LK_NL: cur_nl(c, st->a); break;
        case LK_IND: cur_ind(c, PP_INDENT_BLOCK, st->a); break;
        case LK_IND_CUR: cur_ind(c, PP_INDENT_CURRENT, 0); break;
        case LK_TAB: pp_tab(L, c->s, PP_TAB_SECTION_RELATIVE, 0, arg); break;
        case LK_SUB: if (!cur_sub(c, st->a)) return; break;
        case LK_SUB_CONT: cur_sub(c, st->a); break;
        case LK_EACH:
            for (;;) {
                if (!cur_more(c)) return;
                cur_sp(c);
                cur_nl(c, st->a);
                if (!cur_out(c)) return;
            }
        case LK_EACH_SUB:
            for (;;) {
                if (!cur_more(c)) return;
                if (st->b & LK_SPACE) cur_sp(c);
                cur_nl(c, st->b & ~LK_SPACE);
                if (!cur_sub(c, st->a)) return;
            }
        case LK_REST:
            for (;;) {
                if (STREAM(c->s)->truncated) return;
                if (!cur_out(c)) return;
                if (!cur_more(c)) return;
                cur_sp(c);
                if (st->a >= 0) cur_nl(c, st->a);
                if ((c->count & 255) == 0) safe_point(L);
            }
        case LK_GOTO: pc = st->a - 1; break;
        case LK_TAGBODY: cur_tagbody_guts(c); return;
        case LK_LAMBDA_LIST: cur_lambda_list(c); return;
        case LK_QUALIFIER:
            if (!(is_cons(c->list) && is_cons(CAR(c->list)))) {
                if (!cur_out(c) || !cur_more(c)) return;
                cur_sp(c);
            }
            break;
        case LK_FLET_NAME: {
            Obj l = c->list;
            if (!(is_cons(l) && is_cons(CDR(l)) && is_cons(CDR(CDR(l))) && CAR(CDR(CDR(l))) != keyword(L, "IN"))) {
                for (;;) {
                    if (!cur_out(c) || !cur_more(c)) return;
                    cur_sp(c);
                }
            }
            break;
        }
        case LK_SETQ_TAIL:
            if (!is_list(c->list)) stream_write_cstr(L, c->s, ". ");
            cur_nl(c, PP_MISER);
            lay_block(L, c->s, c->list, str_lit(L, ""), str_lit(L, ""), LAY_SETQ_PAIRS, 0);
            return;
        case LK_CALL_FORM: cur_call_form(c, arg); return;
        case LK_LOOP: cur_loop(c); return;
        }
    }
}

/* Whether SYM is a symbol named by one of the space-separated NAMES. */
static bool name_in(Obj sym, const char *names) {
    if (!is_type(sym, T_SYMBOL)) return false;
    String *s = STR(SYM(sym)->name);
    const char *p = names;
    while (*p) {
        const char *q = p;
        while (*q && *q != ' ') q++;
        size_t n = (size_t)(q - p);
        if (n == s->len) {
            bool eq = true;
            for (size_t i = 0; i < n; i++) if (s->data[i] != (uint32_t)(unsigned char)p[i]) { eq = false; break; }
            if (eq) return true;
        }
        p = *q ? q + 1 : q;
    }
    return false;
}

/* LOOP's clause keywords, which start a new line. */
static bool loop_clause_keyword(Obj x) {
    return name_in(x, "AND WITH FOR INITIALLY FINALLY DO DOING COLLECT COLLECTING APPEND APPENDING NCONC "
                      "NCONCING COUNT COUNTING SUM SUMMING MAXIMIZE MAXIMIZING MINIMIZE MINIMIZING IF WHEN "
                      "UNLESS END WHILE UNTIL REPEAT ALWAYS NEVER THEREIS");
}

/* The layout of each standard macro and special form (in package CL) by name. */
typedef struct StyleEntry { const char *names; int layout; } StyleEntry;
static const StyleEntry code_styles[] = {
    {"LAMBDA", LAY_LAMBDA},
    {"DECLARE DECLAIM", LAY_CALL_SPREAD},
    {"BLOCK CATCH RETURN-FROM THROW EVAL-WHEN MULTIPLE-VALUE-CALL MULTIPLE-VALUE-PROG1 UNWIND-PROTECT "
     "DEFCONSTANT DEFPARAMETER DEFSTRUCT DEFVAR MULTIPLE-VALUE-SETQ PROG1 PPRINT-LOGICAL-BLOCK "
     "PRINT-UNREADABLE-OBJECT UNLESS WHEN WITH-COMPILATION-UNIT WITH-SIMPLE-RESTART WITH-HASH-TABLE-ITERATOR "
     "WITH-PACKAGE-ITERATOR WITH-INPUT-FROM-STRING WITH-OUTPUT-TO-STRING WITH-OPEN-FILE WITH-OPEN-STREAM", LAY_BLOCK},
    {"FLET LABELS MACROLET", LAY_FLET},
    {"IF", LAY_IF},
    {"LET LET* SYMBOL-MACROLET", LAY_LET},
    {"LOCALLY PROGN STEP TIME WITH-STANDARD-IO-SYNTAX", LAY_LINEAR},
    {"PROGV", LAY_PROGV},
    {"SETQ PSETQ SETF PSETF", LAY_SETQ},
    {"TAGBODY", LAY_TAGBODY},
    {"CASE CCASE ECASE", LAY_CASE},
    {"CTYPECASE ETYPECASE TYPECASE", LAY_TYPECASE},
    {"DEFINE-MODIFY-MACRO DEFINE-SETF-EXPANDER DEFMACRO DEFSETF DEFTYPE DEFUN", LAY_DEFUN},
    {"DEFMETHOD", LAY_DEFMETHOD},
    {"DEFPACKAGE", LAY_DEFPACKAGE},
    {"DESTRUCTURING-BIND", LAY_DBIND},
    {"DO DO*", LAY_DO},
    {"DO-ALL-SYMBOLS DO-EXTERNAL-SYMBOLS DO-SYMBOLS DOLIST DOTIMES", LAY_DOLIST},
    {"LOOP", LAY_LOOP},
    {"MULTIPLE-VALUE-BIND PROG2", LAY_PROG2},
    {"PROG PROG*", LAY_PROG},
    {NULL, 0},
};


/* The number of arguments before &body in a macro's lambda list, or -1 when it has no &body. */
static long macro_body_position(Lisp *L, Obj fn) {
    Obj llfn = SYM(intern_cstr(L, L->pkg_system, "%FUNCTION-LAMBDA-LIST"))->function;
    if (!is_function(llfn)) return -1;
    Obj ll = funcall1(L, llfn, fn);
    long n = 0;
    Obj l = ll;
    for (; is_cons(l); l = CDR(l)) {
        if (CAR(l) == S(AND_BODY)) return n;
        if (CAR(l) != S(AND_OPTIONAL)) n++;
    }
    return l == NIL ? -1 : n;
}

/* Vectors and arrays when pretty printing: fill newlines between elements, linear between rows. */
typedef struct ArrData { Obj storage; size_t offset; size_t *dims; int rank; } ArrData;

static void body_array_axis(Lisp *L, Obj s, Obj list, void *d) {
    (void)list;
    ArrData *a = (ArrData *)d;
    if (a->rank == 0) return;
    size_t dim = a->dims[0];
    size_t step = 1;
    for (int k = 1; k < a->rank; k++) step *= a->dims[k];
    for (size_t i = 0; i < dim; i++) {
        if (i > 0) {
            stream_write_char(L, s, ' ');
            pp_newline(L, s, a->rank > 1 ? PP_LINEAR : PP_FILL);
        }
        if (pp_pop_check(L, s, NIL, (long)i) || STREAM(s)->truncated) return;
        if (a->rank == 1) print_write(L, printer_array_elt(L, a->storage, a->offset + i), s);
        else {
            ArrData sub = {a->storage, a->offset + i * step, a->dims + 1, a->rank - 1};
            long level = SYM(S(PRINT_READABLY))->value != NIL ? -1 : printer_limit_var(L, S(PRINT_LEVEL));
            if (level >= 0 && printer_depth(L) >= level) stream_write_char(L, s, '#');
            else pp_logical_block_ex(L, s, NIL, str_lit(L, "("), false, str_lit(L, ")"), body_array_axis, &sub, false);
        }
        if ((i & 255) == 255) safe_point(L);
    }
}

void pprint_array(Lisp *L, PState *ps, Obj storage, size_t offset, size_t *dims, int rank, bool vector, long depth) {
    if (ps->level >= 0 && depth >= ps->level) { stream_write_char(L, ps->stream, '#'); return; }
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
    bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
    ArrData a = {storage, offset, dims, rank};
    if (vector) pp_logical_block_ex(L, ps->stream, NIL, str_lit(L, "#("), false, str_lit(L, ")"), body_array_axis, &a, false);
    else {
        char buf[32];
        snprintf(buf, sizeof buf, "#%dA", rank);
        stream_write_cstr(L, ps->stream, buf);
        if (rank == 0) printer_rec(L, ps, printer_array_elt(L, storage, offset), depth);
        else pp_logical_block_ex(L, ps->stream, NIL, str_lit(L, "("), false, str_lit(L, ")"), body_array_axis, &a, false);
    }
    unbind_specials(L, sp);
}

void pprint_list(Lisp *L, PState *ps, Obj o, long depth) {
    Obj stream = ps->stream;
    const char *prefix = printer_quote_prefix(L, o);
    /* inside DECLARE, (function f) stays as written (SBCL) */
    if (prefix && (CAR(o) == S(QUOTE) || CAR(o) == S(FUNCTION)) && SYM(S(PP_QUOTE_SUGAR))->value == NIL) prefix = NULL;
    if (prefix) {
        stream_write_cstr(L, ps->stream, prefix);
        printer_rec(L, ps, CAR(CDR(o)), depth);
        return;
    }
    if (ps->level >= 0 && depth >= ps->level) {
        stream_write_char(L, ps->stream, '#');
        return;
    }
    size_t sp = L->special_sp;
    bind_special(L, S(PP_PRINT_DEPTH), FIX(depth));
    bind_special(L, S(PRINT_ESCAPE), boolean(L, ps->escape));
    Obj head = CAR(o);
    LayCall call = {LAY_FILL, 0};
    bool found = false;
    if (is_type(head, T_SYMBOL) && SYM(head)->package == L->pkg_cl) {
        for (const StyleEntry *e = code_styles; e->names; e++)
            if (name_in(head, e->names)) {
                call.layout = e->layout;
                found = true;
                break;
            }
    }
    long pos = 0;
    /* (quote a b), (function): not the one-argument forms printed as 'a and #'f */
    if (head == S(QUOTE) || head == S(FUNCTION) || head == S(QUASIQUOTE)) found = true;
    if (found) {
        if (head == S(DECLARE) || head == intern_cstr(L, L->pkg_cl, "DECLAIM"))
            bind_special(L, S(PP_QUOTE_SUGAR), NIL);
    } else if (is_type(head, T_SYMBOL) && (SYM(head)->function != UNBOUND || special_operator_p(L, head))) {
        call.layout = LAY_CALL;
        if ((SYM(head)->h.flags & SYM_MACRO) && (pos = macro_body_position(L, SYM(head)->function)) >= 0) {
            call.layout = LAY_CALL_FORM;
            call.arg = pos;
        }
    }
    pp_logical_block_ex(L, stream, o, str_lit(L, "("), false, str_lit(L, ")"), body_layout, &call, false);
    unbind_specials(L, sp);
}

static Obj out_designator(Lisp *L, Obj d) { return stream_out(L, d); }

static int newline_kind(Lisp *L, Obj k) {
    if (k == S(PP_K_LINEAR)) return PP_LINEAR;
    if (k == S(PP_K_FILL)) return PP_FILL;
    if (k == S(PP_K_MISER)) return PP_MISER;
    if (k == S(PP_K_MANDATORY)) return PP_MANDATORY;
    err_type(L, k, cons(L, S(MEMBER), cons(L, S(PP_K_LINEAR), cons(L, S(PP_K_MISER), cons(L, S(PP_K_FILL), cons(L, S(PP_K_MANDATORY), NIL))))));
}

DEFPRIM(prim_pprint_newline) {
    int kind = newline_kind(L, args[0]);
    pp_newline(L, out_designator(L, opt_arg(nargs, args, 1, NIL)), kind);
    return NIL;
}

DEFPRIM(prim_pprint_indent) {
    int kind;
    if (args[0] == S(PP_K_BLOCK)) kind = PP_INDENT_BLOCK;
    else if (args[0] == S(PP_K_CURRENT)) kind = PP_INDENT_CURRENT;
    else err_type(L, args[0], cons(L, S(MEMBER), cons(L, S(PP_K_BLOCK), cons(L, S(PP_K_CURRENT), NIL))));
    Obj n = check_real(L, args[1]);
    long amount;
    if (is_fixnum(n)) amount = (long)fixnum_val(n);
    else amount = (long)number_to_double(L, n);
    pp_indent(L, out_designator(L, opt_arg(nargs, args, 2, NIL)), kind, amount);
    return NIL;
}

DEFPRIM(prim_pprint_tab) {
    int kind;
    Obj k = args[0];
    if (k == S(PP_K_LINE)) kind = PP_TAB_LINE;
    else if (k == S(PP_K_SECTION)) kind = PP_TAB_SECTION;
    else if (k == S(PP_K_LINE_RELATIVE)) kind = PP_TAB_LINE_RELATIVE;
    else if (k == S(PP_K_SECTION_RELATIVE)) kind = PP_TAB_SECTION_RELATIVE;
    else err_type(L, k, cons(L, S(MEMBER), cons(L, S(PP_K_LINE), cons(L, S(PP_K_SECTION), cons(L, S(PP_K_LINE_RELATIVE), cons(L, S(PP_K_SECTION_RELATIVE), NIL))))));
    long colnum = (long)check_index(L, args[1]), colinc = (long)check_index(L, args[2]);
    pp_tab(L, out_designator(L, opt_arg(nargs, args, 3, NIL)), kind, colnum, colinc);
    return NIL;
}

static void body_lisp(Lisp *L, Obj stream, Obj list, void *data) {
    LispBody *b = (LispBody *)data;
    funcall2(L, b->fn, stream, list);
}

/* (%pprint-logical-block stream object prefix per-line-p suffix function): FUNCTION is called
 * with (stream list). */
DEFPRIM(prim_pct_pprint_logical_block) {
    UNUSED_ARGS;
    Obj stream = out_designator(L, args[0]);
    Obj prefix = args[2], suffix = args[4];
    /* the macro passes "" for an option not given, so NIL here was written by the caller: an
     * error, as for any other non-string (CLHS PPRINT-LOGICAL-BLOCK) */
    if (!is_string(prefix)) err_type(L, prefix, S(STRING));
    if (!is_string(suffix)) err_type(L, suffix, S(STRING));
    LispBody b = {check_function(L, args[5])};
    pp_logical_block(L, stream, args[1], prefix, args[3] != NIL, suffix, body_lisp, &b);
    return NIL;
}

DEFPRIM(prim_pct_pprint_pop_check) {
    UNUSED_ARGS;
    return boolean(L, pp_pop_check(L, args[0], args[1], (long)check_fixnum(L, args[2])));
}

DEFPRIM(prim_pct_pretty_stream_p) { UNUSED_ARGS; return boolean(L, is_stream(args[0]) && pp_stream_p(L, args[0])); }

static void list_printer(Lisp *L, int nargs, Obj *args, int layout, long arg) {
    Obj stream = out_designator(L, args[0]);
    bool colon = nargs < 3 || args[2] != NIL;
    lay_block(L, stream, args[1], str_lit(L, colon ? "(" : ""), str_lit(L, colon ? ")" : ""), layout, arg);
}

DEFPRIM(prim_pprint_fill) { list_printer(L, nargs, args, LAY_FILL, 0); return NIL; }
DEFPRIM(prim_pprint_linear) { list_printer(L, nargs, args, LAY_LINEAR, 0); return NIL; }
DEFPRIM(prim_pprint_tabular) {
    list_printer(L, nargs, args, LAY_TABULAR, nargs > 4 && args[4] != NIL ? (long)check_index(L, args[4]) : 16);
    return NIL;
}

const PrimDef pprint_prims[] = {
    {"PPRINT-NEWLINE", PK_CL, prim_pprint_newline, 1, 2, 0, "(kind &optional stream)", "A conditional newline in a logical block."},
    {"PPRINT-INDENT", PK_CL, prim_pprint_indent, 2, 3, 0, "(relative-to n &optional stream)", "Set the indentation of the current logical block."},
    {"PPRINT-TAB", PK_CL, prim_pprint_tab, 3, 4, 0, "(kind colnum colinc &optional stream)", "In pretty printing, moves to a column given by KIND (:LINE, :SECTION or their :RELATIVE forms), COLNUM and COLINC, as the ~T directive does."},
    {"PPRINT-FILL", PK_CL, prim_pprint_fill, 2, 4, 0, "(stream list &optional (colon t) atsign)", "Print LIST with fill newlines."},
    {"PPRINT-LINEAR", PK_CL, prim_pprint_linear, 2, 4, 0, "(stream list &optional (colon t) atsign)", "Print LIST with linear newlines."},
    {"PPRINT-TABULAR", PK_CL, prim_pprint_tabular, 2, 5, 0, "(stream list &optional (colon t) atsign tabsize)", "Print LIST in columns."},
    {"%PPRINT-LOGICAL-BLOCK", PK_SYS, prim_pct_pprint_logical_block, 6, 6, 0, "(stream object prefix per-line-p suffix function)", NULL},
    {"%PPRINT-POP-CHECK", PK_SYS, prim_pct_pprint_pop_check, 3, 3, 0, "(stream list count)", NULL},
    {"%PRETTY-STREAM-P", PK_SYS, prim_pct_pretty_stream_p, 1, 1, 0, "(stream)", NULL},
    {0},
};

void pprint_init(Lisp *L) { prims_register(L, pprint_prims); }
