/* stream.c: stream objects: string, fd, synonym, two-way, broadcast, echo and concatenated streams. */
#include "stream.h"
#include "prim.h"
#include "package.h"
#include "eval.h"
#include <unistd.h>
#include <errno.h>

#define IOBUF_SIZE 8192

static Stream *stream_new(Lisp *L, StreamKind kind, uint32_t flags) {
    Stream *s = (Stream *)heap_alloc(L, T_STREAM, sizeof(Stream));
    s->h.aux = (uint16_t)kind;
    s->flags = flags | ST_OPEN;
    s->unread = -1;
    s->fd = -1;
    s->string = s->pathname = s->a = s->b = NIL;
    s->element_type = S(CHARACTER);
    s->line = 1;
    return s;
}
static inline StreamKind kind_of(Obj s) { return (StreamKind)STREAM(s)->h.aux; }

Obj make_string_input_stream(Lisp *L, Obj str, size_t start, size_t end) {
    Stream *s = stream_new(L, SK_STRING_IN, ST_INPUT);
    s->string = str;
    s->pos = s->start = start;
    s->end = end;
    return (Obj)s;
}

Obj make_string_output_stream(Lisp *L) {
    Stream *s = stream_new(L, SK_STRING_OUT, ST_OUTPUT);
    sb_init(L, &s->buf, 64);
    return (Obj)s;
}

Obj make_capped_output_stream(Lisp *L, size_t cap) {
    Obj o = make_string_output_stream(L);
    STREAM(o)->cap = cap;
    return o;
}

Obj get_output_stream_string(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    Obj r = sb_to_string(L, &s->buf);
    s->buf.len = 0;
    s->truncated = false;
    return r;
}

Obj make_fd_stream(Lisp *L, int fd, uint32_t flags, Obj pathname) {
    Stream *s = stream_new(L, SK_FD, flags);
    s->fd = fd;
    s->pathname = pathname;
    s->iobuf = (unsigned char *)gc_alloc_atomic(L, IOBUF_SIZE);
    if (flags & ST_BINARY)
        s->element_type = cons(L, S(UNSIGNED_BYTE), cons(L, FIX(8), NIL));
    return (Obj)s;
}

Obj make_synonym_stream(Lisp *L, Obj sym) {
    Stream *s = stream_new(L, SK_SYNONYM, ST_INPUT | ST_OUTPUT);
    s->a = sym;
    return (Obj)s;
}

Obj make_two_way_stream(Lisp *L, Obj in, Obj out) {
    Stream *s = stream_new(L, SK_TWO_WAY, ST_INPUT | ST_OUTPUT);
    s->a = in;
    s->b = out;
    return (Obj)s;
}

Obj make_broadcast_stream(Lisp *L, Obj list) {
    Stream *s = stream_new(L, SK_BROADCAST, ST_OUTPUT);
    s->a = list;
    return (Obj)s;
}

static Obj check_stream(Lisp *L, Obj o) {
    if (!is_stream(o)) err_type(L, o, S(STREAM));
    return o;
}

static Obj synonym_target(Lisp *L, Obj s) {
    Obj v = SYM(STREAM(s)->a)->value;
    if (v == UNBOUND) err_unbound_variable(L, STREAM(s)->a);
    return check_stream(L, v);
}

Obj stream_out(Lisp *L, Obj d) {
    if (d == NIL) d = SYM(S(STANDARD_OUTPUT))->value;
    else if (d == S(T)) d = SYM(S(TERMINAL_IO))->value;
    return check_stream(L, d);
}

Obj stream_in(Lisp *L, Obj d) {
    if (d == NIL) d = SYM(S(STANDARD_INPUT))->value;
    else if (d == S(T)) d = SYM(S(TERMINAL_IO))->value;
    return check_stream(L, d);
}

static void check_open(Lisp *L, Obj s) {
    if (!(STREAM(s)->flags & ST_OPEN)) err_stream(L, s, "The stream %S is closed.", s);
}

/* ---- fd output ---- */

static void fd_flush(Lisp *L, Stream *s) {
    size_t off = 0;
    while (off < s->iolen) {
        ssize_t w = write(s->fd, s->iobuf + off, s->iolen - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            s->iolen = 0;
            err_stream(L, (Obj)s, "Error writing to %S: %s", (Obj)s, strerror(errno));
        }
        off += (size_t)w;
    }
    s->iolen = 0;
}

static void fd_put_bytes(Lisp *L, Stream *s, const char *b, size_t n) {
    if (s->iolen + n > IOBUF_SIZE) fd_flush(L, s);
    if (n > IOBUF_SIZE) {
        size_t off = 0;
        s->file_pos += (long long)n;
        while (off < n) {
            ssize_t w = write(s->fd, b + off, n - off);
            if (w < 0) {
                if (errno == EINTR) continue;
                err_stream(L, (Obj)s, "Error writing to %S: %s", (Obj)s, strerror(errno));
            }
            off += (size_t)w;
        }
        return;
    }
    memcpy(s->iobuf + s->iolen, b, n);
    s->iolen += n;
    s->file_pos += (long long)n;
}

void stream_write_char(Lisp *L, Obj o, uint32_t c) {
    Stream *s = STREAM(o);
    switch (kind_of(o)) {
    case SK_STRING_OUT:
        if (s->cap && s->buf.len >= s->cap) { s->truncated = true; break; }
        sb_putc(L, &s->buf, c);
        break;
    case SK_FD: {
        check_open(L, o);
        if (!(s->flags & ST_OUTPUT)) err_stream(L, o, "%S is not an output stream.", o);
        char b[4];
        int n = s->external_format == 1 && c < 256 ? (b[0] = (char)c, 1) : utf8_encode(c, b);
        fd_put_bytes(L, s, b, (size_t)n);
        if (c == '\n' && (s->flags & ST_INTERACTIVE)) fd_flush(L, s);
        break;
    }
    case SK_SYNONYM: stream_write_char(L, synonym_target(L, o), c); return;
    case SK_TWO_WAY: case SK_ECHO: stream_write_char(L, s->b, c); return;
    case SK_BROADCAST:
        for (Obj l = s->a; is_cons(l); l = CDR(l)) stream_write_char(L, CAR(l), c);
        break;
    case SK_NULL: break;
    default: err_stream(L, o, "%S is not an output stream.", o);
    }
    s->column = c == '\n' ? 0 : s->column + 1;
}

void stream_write_u32(Lisp *L, Obj o, const uint32_t *chars, size_t n) {
    Stream *s = STREAM(o);
    if (kind_of(o) == SK_STRING_OUT && !s->cap) {
        sb_putn(L, &s->buf, chars, n);
        for (size_t i = 0; i < n; i++) s->column = chars[i] == '\n' ? 0 : s->column + 1;
        return;
    }
    for (size_t i = 0; i < n; i++) stream_write_char(L, o, chars[i]);
}

void stream_write_cstr(Lisp *L, Obj o, const char *p) {
    size_t n = strlen(p);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += (size_t)utf8_decode((const unsigned char *)p + i, n - i, &cp);
        stream_write_char(L, o, cp);
    }
}

void stream_write_string(Lisp *L, Obj o, Obj str, size_t start, size_t end) {
    stream_write_u32(L, o, STR(str)->data + start, end - start);
}

void stream_terpri(Lisp *L, Obj o) { stream_write_char(L, o, '\n'); }

size_t stream_column(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_column(L, synonym_target(L, o));
    case SK_TWO_WAY: case SK_ECHO: return stream_column(L, STREAM(o)->b);
    default: return STREAM(o)->column;
    }
}

void stream_fresh_line(Lisp *L, Obj o) {
    if (stream_column(L, o) != 0) stream_write_char(L, o, '\n');
}

void stream_finish_output(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_FD: if (STREAM(o)->flags & ST_OUTPUT) fd_flush(L, STREAM(o)); break;
    case SK_SYNONYM: stream_finish_output(L, synonym_target(L, o)); break;
    case SK_TWO_WAY: case SK_ECHO: stream_finish_output(L, STREAM(o)->b); break;
    case SK_BROADCAST:
        for (Obj l = STREAM(o)->a; is_cons(l); l = CDR(l)) stream_finish_output(L, CAR(l));
        break;
    default: break;
    }
}

/* ---- input ---- */

static int fd_fill(Lisp *L, Stream *s) {
    for (;;) {
        ssize_t r = read(s->fd, s->iobuf, IOBUF_SIZE);
        if (r < 0) {
            if (errno == EINTR) { safe_point(L); continue; }
            err_stream(L, (Obj)s, "Error reading from %S: %s", (Obj)s, strerror(errno));
        }
        s->iolen = (size_t)r;
        s->iopos = 0;
        return (int)r;
    }
}

int stream_read_byte(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    if (kind_of(o) != SK_FD) {
        if (kind_of(o) == SK_SYNONYM) return stream_read_byte(L, synonym_target(L, o));
        if (kind_of(o) == SK_TWO_WAY || kind_of(o) == SK_ECHO) return stream_read_byte(L, s->a);
        err_stream(L, o, "%S is not a binary input stream.", o);
    }
    check_open(L, o);
    if (!(s->flags & ST_INPUT)) err_stream(L, o, "%S is not an input stream.", o);
    if (s->iopos >= s->iolen && fd_fill(L, s) == 0) return -1;
    s->file_pos++;
    return s->iobuf[s->iopos++];
}

void stream_write_byte(Lisp *L, Obj o, int byte) {
    Stream *s = STREAM(o);
    if (kind_of(o) == SK_SYNONYM) { stream_write_byte(L, synonym_target(L, o), byte); return; }
    if (kind_of(o) == SK_BROADCAST) {
        for (Obj l = s->a; is_cons(l); l = CDR(l)) stream_write_byte(L, CAR(l), byte);
        return;
    }
    if (kind_of(o) != SK_FD || !(s->flags & ST_OUTPUT)) err_stream(L, o, "%S is not a binary output stream.", o);
    check_open(L, o);
    char b = (char)byte;
    fd_put_bytes(L, s, &b, 1);
}

static int fd_read_char(Lisp *L, Stream *s) {
    int b0 = stream_read_byte(L, (Obj)s);
    if (b0 < 0) return -1;
    if (b0 < 0x80 || s->external_format == 1) return b0;
    unsigned char buf[4];
    buf[0] = (unsigned char)b0;
    int need = (b0 & 0xE0) == 0xC0 ? 1 : (b0 & 0xF0) == 0xE0 ? 2 : (b0 & 0xF8) == 0xF0 ? 3 : 0;
    int got = 0;
    for (int i = 1; i <= need; i++) {
        if (s->iopos >= s->iolen && fd_fill(L, s) == 0) break;
        if ((s->iobuf[s->iopos] & 0xC0) != 0x80) break;
        buf[i] = s->iobuf[s->iopos++];
        s->file_pos++;
        got++;
    }
    uint32_t cp;
    if (got < need) return 0xFFFD;
    utf8_decode(buf, (size_t)need + 1, &cp);
    return (int)cp;
}

int stream_read_char(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    if (s->unread >= 0) {
        int c = s->unread;
        s->unread = -1;
        return c;
    }
    int c;
    switch (kind_of(o)) {
    case SK_STRING_IN:
        check_open(L, o);
        if (s->pos >= s->end) return -1;
        c = (int)STR(s->string)->data[s->pos++];
        break;
    case SK_FD:
        c = fd_read_char(L, s);
        break;
    case SK_SYNONYM: return stream_read_char(L, synonym_target(L, o));
    case SK_TWO_WAY: return stream_read_char(L, s->a);
    case SK_ECHO:
        c = stream_read_char(L, s->a);
        if (c >= 0) stream_write_char(L, s->b, (uint32_t)c);
        break;
    case SK_CONCATENATED:
        for (;;) {
            if (!is_cons(s->a)) return -1;
            c = stream_read_char(L, CAR(s->a));
            if (c >= 0) break;
            s->a = CDR(s->a);
        }
        break;
    case SK_NULL: return -1;
    default: err_stream(L, o, "%S is not an input stream.", o);
    }
    if (c == '\n') s->line++;
    s->last_char = (uint32_t)c;
    return c;
}

void stream_unread_char(Lisp *L, Obj o, uint32_t c) {
    Stream *s = STREAM(o);
    switch (kind_of(o)) {
    case SK_SYNONYM: stream_unread_char(L, synonym_target(L, o), c); return;
    case SK_TWO_WAY: stream_unread_char(L, s->a, c); return;
    case SK_STRING_IN:
        if (s->pos > s->start && STR(s->string)->data[s->pos - 1] == c) { s->pos--; if (c == '\n') s->line--; return; }
        break;
    default: break;
    }
    s->unread = (int)c;
    if (c == '\n') s->line--;
}

int stream_peek_char(Lisp *L, Obj o) {
    int c = stream_read_char(L, o);
    if (c >= 0) stream_unread_char(L, o, (uint32_t)c);
    return c;
}

bool stream_listen(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    if (s->unread >= 0) return true;
    switch (kind_of(o)) {
    case SK_STRING_IN: return s->pos < s->end;
    case SK_FD: return s->iopos < s->iolen;
    case SK_SYNONYM: return stream_listen(L, synonym_target(L, o));
    case SK_TWO_WAY: case SK_ECHO: return stream_listen(L, s->a);
    default: return false;
    }
}

void stream_close(Lisp *L, Obj o, bool abort) {
    Stream *s = STREAM(o);
    if (!(s->flags & ST_OPEN)) return;
    if (kind_of(o) == SK_FD) {
        if ((s->flags & ST_OUTPUT) && !abort) fd_flush(L, s);
        if (s->flags & ST_OWN_FD) close(s->fd);
    }
    s->flags &= ~(uint32_t)ST_OPEN;
}

bool stream_is_input(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_is_input(L, synonym_target(L, o));
    default: return (STREAM(o)->flags & ST_INPUT) != 0;
    }
}

bool stream_is_output(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_is_output(L, synonym_target(L, o));
    default: return (STREAM(o)->flags & ST_OUTPUT) != 0;
    }
}

/* ---- primitives ---- */

DEFPRIM(prim_write_char) {
    UNUSED_ARGS;
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    stream_write_char(L, s, char_code(check_char(L, args[0])));
    return args[0];
}

static void string_bounds(Lisp *L, Obj str, int nargs, Obj *args, int from, size_t *start, size_t *end) {
    Obj keys[2] = {S(K_START), S(K_END)}, out[2];
    parse_keys(L, nargs, args, from, 2, keys, out);
    size_t len = STR(str)->len;
    *end = (out[1] == NO_VALUE || out[1] == NIL) ? len : check_bound(L, out[1], len);
    *start = out[0] == NO_VALUE ? 0 : check_bound(L, out[0], *end);
}

DEFPRIM(prim_write_string) {
    Obj str = check_string(L, args[0]);
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    size_t start, end;
    string_bounds(L, str, nargs, args, 2, &start, &end);
    stream_write_string(L, s, str, start, end);
    return str;
}

DEFPRIM(prim_write_line) {
    Obj str = check_string(L, args[0]);
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    size_t start, end;
    string_bounds(L, str, nargs, args, 2, &start, &end);
    stream_write_string(L, s, str, start, end);
    stream_terpri(L, s);
    return str;
}

DEFPRIM(prim_terpri) {
    UNUSED_ARGS;
    stream_terpri(L, stream_out(L, opt_arg(nargs, args, 0, NIL)));
    return NIL;
}

DEFPRIM(prim_fresh_line) {
    UNUSED_ARGS;
    Obj s = stream_out(L, opt_arg(nargs, args, 0, NIL));
    bool need = stream_column(L, s) != 0;
    if (need) stream_terpri(L, s);
    return boolean(L, need);
}

DEFPRIM(prim_finish_output) {
    UNUSED_ARGS;
    stream_finish_output(L, stream_out(L, opt_arg(nargs, args, 0, NIL)));
    return NIL;
}

DEFPRIM(prim_clear_output) { UNUSED_ARGS; return NIL; }

static Obj eof_result(Lisp *L, Obj s, int nargs, Obj *args, int at) {
    bool eof_error = nargs <= at || args[at] != NIL;
    if (eof_error) err_eof(L, s);
    return nargs > at + 1 ? args[at + 1] : NIL;
}

DEFPRIM(prim_read_char) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    int c = stream_read_char(L, s);
    if (c < 0) return eof_result(L, s, nargs, args, 1);
    return make_char((uint32_t)c);
}

DEFPRIM(prim_read_char_no_hang) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    if (kind_of(s) == SK_FD && !stream_listen(L, s) && (STREAM(s)->flags & ST_INTERACTIVE)) return NIL;
    int c = stream_read_char(L, s);
    if (c < 0) return eof_result(L, s, nargs, args, 1);
    return make_char((uint32_t)c);
}

DEFPRIM(prim_unread_char) {
    Obj s = stream_in(L, opt_arg(nargs, args, 1, NIL));
    stream_unread_char(L, s, char_code(check_char(L, args[0])));
    return NIL;
}

DEFPRIM(prim_peek_char) {
    Obj type = opt_arg(nargs, args, 0, NIL);
    Obj s = stream_in(L, opt_arg(nargs, args, 1, NIL));
    for (;;) {
        int c = stream_read_char(L, s);
        if (c < 0) return eof_result(L, s, nargs, args, 2);
        bool ok;
        if (type == NIL) ok = true;
        else if (type == S(T)) ok = !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f');
        else ok = is_char(type) && char_code(type) == (uint32_t)c;
        if (ok) {
            stream_unread_char(L, s, (uint32_t)c);
            return make_char((uint32_t)c);
        }
    }
}

DEFPRIM(prim_read_line) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    StrBuf b;
    sb_init(L, &b, 80);
    int c = stream_read_char(L, s);
    if (c < 0) {
        Obj r = eof_result(L, s, nargs, args, 1);
        return values2(L, r, S(T));
    }
    while (c >= 0 && c != '\n') {
        sb_putc(L, &b, (uint32_t)c);
        c = stream_read_char(L, s);
    }
    return values2(L, sb_to_string(L, &b), boolean(L, c < 0));
}

DEFPRIM(prim_listen) {
    UNUSED_ARGS;
    return boolean(L, stream_listen(L, stream_in(L, opt_arg(nargs, args, 0, NIL))));
}

DEFPRIM(prim_clear_input) { UNUSED_ARGS; return NIL; }

DEFPRIM(prim_read_byte) {
    Obj s = check_stream(L, args[0]);
    int b = stream_read_byte(L, s);
    if (b < 0) return eof_result(L, s, nargs, args, 1);
    return FIX(b);
}

DEFPRIM(prim_write_byte) {
    UNUSED_ARGS;
    intptr_t b = check_fixnum(L, args[0]);
    if (b < 0 || b > 255) err_type(L, args[0], cons(L, S(UNSIGNED_BYTE), cons(L, FIX(8), NIL)));
    stream_write_byte(L, check_stream(L, args[1]), (int)b);
    return args[0];
}

DEFPRIM(prim_make_string_input_stream) {
    Obj str = check_string(L, args[0]);
    size_t len = STR(str)->len;
    size_t end = nargs > 2 && args[2] != NIL ? check_bound(L, args[2], len) : len;
    size_t start = nargs > 1 ? check_bound(L, args[1], end) : 0;
    return make_string_input_stream(L, str, start, end);
}

DEFPRIM(prim_make_string_output_stream) {
    UNUSED_ARGS;
    return make_string_output_stream(L);
}

DEFPRIM(prim_get_output_stream_string) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    if (kind_of(s) != SK_STRING_OUT) err_type(L, s, S(STRING_STREAM));
    return get_output_stream_string(L, s);
}

DEFPRIM(prim_make_synonym_stream) { UNUSED_ARGS; return make_synonym_stream(L, check_symbol(L, args[0])); }
DEFPRIM(prim_make_two_way_stream) {
    UNUSED_ARGS;
    return make_two_way_stream(L, check_stream(L, args[0]), check_stream(L, args[1]));
}
DEFPRIM(prim_make_broadcast_stream) {
    Obj l = NIL;
    for (int i = nargs - 1; i >= 0; i--) l = cons(L, check_stream(L, args[i]), l);
    return make_broadcast_stream(L, l);
}
DEFPRIM(prim_make_echo_stream) {
    UNUSED_ARGS;
    Obj s = make_two_way_stream(L, check_stream(L, args[0]), check_stream(L, args[1]));
    STREAM(s)->h.aux = SK_ECHO;
    return s;
}
DEFPRIM(prim_make_concatenated_stream) {
    Obj l = NIL;
    for (int i = nargs - 1; i >= 0; i--) l = cons(L, check_stream(L, args[i]), l);
    Stream *s = STREAM(make_broadcast_stream(L, l));
    s->h.aux = SK_CONCATENATED;
    s->flags = ST_INPUT | ST_OPEN;
    return (Obj)s;
}

static Obj stream_list_copy(Lisp *L, Obj l) {
    Obj r = NIL, tail = NIL;
    for (; is_cons(l); l = CDR(l)) {
        Obj c = cons(L, CAR(l), NIL);
        if (tail == NIL) r = c; else CDR(tail) = c;
        tail = c;
    }
    return r;
}

static Obj stream_of_kind(Lisp *L, Obj s, StreamKind k, Obj type) {
    check_stream(L, s);
    if (kind_of(s) != k) err_type(L, s, type);
    return s;
}

DEFPRIM(prim_synonym_stream_symbol) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_SYNONYM, S(SYNONYM_STREAM)))->a; }
DEFPRIM(prim_two_way_stream_input_stream) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_TWO_WAY, S(TWO_WAY_STREAM)))->a; }
DEFPRIM(prim_two_way_stream_output_stream) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_TWO_WAY, S(TWO_WAY_STREAM)))->b; }
DEFPRIM(prim_echo_stream_input_stream) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_ECHO, S(ECHO_STREAM)))->a; }
DEFPRIM(prim_echo_stream_output_stream) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_ECHO, S(ECHO_STREAM)))->b; }
DEFPRIM(prim_broadcast_stream_streams) { UNUSED_ARGS; return stream_list_copy(L, STREAM(stream_of_kind(L, args[0], SK_BROADCAST, S(BROADCAST_STREAM)))->a); }
DEFPRIM(prim_concatenated_stream_streams) { UNUSED_ARGS; return stream_list_copy(L, STREAM(stream_of_kind(L, args[0], SK_CONCATENATED, S(CONCATENATED_STREAM)))->a); }

DEFPRIM(prim_streamp) { UNUSED_ARGS; return boolean(L, is_stream(args[0])); }
DEFPRIM(prim_input_stream_p) { UNUSED_ARGS; return boolean(L, stream_is_input(L, check_stream(L, args[0]))); }
DEFPRIM(prim_output_stream_p) { UNUSED_ARGS; return boolean(L, stream_is_output(L, check_stream(L, args[0]))); }
DEFPRIM(prim_open_stream_p) { UNUSED_ARGS; return boolean(L, (STREAM(check_stream(L, args[0]))->flags & ST_OPEN) != 0); }
DEFPRIM(prim_interactive_stream_p) { UNUSED_ARGS; return boolean(L, (STREAM(check_stream(L, args[0]))->flags & ST_INTERACTIVE) != 0); }
DEFPRIM(prim_stream_element_type) { UNUSED_ARGS; return STREAM(check_stream(L, args[0]))->element_type; }

DEFPRIM(prim_close) {
    Obj s = check_stream(L, args[0]);
    Obj keys[1] = {S(K_ABORT)}, out[1];
    parse_keys(L, nargs, args, 1, 1, keys, out);
    bool was_open = (STREAM(s)->flags & ST_OPEN) != 0;
    stream_close(L, s, out[0] != NO_VALUE && out[0] != NIL);
    return boolean(L, was_open);
}

DEFPRIM(prim_pct_stream_line) {
    UNUSED_ARGS;
    return FIX((intptr_t)STREAM(check_stream(L, args[0]))->line);
}

/* (sys:%output-truncated-p stream): whether a capped string output stream dropped characters */
DEFPRIM(prim_pct_output_truncated_p) {
    UNUSED_ARGS;
    return boolean(L, STREAM(check_stream(L, args[0]))->truncated);
}

static const PrimDef stream_prims[] = {
    {"WRITE-CHAR", PK_CL, prim_write_char, 1, 2, 0, "(character &optional stream)", "Write CHARACTER to STREAM."},
    {"WRITE-STRING", PK_CL, prim_write_string, 1, REST, 0, "(string &optional stream &key start end)", "Write STRING to STREAM."},
    {"WRITE-LINE", PK_CL, prim_write_line, 1, REST, 0, "(string &optional stream &key start end)", "Write STRING and a newline."},
    {"TERPRI", PK_CL, prim_terpri, 0, 1, 0, "(&optional stream)", "Output a newline."},
    {"FRESH-LINE", PK_CL, prim_fresh_line, 0, 1, 0, "(&optional stream)", "Output a newline unless at the start of a line."},
    {"FINISH-OUTPUT", PK_CL, prim_finish_output, 0, 1, 0, "(&optional stream)", "Flush STREAM."},
    {"FORCE-OUTPUT", PK_CL, prim_finish_output, 0, 1, 0, "(&optional stream)", "Flush STREAM."},
    {"CLEAR-OUTPUT", PK_CL, prim_clear_output, 0, 1, 0, "(&optional stream)", "Discard pending output."},
    {"READ-CHAR", PK_CL, prim_read_char, 0, 4, 0, "(&optional stream eof-error-p eof-value recursive-p)", "Read a character."},
    {"READ-CHAR-NO-HANG", PK_CL, prim_read_char_no_hang, 0, 4, 0, "(&optional stream eof-error-p eof-value recursive-p)", "Read a character if one is available."},
    {"UNREAD-CHAR", PK_CL, prim_unread_char, 1, 2, 0, "(character &optional stream)", "Push CHARACTER back onto STREAM."},
    {"PEEK-CHAR", PK_CL, prim_peek_char, 0, 5, 0, "(&optional peek-type stream eof-error-p eof-value recursive-p)", "Look at the next character."},
    {"READ-LINE", PK_CL, prim_read_line, 0, 4, FN_MV, "(&optional stream eof-error-p eof-value recursive-p)", "Read a line; second value true if it ended at end of file."},
    {"LISTEN", PK_CL, prim_listen, 0, 1, 0, "(&optional stream)", "True if a character is available."},
    {"CLEAR-INPUT", PK_CL, prim_clear_input, 0, 1, 0, "(&optional stream)", "Discard pending input."},
    {"READ-BYTE", PK_CL, prim_read_byte, 1, 3, 0, "(stream &optional eof-error-p eof-value)", "Read a byte."},
    {"WRITE-BYTE", PK_CL, prim_write_byte, 2, 2, 0, "(byte stream)", "Write a byte."},
    {"MAKE-STRING-INPUT-STREAM", PK_CL, prim_make_string_input_stream, 1, 3, 0, "(string &optional start end)", "A stream reading from STRING."},
    {"MAKE-STRING-OUTPUT-STREAM", PK_CL, prim_make_string_output_stream, 0, REST, 0, "(&key element-type)", "A stream collecting output in a string."},
    {"GET-OUTPUT-STREAM-STRING", PK_CL, prim_get_output_stream_string, 1, 1, 0, "(stream)", "The collected string; clears the stream."},
    {"MAKE-SYNONYM-STREAM", PK_CL, prim_make_synonym_stream, 1, 1, 0, "(symbol)", "A stream forwarding to the value of SYMBOL."},
    {"MAKE-TWO-WAY-STREAM", PK_CL, prim_make_two_way_stream, 2, 2, 0, "(input output)", "A bidirectional stream."},
    {"MAKE-BROADCAST-STREAM", PK_CL, prim_make_broadcast_stream, 0, REST, 0, "(&rest streams)", "Output to every stream."},
    {"MAKE-ECHO-STREAM", PK_CL, prim_make_echo_stream, 2, 2, 0, "(input output)", "Input echoed to output."},
    {"MAKE-CONCATENATED-STREAM", PK_CL, prim_make_concatenated_stream, 0, REST, 0, "(&rest streams)", "Input from each stream in turn."},
    {"SYNONYM-STREAM-SYMBOL", PK_CL, prim_synonym_stream_symbol, 1, 1, 0, "(stream)", NULL},
    {"TWO-WAY-STREAM-INPUT-STREAM", PK_CL, prim_two_way_stream_input_stream, 1, 1, 0, "(stream)", NULL},
    {"TWO-WAY-STREAM-OUTPUT-STREAM", PK_CL, prim_two_way_stream_output_stream, 1, 1, 0, "(stream)", NULL},
    {"ECHO-STREAM-INPUT-STREAM", PK_CL, prim_echo_stream_input_stream, 1, 1, 0, "(stream)", NULL},
    {"ECHO-STREAM-OUTPUT-STREAM", PK_CL, prim_echo_stream_output_stream, 1, 1, 0, "(stream)", NULL},
    {"BROADCAST-STREAM-STREAMS", PK_CL, prim_broadcast_stream_streams, 1, 1, 0, "(stream)", NULL},
    {"CONCATENATED-STREAM-STREAMS", PK_CL, prim_concatenated_stream_streams, 1, 1, 0, "(stream)", NULL},
    {"STREAMP", PK_CL, prim_streamp, 1, 1, 0, "(object)", NULL},
    {"INPUT-STREAM-P", PK_CL, prim_input_stream_p, 1, 1, 0, "(stream)", NULL},
    {"OUTPUT-STREAM-P", PK_CL, prim_output_stream_p, 1, 1, 0, "(stream)", NULL},
    {"OPEN-STREAM-P", PK_CL, prim_open_stream_p, 1, 1, 0, "(stream)", NULL},
    {"INTERACTIVE-STREAM-P", PK_CL, prim_interactive_stream_p, 1, 1, 0, "(stream)", NULL},
    {"STREAM-ELEMENT-TYPE", PK_CL, prim_stream_element_type, 1, 1, 0, "(stream)", NULL},
    {"CLOSE", PK_CL, prim_close, 1, REST, 0, "(stream &key abort)", "Close STREAM."},
    {"%STREAM-LINE", PK_SYS, prim_pct_stream_line, 1, 1, 0, "(stream)", "Current input line number."},
    {"%OUTPUT-TRUNCATED-P", PK_SYS, prim_pct_output_truncated_p, 1, 1, 0, "(stream)", NULL},
    {0},
};

void stream_init(Lisp *L) {
    prims_register(L, stream_prims);
    Obj in = make_fd_stream(L, 0, ST_INPUT | (isatty(0) ? ST_INTERACTIVE : 0), NIL);
    Obj out = make_fd_stream(L, 1, ST_OUTPUT | (isatty(1) ? ST_INTERACTIVE : 0), NIL);
    Obj err = make_fd_stream(L, 2, ST_OUTPUT | ST_INTERACTIVE, NIL);
    Obj term = make_two_way_stream(L, in, out);
    SYM(S(TERMINAL_IO))->value = term;
    SYM(S(STANDARD_INPUT))->value = make_synonym_stream(L, S(TERMINAL_IO));
    SYM(S(STANDARD_OUTPUT))->value = out;
    SYM(S(ERROR_OUTPUT))->value = err;
    SYM(S(TRACE_OUTPUT))->value = err;
    SYM(S(DEBUG_IO))->value = make_synonym_stream(L, S(TERMINAL_IO));
    SYM(S(QUERY_IO))->value = make_synonym_stream(L, S(TERMINAL_IO));
    Obj vars[] = {S(TERMINAL_IO), S(STANDARD_INPUT), S(STANDARD_OUTPUT), S(ERROR_OUTPUT),
                  S(TRACE_OUTPUT), S(DEBUG_IO), S(QUERY_IO)};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) SYM(vars[i])->h.flags |= SYM_SPECIAL;
}
