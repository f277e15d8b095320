/* stream.c: streams (CLHS chapter 21): string, fd (file), synonym, two-way, broadcast, echo and
 * concatenated streams; OPEN and file positions; READ-SEQUENCE and WRITE-SEQUENCE. */
#include "stream.h"
#include "access.h"
#include "prim.h"
#include "package.h"
#include "pathname.h"
#include "array.h"
#include "list.h"
#include "eval.h"
#include "number.h"
#include "types.h"
#include "reader.h"
#include "gray.h"
#include "docs.h"
#include "iowait.h"
#include "thread.h"
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <sys/stat.h>
#define GC_THREADS
#include <gc/gc.h>

#define IOBUF_SIZE 8192

/* A file stream that becomes garbage while open gives its descriptor back (as SBCL's
 * :AUTO-CLOSE finalizer does; unflushed output is lost). */
static void fd_stream_finalizer(void *obj, void *data) {
    (void)data;
    Stream *s = (Stream *)obj;
    if ((s->flags & ST_OPEN) && (s->flags & ST_OWN_FD) && s->fd >= 0) {
        close(s->fd);
        s->flags &= ~(uint32_t)ST_OPEN;
    }
}

static Stream *stream_new(Lisp *L, StreamKind kind, uint32_t flags) {
    Stream *s = (Stream *)heap_alloc(L, T_STREAM, sizeof(Stream));
    s->h.aux = (uint16_t)kind;
    s->flags = flags | ST_OPEN;
    s->unread = -1;
    s->fd = -1;
    s->string = s->pathname = s->a = s->b = s->native = NIL;
    s->element_type = S(CHARACTER);
    s->line = 1;
    s->elt_bytes = 1;
    s->replacement = -1;
    return s;
}
static inline StreamKind kind_of(Obj s) { return (StreamKind)STREAM(s)->h.aux; }

Obj make_string_input_stream(Lisp *L, Obj str, size_t start, size_t end) {
    Stream *s = stream_new(L, SK_STRING_IN, ST_INPUT | ST_CHAR);
    s->string = str;
    s->pos = s->start = start;
    s->end = end;
    return (Obj)s;
}

Obj make_string_output_stream(Lisp *L) {
    Stream *s = stream_new(L, SK_STRING_OUT, ST_OUTPUT | ST_CHAR);
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
    if (s->flags & ST_BASE) {
        bool base = true;
        for (size_t i = 0; i < STR(r)->len && base; i++) base = STR(r)->data[i] < 128;
        if (base) STR(r)->h.flags |= ARR_BASE;   /* a SIMPLE-BASE-STRING, as SBCL */
    }
    s->buf.len = 0;
    s->truncated = false;
    s->column = 0;
    return r;
}

Obj make_fill_pointer_output_stream(Lisp *L, Obj str) {
    bool ok = (is_string(str) && (STR(str)->h.flags & ARR_FILL_POINTER)) ||
              (is_any_string(str) && is_type(str, T_ARRAY) && (ARR(str)->h.flags & ARR_FILL_POINTER));
    if (!ok)
        err_type(L, str, cons(L, S(AND), list2(L, S(STRING), list2(L, S(SATISFIES), intern_cstr(L, L->pkg_cl, "ARRAY-HAS-FILL-POINTER-P")))));
    Stream *s = stream_new(L, SK_STRING_FILL, ST_OUTPUT | ST_CHAR);
    s->string = str;
    return (Obj)s;
}

Obj make_fd_stream(Lisp *L, int fd, uint32_t flags, Obj pathname) {
    if (!(flags & ST_BINARY)) flags |= ST_CHAR;
    /* a descriptor that is not a regular file can make a read or a write wait indefinitely: such
     * streams wait in iowait, where the deadline and cancellation are seen */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISDIR(st.st_mode)) flags |= ST_MAY_BLOCK;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_NONBLOCK)) flags |= ST_NONBLOCK;
    Stream *s = stream_new(L, SK_FD, flags);
    s->fd = fd;
    s->pathname = pathname;
    s->iobuf = (unsigned char *)gc_alloc_atomic(L, IOBUF_SIZE);
    if ((flags & ST_BINARY) && !(flags & ST_CHAR))
        s->element_type = list2(L, S(UNSIGNED_BYTE), FIX(8));
    return (Obj)s;
}

Obj make_synonym_stream(Lisp *L, Obj sym) {
    Stream *s = stream_new(L, SK_SYNONYM, ST_INPUT | ST_OUTPUT | ST_CHAR);
    s->a = sym;
    return (Obj)s;
}

Obj make_two_way_stream(Lisp *L, Obj in, Obj out) {
    Stream *s = stream_new(L, SK_TWO_WAY, ST_INPUT | ST_OUTPUT | ST_CHAR);
    s->a = in;
    s->b = out;
    return (Obj)s;
}

Obj make_broadcast_stream(Lisp *L, Obj list) {
    Stream *s = stream_new(L, SK_BROADCAST, ST_OUTPUT | ST_CHAR);
    s->a = list;
    return (Obj)s;
}

Obj make_gray_stream(Lisp *L, Obj instance) {
    Stream *s = stream_new(L, SK_GRAY, ST_INPUT | ST_OUTPUT | ST_OPEN | ST_CHAR | ST_BINARY);
    s->a = instance;
    return (Obj)s;
}

/* Not a built-in stream: a Gray stream instance is wrapped (gray.h), anything else is refused. */
static Obj check_stream(Lisp *L, Obj o) {
    if (UNLIKELY(!is_stream(o))) {
        if (gray_instance_p(L, o)) return make_gray_stream(L, o);
        err_type(L, o, S(STREAM));
    }
    return o;
}
#define GRAY_OF(o) (STREAM(o)->a)

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

/* ---- errors ---- */

_Noreturn void stream_closed_error(Lisp *L, Obj s) {
    s = stream_visible(s);
    err_with_message(L, S(P_CLOSED_STREAM_ERROR), list2(L, S(K_STREAM), s), msg_format(L, "%S is closed", s));
}

static inline void check_open(Lisp *L, Obj s) {
    if (UNLIKELY(!(STREAM(s)->flags & ST_OPEN))) stream_closed_error(L, s);
}

/* SBCL signals a SIMPLE-TYPE-ERROR when a stream cannot do an operation: "... is not a character input stream." */
_Noreturn static void not_a(Lisp *L, Obj s, const char *what) {
    s = stream_visible(s);
    err_with_message(L, S(SIMPLE_TYPE_ERROR), cons(L, S(K_DATUM), cons(L, s, list2(L, S(K_EXPECTED_TYPE), S(STREAM)))),
                     msg_format(L, "%S is not a %s stream.", s, what));
}

_Noreturn static void stream_io_error(Lisp *L, Obj s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Obj msg = msg_vformat(L, fmt, ap);
    va_end(ap);
    err_with_message(L, S(P_SIMPLE_STREAM_ERROR), list2(L, S(K_STREAM), s), msg);
}

static Obj ef_keyword(Lisp *L, int ef) {
    return ef == EF_LATIN1 ? S(K_LATIN_1) : ef == EF_ASCII ? S(K_ASCII) : S(K_UTF_8);
}

/* ---- fd buffers ---- */

static void fd_write_all(Lisp *L, Stream *s, const unsigned char *b, size_t n) {
    size_t off = 0;
    while (off < n) {
        size_t chunk = n - off;
        if (s->flags & ST_MAY_BLOCK) {
            /* wait for room; a blocking descriptor then takes at most PIPE_BUF bytes without waiting */
            iowait_fd(L, s->fd, POLLOUT);
            if (!(s->flags & ST_NONBLOCK) && chunk > PIPE_BUF) chunk = PIPE_BUF;
        }
        ssize_t w = write(s->fd, b + off, chunk);
        if (w < 0) {
            if (errno == EINTR) { safe_point(L); continue; }
            if (errno == EAGAIN || errno == EWOULDBLOCK) continue;   /* full again: wait above */
            int e = errno;
            s->iolen = 0;
            stream_io_error(L, (Obj)s, "Couldn't write to %S: %s", (Obj)s, strerror(e));
        }
        off += (size_t)w;
    }
}

static void fd_flush(Lisp *L, Stream *s) {
    if (s->io_mode == 1) return;   /* the buffer holds input */
    size_t n = s->iolen;
    s->iolen = 0;
    if (n) fd_write_all(L, s, s->iobuf, n);
}

/* Switch an fd stream to writing: unread buffered input goes back to the file. */
static void fd_prepare_write(Lisp *L, Stream *s) {
    (void)L;
    if (s->io_mode == 2) return;
    if (s->io_mode == 1) {
        off_t back = (off_t)(s->iolen - s->iopos);
        if (s->unread >= 0) back += s->external_format == EF_UTF8 ? (s->unread < 0x80 ? 1 : s->unread < 0x800 ? 2 : s->unread < 0x10000 ? 3 : 4) : 1;
        if (back) lseek(s->fd, -back, SEEK_CUR);
        s->unread = -1;
    }
    s->iolen = s->iopos = 0;
    s->io_mode = 2;
}

static void fd_prepare_read(Lisp *L, Stream *s) {
    if (s->io_mode == 1) return;
    if (s->io_mode == 2) fd_flush(L, s);
    s->iolen = s->iopos = 0;
    s->io_mode = 1;
}

static void fd_put_bytes(Lisp *L, Stream *s, const char *b, size_t n) {
    if (s->io_mode != 2) fd_prepare_write(L, s);
    s->file_pos += (long long)n;
    if (s->iolen + n > IOBUF_SIZE) fd_flush(L, s);
    if (n > IOBUF_SIZE) { fd_write_all(L, s, (const unsigned char *)b, n); return; }
    memcpy(s->iobuf + s->iolen, b, n);
    s->iolen += n;
}

static int fd_fill(Lisp *L, Stream *s) {
    if (s->io_mode != 1) fd_prepare_read(L, s);
    for (;;) {
        /* a pipe, FIFO or terminal: wait for input (or its end) where a timeout can stop the wait;
         * a FIFO opened without a writer would read end of file at once */
        if (s->flags & ST_MAY_BLOCK) iowait_fd(L, s->fd, POLLIN);
        ssize_t r = read(s->fd, s->iobuf, IOBUF_SIZE);
        if (r < 0) {
            if (errno == EINTR) { safe_point(L); continue; }
            if (errno == EAGAIN || errno == EWOULDBLOCK) continue;   /* taken by another reader: wait again */
            int e = errno;
            s->iolen = s->iopos = 0;
            stream_io_error(L, (Obj)s, "Couldn't read from %S: %s", (Obj)s, strerror(e));
        }
        s->iolen = (size_t)r;
        s->iopos = 0;
        return (int)r;
    }
}

/* One raw byte, -1 at end of file. */
static inline int fd_getbyte(Lisp *L, Stream *s) {
    if (s->io_mode != 1 || s->iopos >= s->iolen) {
        if (fd_fill(L, s) == 0) return -1;
    }
    s->file_pos++;
    return s->iobuf[s->iopos++];
}

/* The next raw byte without consuming it, -1 at end of file. */
static int fd_peekbyte(Lisp *L, Stream *s) {
    if (s->io_mode != 1 || s->iopos >= s->iolen) {
        if (fd_fill(L, s) == 0) return -1;
    }
    return s->iobuf[s->iopos];
}

/* ---- character output ---- */

_Noreturn static void encoding_error(Lisp *L, Obj o, uint32_t c) {
    stream_io_error(L, o, "encoding error on stream %S (:EXTERNAL-FORMAT %S): the character with code %ld cannot be encoded.",
                    o, ef_keyword(L, STREAM(o)->external_format), (long)c);
}

static int encode_char(Lisp *L, Obj o, uint32_t c, char *b) {
    Stream *s = STREAM(o);
    switch (s->external_format) {
    case EF_LATIN1:
        if (c < 256) { b[0] = (char)c; return 1; }
        break;
    case EF_ASCII:
        if (c < 128) { b[0] = (char)c; return 1; }
        break;
    default:
        return utf8_encode(c, b);
    }
    if (s->replacement >= 0 && (uint32_t)s->replacement != c) return encode_char(L, o, (uint32_t)s->replacement, b);
    encoding_error(L, o, c);
}

static void fill_put(Lisp *L, Obj o, uint32_t c) {
    Obj target = STREAM(o)->string;
    if (is_type(target, T_ARRAY)) {
        /* a displaced character vector cannot grow */
        Array *a = ARR(target);
        if (a->fill >= a->dims[0]) err_simple(L, "The fill pointer of %S is at its end.", target);
        string_set_any(L, target, a->fill, c);
        a->fill++;
        return;
    }
    String *str = STR(target);
    if ((str->h.flags & ARR_BASE) && c >= 128) err_type(L, make_char(c), S(BASE_CHAR));
    if (str->len >= str->cap) {
        size_t ncap = str->cap < 8 ? 16 : str->cap * 2;
        gc_check_request(L, ncap * 4);
        uint32_t *nd = (uint32_t *)gc_alloc_atomic(L, ncap * 4);
        if (str->len) memcpy(nd, str->data, str->len * 4);
        memset(nd + str->len, 0, (ncap - str->len) * 4);
        str->data = nd;
        str->cap = ncap;
    }
    str->data[str->len++] = c;
}

/* One more character for a session's capture stream S, from the call's output budget
 * (L->output_left), or false: dropped. The session's own thread writing past the budget is a
 * flood: the evaluation stops at the next safe point instead of running on to its time limit.
 * Another Lisp thread writes to the global *STANDARD-OUTPUT* (as in SBCL), which is the
 * evaluation running then: its characters take at most half the budget and are then dropped,
 * never stopping that evaluation, which did not write them; so a thread printing without end
 * leaves each evaluation half its output, and its values. */
static bool capture_take(Lisp *L, Stream *s) {
    bool own = threads_on_main(L);
    size_t keep = own ? 0 : s->cap / 2;
    if (L->output_left <= keep) {
        s->truncated = true;
        if (own) lisp_request_interrupt(L, INTERRUPT_OUTPUT_LIMIT);
        return false;
    }
    L->output_left--;
    return true;
}

void stream_write_char(Lisp *L, Obj o, uint32_t c) {
    Stream *s = STREAM(o);
    check_open(L, o);
    switch (kind_of(o)) {
    case SK_STRING_OUT:
        if ((s->flags & ST_CAPTURE) && !capture_take(L, s)) break;
        if (s->cap && s->buf.len >= s->cap) { s->truncated = true; break; }
        sb_putc(L, &s->buf, c);
        break;
    case SK_STRING_FILL:
        fill_put(L, o, c);
        break;
    case SK_FD: {
        if (!(s->flags & ST_OUTPUT) || !(s->flags & ST_CHAR)) not_a(L, o, "character output");
        char b[4];
        int n = c < 0x80 ? (b[0] = (char)c, 1) : encode_char(L, o, c, b);
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
    case SK_GRAY: gray_call1(L, GRAY_WRITE_CHAR, GRAY_OF(o), make_char(c)); return;
    default: not_a(L, o, "character output");
    }
    s->column = c == '\n' ? 0 : s->column + 1;
}

void stream_write_u32(Lisp *L, Obj o, const uint32_t *chars, size_t n) {
    Stream *s = STREAM(o);
    if (kind_of(o) == SK_STRING_OUT && !s->cap && !(s->flags & ST_CAPTURE)) {
        check_open(L, o);
        sb_putn(L, &s->buf, chars, n);
        for (size_t i = 0; i < n; i++) s->column = chars[i] == '\n' ? 0 : s->column + 1;
        return;
    }
    if (kind_of(o) == SK_GRAY) { gray_write_u32(L, GRAY_OF(o), chars, n); return; }
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

void stream_terpri(Lisp *L, Obj o) {
    if (kind_of(o) == SK_GRAY) gray_call0(L, GRAY_TERPRI, GRAY_OF(o));
    else stream_write_char(L, o, '\n');
}

size_t stream_column(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_column(L, synonym_target(L, o));
    case SK_TWO_WAY: case SK_ECHO: return stream_column(L, STREAM(o)->b);
    case SK_GRAY: {
        Obj c = gray_call0(L, GRAY_LINE_COLUMN, GRAY_OF(o));
        return is_fixnum(c) && fixnum_val(c) > 0 ? (size_t)fixnum_val(c) : 0;
    }
    default: return STREAM(o)->column;
    }
}

void stream_fresh_line(Lisp *L, Obj o) {
    if (kind_of(o) == SK_GRAY) { gray_call0(L, GRAY_FRESH_LINE, GRAY_OF(o)); return; }
    if (stream_column(L, o) != 0) stream_write_char(L, o, '\n');
}

void stream_finish_output(Lisp *L, Obj o) {
    check_open(L, o);
    switch (kind_of(o)) {
    case SK_FD: if ((STREAM(o)->flags & ST_OUTPUT) && STREAM(o)->io_mode == 2) fd_flush(L, STREAM(o)); break;
    case SK_SYNONYM: stream_finish_output(L, synonym_target(L, o)); break;
    case SK_TWO_WAY: case SK_ECHO: stream_finish_output(L, STREAM(o)->b); break;
    case SK_BROADCAST:
        for (Obj l = STREAM(o)->a; is_cons(l); l = CDR(l)) stream_finish_output(L, CAR(l));
        break;
    case SK_GRAY: gray_call0(L, GRAY_FINISH_OUTPUT, GRAY_OF(o)); break;
    default: break;
    }
}

/* ---- input ---- */

_Noreturn static void decoding_error(Lisp *L, Obj o, const unsigned char *bytes, int n) {
    Obj v = make_vector(L, (size_t)n, FIX(0));
    for (int i = 0; i < n; i++) VEC(v)->data[i] = FIX(bytes[i]);
    stream_io_error(L, o, "%S stream decoding error on %S: the octet sequence %S cannot be decoded.",
                    ef_keyword(L, STREAM(o)->external_format), o, v);
}

static int fd_read_char(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    int b0 = fd_getbyte(L, s);
    if (b0 < 0) return -1;
    if (b0 < 0x80 || s->external_format == EF_LATIN1) return b0;
    unsigned char buf[4];
    buf[0] = (unsigned char)b0;
    if (s->external_format == EF_ASCII) goto bad1;
    int need = (b0 & 0xE0) == 0xC0 ? 1 : (b0 & 0xF0) == 0xE0 ? 2 : (b0 & 0xF8) == 0xF0 ? 3 : 0;
    if (need == 0) goto bad1;
    int got = 0;
    for (int i = 1; i <= need; i++) {
        int b = fd_peekbyte(L, s);
        if (b < 0 || (b & 0xC0) != 0x80) break;
        buf[i] = (unsigned char)b;
        s->iopos++;
        s->file_pos++;
        got++;
    }
    if (got < need) {
        if (s->replacement >= 0) return s->replacement;
        decoding_error(L, o, buf, got + 1);
    }
    uint32_t cp = need == 1 ? (uint32_t)(b0 & 0x1F) : need == 2 ? (uint32_t)(b0 & 0x0F) : (uint32_t)(b0 & 0x07);
    for (int i = 1; i <= need; i++) cp = (cp << 6) | (buf[i] & 0x3F);
    bool overlong = (need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        if (s->replacement >= 0) return s->replacement;
        decoding_error(L, o, buf, need + 1);
    }
    return (int)cp;
bad1:
    if (s->replacement >= 0) return s->replacement;
    decoding_error(L, o, buf, 1);
}

int stream_read_char(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    check_open(L, o);
    if (s->unread >= 0) {
        int c = s->unread;
        s->unread = -1;
        if (c == '\n') { s->line++; s->prev_col = s->col; s->col = 0; } else s->col++;
        return c;
    }
    int c;
    switch (kind_of(o)) {
    case SK_STRING_IN:
        if (s->pos >= s->end) return -1;
        c = (int)STR(s->string)->data[s->pos++];
        break;
    case SK_FD:
        if (!(s->flags & ST_INPUT) || !(s->flags & ST_CHAR)) not_a(L, o, "character input");
        c = fd_read_char(L, o);
        if (c < 0) return -1;
        break;
    case SK_SYNONYM: return stream_read_char(L, synonym_target(L, o));
    case SK_TWO_WAY: return stream_read_char(L, s->a);
    case SK_ECHO:
        c = stream_read_char(L, s->a);
        if (c < 0) return -1;
        stream_write_char(L, s->b, (uint32_t)c);
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
    case SK_GRAY: return gray_read_char(L, GRAY_OF(o), GRAY_READ_CHAR);
    default: not_a(L, o, "character input");
    }
    if (c == '\n') { s->line++; s->prev_col = s->col; s->col = 0; } else s->col++;
    s->last_char = (uint32_t)c;
    return c;
}

void stream_unread_char(Lisp *L, Obj o, uint32_t c) {
    Stream *s = STREAM(o);
    check_open(L, o);
    switch (kind_of(o)) {
    case SK_SYNONYM: stream_unread_char(L, synonym_target(L, o), c); return;
    case SK_TWO_WAY: stream_unread_char(L, s->a, c); return;
    case SK_CONCATENATED: if (is_cons(s->a)) { stream_unread_char(L, CAR(s->a), c); return; } break;
    case SK_GRAY: gray_call1(L, GRAY_UNREAD_CHAR, GRAY_OF(o), make_char(c)); return;
    case SK_STRING_IN:
        if (s->unread < 0 && s->pos > s->start && STR(s->string)->data[s->pos - 1] == c) {
            s->pos--;
            if (c == '\n') { s->line--; s->col = s->prev_col; } else if (s->col) s->col--;
            return;
        }
        break;
    default: break;
    }
    s->unread = (int)c;
    if (c == '\n') { s->line--; s->col = s->prev_col; } else if (s->col) s->col--;
}

int stream_peek_char(Lisp *L, Obj o) {
    if (kind_of(o) == SK_GRAY) return gray_read_char(L, GRAY_OF(o), GRAY_PEEK_CHAR);
    int c = stream_read_char(L, o);
    if (c >= 0) stream_unread_char(L, o, (uint32_t)c);
    return c;
}

bool stream_listen(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    check_open(L, o);
    if (s->unread >= 0) return true;
    switch (kind_of(o)) {
    case SK_STRING_IN: return s->pos < s->end;
    case SK_FD: {
        if (!(s->flags & ST_INPUT)) return false;
        if (s->io_mode == 1 && s->iopos < s->iolen) return true;
        if (!(s->flags & (ST_INTERACTIVE | ST_MAY_BLOCK))) return fd_peekbyte(L, s) >= 0;
        struct pollfd p = {s->fd, POLLIN, 0};
        if (!(poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP)))) return false;
        /* a pipe with input or at its end: reading does not wait, and tells which (end: NIL) */
        return (s->flags & ST_INTERACTIVE) ? (p.revents & POLLIN) != 0 : fd_peekbyte(L, s) >= 0;
    }
    case SK_SYNONYM: return stream_listen(L, synonym_target(L, o));
    case SK_TWO_WAY: case SK_ECHO: return stream_listen(L, s->a);
    case SK_CONCATENATED:
        while (is_cons(s->a)) {
            if (stream_listen(L, CAR(s->a))) return true;
            if (stream_peek_char(L, CAR(s->a)) >= 0) return true;
            s->a = CDR(s->a);
        }
        return false;
    case SK_GRAY: return gray_call0(L, GRAY_LISTEN, GRAY_OF(o)) != NIL;
    default: return false;
    }
}

static void stream_clear_input(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    check_open(L, o);
    switch (kind_of(o)) {
    case SK_FD:
        if ((s->flags & ST_INTERACTIVE) && s->io_mode == 1) { s->iolen = s->iopos = 0; s->unread = -1; }
        break;
    case SK_SYNONYM: stream_clear_input(L, synonym_target(L, o)); break;
    case SK_TWO_WAY: case SK_ECHO: stream_clear_input(L, s->a); break;
    case SK_GRAY: gray_call0(L, GRAY_CLEAR_INPUT, GRAY_OF(o)); break;
    default: break;
    }
}

/* ---- binary input and output ---- */

static Obj fd_of_kind_for_bytes(Lisp *L, Obj o, bool input) {
    for (int depth = 0; depth < 64; depth++) {
        check_open(L, o);
        switch (kind_of(o)) {
        case SK_SYNONYM: o = synonym_target(L, o); continue;
        case SK_TWO_WAY: case SK_ECHO: o = input ? STREAM(o)->a : STREAM(o)->b; continue;
        case SK_FD:
            if (!(STREAM(o)->flags & (input ? ST_INPUT : ST_OUTPUT)) || !(STREAM(o)->flags & ST_BINARY))
                not_a(L, o, input ? "binary input" : "binary output");
            return o;
        default: not_a(L, o, input ? "binary input" : "binary output");
        }
    }
    not_a(L, o, input ? "binary input" : "binary output");
}

Obj stream_read_element(Lisp *L, Obj o) {
    if (kind_of(o) == SK_GRAY) return gray_read_byte(L, GRAY_OF(o));
    if (kind_of(o) == SK_SYNONYM) {
        check_open(L, o);
        return stream_read_element(L, synonym_target(L, o));
    }
    if (kind_of(o) == SK_ECHO) {
        /* an echo stream echoes the bytes it reads too */
        check_open(L, o);
        Obj v = stream_read_element(L, STREAM(o)->a);
        if (v != NO_VALUE) stream_write_element(L, STREAM(o)->b, v);
        return v;
    }
    if (kind_of(o) == SK_CONCATENATED) {
        check_open(L, o);
        Stream *s = STREAM(o);
        while (is_cons(s->a)) {
            Obj v = stream_read_element(L, CAR(s->a));
            if (v != NO_VALUE) return v;
            s->a = CDR(s->a);
        }
        return NO_VALUE;
    }
    Obj f = fd_of_kind_for_bytes(L, o, true);
    Stream *s = STREAM(f);
    int n = s->elt_bytes;
    if (n > 8) {
        /* wider than 64 bits: little-endian, two's complement when signed */
        unsigned char *buf = (unsigned char *)gc_alloc_atomic(L, (size_t)n);
        for (int i = 0; i < n; i++) {
            int b = fd_getbyte(L, s);
            if (b < 0) return NO_VALUE;
            buf[i] = (unsigned char)b;
        }
        mpz_t z;
        mpz_init(z);
        mpz_import(z, (size_t)n, -1, 1, 0, 0, buf);
        if (s->elt_signed && (buf[n - 1] & 0x80)) {
            mpz_t m;
            mpz_init(m);
            mpz_ui_pow_ui(m, 2, (unsigned long)(8 * n));
            mpz_sub(z, z, m);
            mpz_clear(m);
        }
        Obj r = make_bignum_from_mpz(L, z);
        mpz_clear(z);
        return r;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        int b = fd_getbyte(L, s);
        if (b < 0) return NO_VALUE;   /* a partial element at the end is dropped */
        v |= (uint64_t)b << (8 * i);
    }
    if (s->elt_signed) {
        int bits = 8 * n;
        int64_t sv = bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
        return make_int64(L, sv);
    }
    return make_uint64(L, v);
}

int stream_read_byte(Lisp *L, Obj o) {
    Obj v = stream_read_element(L, o);
    return v == NO_VALUE ? -1 : (int)(fixnum_val(v) & 0xFF);
}

static Obj element_type_of(Lisp *L, Stream *s) {
    return list2(L, s->elt_signed ? S(SIGNED_BYTE) : S(UNSIGNED_BYTE), FIX(8 * s->elt_bytes));
}

void stream_write_element(Lisp *L, Obj o, Obj x) {
    if (kind_of(o) == SK_GRAY) { gray_call1(L, GRAY_WRITE_BYTE, GRAY_OF(o), x); return; }
    if (kind_of(o) == SK_BROADCAST) {
        check_open(L, o);
        for (Obj l = STREAM(o)->a; is_cons(l); l = CDR(l)) stream_write_element(L, CAR(l), x);
        return;
    }
    Obj f = fd_of_kind_for_bytes(L, o, false);
    Stream *s = STREAM(f);
    int n = s->elt_bytes, bits = 8 * n;
    if (n > 8) {
        if (!is_integer(x)) err_type(L, x, element_type_of(L, s));
        mpz_t z, m;
        mpz_init(z);
        mpz_init(m);
        integer_to_mpz(x, z);
        /* (integer-length x): the bits of x, or of -x-1 when x is negative */
        if (mpz_sgn(z) < 0) mpz_com(m, z); else mpz_set(m, z);
        size_t len = mpz_sgn(m) == 0 ? 0 : mpz_sizeinbase(m, 2);
        bool fits = s->elt_signed ? len <= (size_t)bits - 1 : mpz_sgn(z) >= 0 && len <= (size_t)bits;
        if (!fits) { mpz_clear(z); mpz_clear(m); err_type(L, x, element_type_of(L, s)); }
        if (mpz_sgn(z) < 0) {
            mpz_ui_pow_ui(m, 2, (unsigned long)bits);
            mpz_add(z, z, m);
        }
        char *buf = (char *)gc_alloc_atomic(L, (size_t)n);
        memset(buf, 0, (size_t)n);
        size_t count = 0;
        mpz_export(buf, &count, -1, 1, 0, 0, z);
        mpz_clear(z);
        mpz_clear(m);
        fd_put_bytes(L, s, buf, (size_t)n);
        return;
    }
    uint64_t v = 0;
    bool ok = false;
    int64_t i;
    if (is_fixnum(x) || (is_bignum(x) && integer_to_int64(x, &i))) {
        i = is_fixnum(x) ? (int64_t)fixnum_val(x) : i;
        if (s->elt_signed) ok = bits >= 64 || (i >= -((int64_t)1 << (bits - 1)) && i < ((int64_t)1 << (bits - 1)));
        else ok = i >= 0 && (bits >= 63 || i < ((int64_t)1 << bits));
        v = (uint64_t)i;
    } else if (is_bignum(x) && !s->elt_signed && bits == 64 && mpz_sgn(BIG(x)) >= 0 && mpz_sizeinbase(BIG(x), 2) <= 64) {
        ok = true;
        mpz_export(&v, NULL, 1, sizeof v, 0, 0, BIG(x));
    }
    if (!ok) err_type(L, x, element_type_of(L, s));
    char b[8];
    for (int i = 0; i < n; i++) b[i] = (char)((v >> (8 * i)) & 0xFF);
    fd_put_bytes(L, s, b, (size_t)n);
}

void stream_write_byte(Lisp *L, Obj o, int byte) { stream_write_element(L, o, FIX(byte)); }

/* ---- closing ---- */

void stream_close(Lisp *L, Obj o, bool abort) {
    Stream *s = STREAM(o);
    if (kind_of(o) == SK_GRAY) {
        Obj a[2] = {S(K_ABORT), boolean(L, abort)};
        gray_call(L, GRAY_CLOSE, GRAY_OF(o), 2, a);
        return;
    }
    if (!(s->flags & ST_OPEN)) return;
    if (kind_of(o) == SK_FD && !(s->flags & ST_OWN_FD)) {
        /* the process's standard streams stay usable: closing them only flushes */
        if ((s->flags & ST_OUTPUT) && s->io_mode == 2 && !abort) fd_flush(L, s);
        return;
    }
    if (kind_of(o) == SK_FD) {
        s->flags &= ~(uint32_t)ST_OPEN;   /* closed even if the final flush fails */
        if ((s->flags & ST_OUTPUT) && s->io_mode == 2 && !abort) {
            s->flags |= ST_OPEN;
            Frame fr;
            LISP_UNWIND_PROTECT_BEGIN(L, &fr) {
                fd_flush(L, s);
            } LISP_UNWIND_PROTECT_EXIT {
                s->flags &= ~(uint32_t)ST_OPEN;
                if (LISP_UNWINDING && (s->flags & ST_OWN_FD)) close(s->fd);
            } LISP_UNWIND_PROTECT_END;
        }
        s->iolen = s->iopos = 0;
        if (s->flags & ST_OWN_FD) close(s->fd);
        if (abort && (s->flags & ST_CREATED) && is_string(s->native))
            unlink(string_to_utf8(L, s->native, NULL));
        return;
    }
    s->flags &= ~(uint32_t)ST_OPEN;
}

bool stream_is_input(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_is_input(L, synonym_target(L, o));
    case SK_GRAY: return gray_call0(L, GRAY_INPUT_P, GRAY_OF(o)) != NIL;
    default: return (STREAM(o)->flags & ST_INPUT) != 0;
    }
}

bool stream_is_output(Lisp *L, Obj o) {
    switch (kind_of(o)) {
    case SK_SYNONYM: return stream_is_output(L, synonym_target(L, o));
    case SK_GRAY: return gray_call0(L, GRAY_OUTPUT_P, GRAY_OF(o)) != NIL;
    default: return (STREAM(o)->flags & ST_OUTPUT) != 0;
    }
}

/* ---- file positions ---- */

static int unread_bytes(Stream *s) {
    if (s->unread < 0) return 0;
    if (s->external_format != EF_UTF8) return 1;
    int c = s->unread;
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* The byte position of an fd stream, or -1 if unknown. */
static long long fd_position(Stream *s) {
    off_t cur = lseek(s->fd, 0, SEEK_CUR);
    if (cur < 0) return s->file_pos;
    long long p = (long long)cur;
    if (s->io_mode == 2) p += (long long)s->iolen;
    else if (s->io_mode == 1) p -= (long long)(s->iolen - s->iopos);
    p -= unread_bytes(s);
    return p;
}

static Obj file_stream_of(Lisp *L, Obj o, bool broadcast_ok) {
    Obj orig = o;
    for (int depth = 0; depth < 64; depth++) {
        if (kind_of(o) == SK_SYNONYM) { o = synonym_target(L, o); continue; }
        if (broadcast_ok && kind_of(o) == SK_BROADCAST) {
            Obj l = STREAM(o)->a;
            if (!is_cons(l)) return NIL;
            while (is_cons(CDR(l))) l = CDR(l);
            o = CAR(l);
            continue;
        }
        break;
    }
    if (kind_of(o) != SK_FD || !(STREAM(o)->flags & ST_FILE)) {
        /* a synonym or broadcast stream that leads to no file stream: the expected type must
         * not contain it, so it is a FILE-STREAM that was expected (SBCL: STREAM-FILE-STREAM) */
        if (orig != o) err_type(L, orig, S(FILE_STREAM));
        err_type(L, o, cons(L, S(OR), list3(L, S(FILE_STREAM), S(SYNONYM_STREAM), S(BROADCAST_STREAM))));
    }
    return o;
}

/* ---- OPEN ---- */

static Obj member_type(Lisp *L, const Obj *keys, int n) {
    Obj m = NIL;
    for (int i = n - 1; i >= 0; i--) m = cons(L, keys[i], m);
    return cons(L, S(MEMBER), m);
}

/* The largest integer element a file stream reads or writes, in bits. */
#define MAX_ELT_BITS 8192

/* Bytes per element: 1, 2, 4 or 8 up to 64 bits, then whole bytes. */
static int elt_bytes_for_bits(intptr_t bits) {
    return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : bits <= 64 ? 8 : (int)((bits + 7) / 8);
}

/* Parse an element type for OPEN: sets *bytes (0 = character), *sign; returns the canonical type. */
static Obj parse_element_type(Lisp *L, Obj et, int *bytes, bool *sign, bool *bivalent) {
    *bytes = 0;
    *sign = false;
    *bivalent = false;
    if (et == S(CHARACTER) || et == S(BASE_CHAR) || et == S(STANDARD_CHAR) || et == S(EXTENDED_CHAR))
        return S(CHARACTER);
    if (et == S(K_DEFAULT)) { *bivalent = true; *bytes = 1; return S(CHARACTER); }
    intptr_t bits = -1;
    if (et == S(UNSIGNED_BYTE) || et == S(BIT)) bits = 8;
    else if (et == S(SIGNED_BYTE)) { bits = 8; *sign = true; }
    else if (et == S(FIXNUM)) { bits = 64; *sign = true; }
    else if (is_cons(et) && (CAR(et) == S(UNSIGNED_BYTE) || CAR(et) == S(SIGNED_BYTE)) &&
             is_cons(CDR(et)) && is_fixnum(CAR(CDR(et))) && CDR(CDR(et)) == NIL) {
        bits = fixnum_val(CAR(CDR(et)));
        *sign = CAR(et) == S(SIGNED_BYTE);
    } else if (is_cons(et) && CAR(et) == S(MOD) && is_cons(CDR(et)) && is_fixnum(CAR(CDR(et))) && fixnum_val(CAR(CDR(et))) > 0) {
        intptr_t m = fixnum_val(CAR(CDR(et))) - 1;
        bits = 1;
        while (m >> bits) bits++;
    }
    int b = 0;
    if (bits >= 1 && bits <= MAX_ELT_BITS) b = elt_bytes_for_bits(bits);
    else if (bits < 0) {
        /* any other subtype of INTEGER, such as (INTEGER 0 1) or (OR (INTEGER 0 1) (INTEGER 100 200)):
         * the smallest element size whose (UNSIGNED-BYTE n) or (SIGNED-BYTE n) contains it */
        bool certain;
        if (type_subtypep(L, et, S(INTEGER), &certain) && certain) {
            for (int nb = 1; nb <= MAX_ELT_BITS / 8 && b == 0; nb = nb < 8 ? nb * 2 : nb + 1) {
                if (type_subtypep(L, et, list2(L, S(UNSIGNED_BYTE), FIX(8 * nb)), &certain)) b = nb;
                else if (type_subtypep(L, et, list2(L, S(SIGNED_BYTE), FIX(8 * nb)), &certain)) { b = nb; *sign = true; }
            }
        }
    }
    if (b == 0) err_simple(L, "Unsupported element type %S for a file stream.", et);
    *bytes = b;
    return list2(L, *sign ? S(SIGNED_BYTE) : S(UNSIGNED_BYTE), FIX(8 * b));
}

static int parse_external_format(Lisp *L, Obj ef, int *replacement) {
    *replacement = -1;
    Obj name = ef;
    if (is_cons(ef)) {
        name = CAR(ef);
        for (Obj l = CDR(ef); is_cons(l) && is_cons(CDR(l)); l = CDR(CDR(l)))
            if (CAR(l) == S(K_REPLACEMENT)) {
                Obj r = CAR(CDR(l));
                if (is_string(r) && STR(r)->len > 0) r = make_char(STR(r)->data[0]);
                if (is_char(r)) *replacement = (int)char_code(r);
            }
    }
    if (name == S(K_DEFAULT) || name == S(K_UTF_8) || name == S(K_UTF8)) return EF_UTF8;
    if (name == S(K_LATIN_1) || name == S(K_LATIN1) || name == S(K_ISO_8859_1)) return EF_LATIN1;
    if (name == S(K_ASCII) || name == S(K_US_ASCII)) return EF_ASCII;
    err_simple(L, "Undefined external-format: %S", ef);
}

/* (open filespec &key direction element-type if-exists if-does-not-exist external-format) */
DEFPRIM(prim_open) {
    Obj keys[5] = {S(K_DIRECTION), S(K_ELEMENT_TYPE), S(K_IF_EXISTS), S(K_IF_DOES_NOT_EXIST), S(K_EXTERNAL_FORMAT)};
    Obj o[5];
    parse_keys(L, nargs, args, 1, 5, keys, o);
    Obj path = pathname_merged(L, args[0]);
    Obj dir = o[0] == NO_VALUE ? S(K_INPUT) : o[0];
    Obj dirs[4] = {S(K_INPUT), S(K_OUTPUT), S(K_IO), S(K_PROBE)};
    if (dir != dirs[0] && dir != dirs[1] && dir != dirs[2] && dir != dirs[3]) err_type(L, dir, member_type(L, dirs, 4));
    int bytes;
    bool sign, bivalent;
    Obj etype = parse_element_type(L, o[1] == NO_VALUE ? S(CHARACTER) : o[1], &bytes, &sign, &bivalent);
    bool output = dir == S(K_OUTPUT) || dir == S(K_IO);
    Obj ifex = o[2] == NO_VALUE ? S(K_ERROR) : o[2];
    Obj exs[8] = {S(K_ERROR), S(K_NEW_VERSION), S(K_RENAME), S(K_RENAME_AND_DELETE), S(K_OVERWRITE), S(K_APPEND), S(K_SUPERSEDE), NIL};
    bool okx = false;
    for (int i = 0; i < 8; i++) okx |= ifex == exs[i];
    if (!okx) err_type(L, ifex, member_type(L, exs, 8));
    Obj ifne = o[3];
    if (ifne == NO_VALUE) {
        if (dir == S(K_PROBE)) ifne = NIL;   /* CLHS OPEN: NIL for :probe */
        else if (!output) ifne = S(K_ERROR);
        else ifne = (ifex == S(K_OVERWRITE) || ifex == S(K_APPEND)) ? S(K_ERROR) : S(K_CREATE);
    }
    Obj nes[3] = {S(K_ERROR), S(K_CREATE), NIL};
    if (ifne != nes[0] && ifne != nes[1] && ifne != nes[2]) err_type(L, ifne, member_type(L, nes, 3));
    int replacement;
    int ef = parse_external_format(L, o[4] == NO_VALUE ? S(K_DEFAULT) : o[4], &replacement);
    if (pathname_is_wild(L, path)) file_error(L, NIL, path, "can't open a wild pathname: %S", path);
    char *native = pathname_native(L, path);
    access_check(L, native, output ? ACCESS_WRITE : ACCESS_READ, "OPEN", path);
    access_check_protected(L, native, -1, path);
    struct stat st;
    bool exists = stat(native, &st) == 0;
    int flags = O_CLOEXEC;
    bool created = false;
    if (!output) {
        flags |= O_RDONLY;
        if (!exists) {
            if (ifne == NIL) return NIL;
            if (ifne == S(K_ERROR))
                file_error(L, S(EXT_FILE_DOES_NOT_EXIST), path, "The file %S does not exist: %s", path, strerror(ENOENT));
            flags |= O_CREAT;
            created = true;
        }
    } else {
        flags |= dir == S(K_IO) ? O_RDWR : O_WRONLY;
        if (exists) {
            if (ifex == NIL) return NIL;
            if (ifex == S(K_ERROR))
                file_error(L, S(EXT_FILE_EXISTS), path, "The file %S already exists: %s", path, strerror(EEXIST));
            if (ifex == S(K_NEW_VERSION))
                file_error(L, NIL, path, "OPEN :IF-EXISTS :NEW-VERSION is not supported when a new version must be created.");
            if (S_ISDIR(st.st_mode)) file_error(L, NIL, path, "error opening %S: %s", path, strerror(EISDIR));
            if (ifex == S(K_RENAME) || ifex == S(K_RENAME_AND_DELETE)) {
                size_t n = strlen(native);
                char *bak = (char *)gc_alloc_atomic(L, n + 5);
                memcpy(bak, native, n);
                memcpy(bak + n, ".bak", 5);
                if (rename(native, bak) != 0) {
                    int e = errno;
                    file_error(L, NIL, path, "Couldn't rename %S to %s: %s", path, bak, strerror(e));
                }
                /* :rename-and-delete: the renamed original goes away (SBCL deletes it at close) */
                if (ifex == S(K_RENAME_AND_DELETE)) unlink(bak);
                flags |= O_CREAT | O_EXCL;
            } else if (ifex == S(K_SUPERSEDE)) {
                flags |= O_TRUNC;
            } else if (ifex == S(K_APPEND)) {
                flags |= O_APPEND;
            }
        } else {
            if (ifne == NIL) return NIL;
            if (ifne == S(K_ERROR))
                file_error(L, S(EXT_FILE_DOES_NOT_EXIST), path, "The file %S does not exist: %s", path, strerror(ENOENT));
            flags |= O_CREAT | O_EXCL;
            created = true;
        }
    }
    int fd = iowait_open(L, native, flags, 0666);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) file_error(L, NIL, path, "The path %S does not exist.", path);
        file_error(L, NIL, path, "error opening %S: %s", path, strerror(e));
    }
    access_check_protected(L, native, fd, path);   /* the name may have changed since the check */
    uint32_t sflags = ST_FILE | ST_OWN_FD | (created && output ? ST_CREATED : 0);
    if (dir == S(K_INPUT) || dir == S(K_IO) || dir == S(K_PROBE)) sflags |= ST_INPUT;
    if (output) sflags |= ST_OUTPUT;
    if (bytes == 0 || bivalent) sflags |= ST_CHAR;
    if (bytes > 0) sflags |= ST_BINARY;
    Obj s = make_fd_stream(L, fd, sflags, path);
    Stream *x = STREAM(s);
    x->element_type = etype;
    x->elt_bytes = bytes > 0 ? bytes : 1;
    x->elt_signed = sign;
    x->external_format = ef;
    x->replacement = replacement;
    x->native = string_from_cstr(L, native);
    if (output && ifex == S(K_APPEND) && exists) lseek(fd, 0, SEEK_END);   /* :if-exists is for output only */
    if (dir == S(K_PROBE)) stream_close(L, s, false);
    else GC_REGISTER_FINALIZER_NO_ORDER(x, fd_stream_finalizer, NULL, NULL, NULL);
    return s;
}

/* ---- primitives ---- */

DEFPRIM(prim_write_char) {
    UNUSED_ARGS;
    Obj c = check_char(L, args[0]);
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    stream_write_char(L, s, char_code(c));
    return args[0];
}

static void write_any_string(Lisp *L, int nargs, Obj *args, bool line) {
    Obj str = args[0];
    if (!is_any_string(str)) err_type(L, str, S(STRING));
    Obj s = stream_out(L, opt_arg(nargs, args, 1, NIL));
    size_t len;
    const uint32_t *data = string_data(L, str, &len);
    Obj keys[2] = {S(K_START), S(K_END)}, out[2];
    parse_keys(L, nargs, args, 2, 2, keys, out);
    size_t end = (out[1] == NO_VALUE || out[1] == NIL) ? len : check_bound(L, out[1], len);
    size_t start = out[0] == NO_VALUE ? 0 : check_bound(L, out[0], end);
    if (kind_of(s) == SK_GRAY) {
        /* the method sees the caller's string and bounds, as the protocol says */
        Obj a[3] = {str, FIX((intptr_t)start), FIX((intptr_t)end)};
        gray_call(L, GRAY_WRITE_STRING, GRAY_OF(s), 3, a);
    } else stream_write_u32(L, s, data + start, end - start);
    if (line) stream_terpri(L, s);
}

DEFPRIM(prim_write_string) { write_any_string(L, nargs, args, false); return args[0]; }
DEFPRIM(prim_write_line) { write_any_string(L, nargs, args, true); return args[0]; }

DEFPRIM(prim_terpri) {
    UNUSED_ARGS;
    stream_terpri(L, stream_out(L, opt_arg(nargs, args, 0, NIL)));
    return NIL;
}

DEFPRIM(prim_fresh_line) {
    UNUSED_ARGS;
    Obj s = stream_out(L, opt_arg(nargs, args, 0, NIL));
    if (kind_of(s) == SK_GRAY) return boolean(L, gray_call0(L, GRAY_FRESH_LINE, GRAY_OF(s)) != NIL);
    check_open(L, s);
    bool need = stream_column(L, s) != 0;
    if (need) stream_terpri(L, s);
    return boolean(L, need);
}

DEFPRIM(prim_finish_output) {
    UNUSED_ARGS;
    stream_finish_output(L, stream_out(L, opt_arg(nargs, args, 0, NIL)));
    return NIL;
}

DEFPRIM(prim_force_output) {
    UNUSED_ARGS;
    Obj s = stream_out(L, opt_arg(nargs, args, 0, NIL));
    if (kind_of(s) == SK_GRAY) gray_call0(L, GRAY_FORCE_OUTPUT, GRAY_OF(s));
    else stream_finish_output(L, s);
    return NIL;
}

DEFPRIM(prim_clear_output) {
    UNUSED_ARGS;
    Obj s = stream_out(L, opt_arg(nargs, args, 0, NIL));
    if (kind_of(s) == SK_GRAY) { gray_call0(L, GRAY_CLEAR_OUTPUT, GRAY_OF(s)); return NIL; }
    check_open(L, s);
    return NIL;
}

static Obj eof_result(Lisp *L, Obj s, int nargs, Obj *args, int at) {
    bool eof_error = nargs <= at || args[at] != NIL;
    if (eof_error) err_eof(L, stream_visible(s));
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
    if (kind_of(s) == SK_GRAY) {
        int c = gray_read_char(L, GRAY_OF(s), GRAY_READ_CHAR_NO_HANG);
        if (c == -2) return NIL;
        if (c < 0) return eof_result(L, s, nargs, args, 1);
        return make_char((uint32_t)c);
    }
    if (!stream_listen(L, s)) {
        /* at end of file READ-CHAR-NO-HANG reports it; otherwise nothing is available yet */
        Obj t = s;
        while (kind_of(t) == SK_SYNONYM) t = synonym_target(L, t);
        if (kind_of(t) == SK_TWO_WAY) t = STREAM(t)->a;
        while (kind_of(t) == SK_SYNONYM) t = synonym_target(L, t);
        if (kind_of(t) == SK_FD && (STREAM(t)->flags & ST_INTERACTIVE)) return NIL;
        if (kind_of(t) == SK_FD && (STREAM(t)->flags & ST_MAY_BLOCK)) {
            /* nothing to read yet: NIL; readable all the same (LISTEN said no input): the end, which
             * READ-CHAR reports without waiting */
            struct pollfd p = {STREAM(t)->fd, POLLIN, 0};
            if (!(poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))) return NIL;
        }
    }
    int c = stream_read_char(L, s);
    if (c < 0) return eof_result(L, s, nargs, args, 1);
    return make_char((uint32_t)c);
}

DEFPRIM(prim_unread_char) {
    Obj c = check_char(L, args[0]);
    Obj s = stream_in(L, opt_arg(nargs, args, 1, NIL));
    stream_unread_char(L, s, char_code(c));
    return NIL;
}

/* The next character of S without consuming it. An echo stream echoes a character when it is
 * read, not when it is peeked at, so peek at its input stream. */
static int peek_without_echo(Lisp *L, Obj s) {
    for (int depth = 0; depth < 64; depth++) {
        check_open(L, s);
        if (kind_of(s) == SK_SYNONYM) { s = synonym_target(L, s); continue; }
        if (kind_of(s) == SK_ECHO && STREAM(s)->unread < 0) { s = STREAM(s)->a; continue; }
        break;
    }
    return stream_peek_char(L, s);
}

DEFPRIM(prim_peek_char) {
    Obj type = opt_arg(nargs, args, 0, NIL);
    Obj s = stream_in(L, opt_arg(nargs, args, 1, NIL));
    if (type != NIL && type != S(T) && !is_char(type))
        err_type(L, type, cons(L, S(OR), list3(L, S(CHARACTER), S(BOOLEAN), NIL)));
    Obj rt = type == S(T) ? readtable_current(L) : NIL;
    for (;;) {
        int c = peek_without_echo(L, s);
        if (c < 0) return eof_result(L, s, nargs, args, 2);
        bool ok;
        if (type == NIL) ok = true;
        else if (type == S(T)) ok = reader_syntax(L, rt, (uint32_t)c) != SYN_WHITESPACE;  /* the current readtable's */
        else ok = char_code(type) == (uint32_t)c;
        if (ok) return make_char((uint32_t)c);
        stream_read_char(L, s);   /* skip it: an echo stream echoes what is skipped */
    }
}

DEFPRIM(prim_read_line) {
    Obj s = stream_in(L, opt_arg(nargs, args, 0, NIL));
    if (kind_of(s) == SK_GRAY) {
        /* STREAM-READ-LINE answers the line and whether end of file ended it; an empty line
         * at end of file is end of file */
        Obj line = gray_call0(L, GRAY_READ_LINE, GRAY_OF(s));
        Obj eof = L->nvals > 1 ? L->values[1] : NIL;
        size_t len = 1;
        if (is_any_string(line)) string_data(L, line, &len);
        if (eof != NIL && len == 0)
            return values2(L, eof_result(L, s, nargs, args, 1), S(T));
        return values2(L, line, eof == NIL ? NIL : S(T));
    }
    StrBuf b;
    sb_init(L, &b, 80);
    int c = stream_read_char(L, s);
    if (c < 0) {
        Obj r = eof_result(L, s, nargs, args, 1);
        return values2(L, r, S(T));
    }
    size_t n = 0;
    while (c >= 0 && c != '\n') {
        sb_putc(L, &b, (uint32_t)c);
        if ((++n & 4095) == 0) safe_point(L);
        c = stream_read_char(L, s);
    }
    return values2(L, sb_to_string(L, &b), boolean(L, c < 0));
}

DEFPRIM(prim_listen) {
    UNUSED_ARGS;
    return boolean(L, stream_listen(L, stream_in(L, opt_arg(nargs, args, 0, NIL))));
}

DEFPRIM(prim_clear_input) {
    UNUSED_ARGS;
    stream_clear_input(L, stream_in(L, opt_arg(nargs, args, 0, NIL)));
    return NIL;
}

DEFPRIM(prim_read_byte) {
    Obj s = check_stream(L, args[0]);
    Obj v = stream_read_element(L, s);
    if (v == NO_VALUE) return eof_result(L, s, nargs, args, 1);
    return v;
}

DEFPRIM(prim_write_byte) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[1]);
    if (!is_integer(args[0])) err_type(L, args[0], S(INTEGER));
    stream_write_element(L, s, args[0]);
    return args[0];
}

DEFPRIM(prim_make_string_input_stream) {
    Obj str = args[0];
    if (!is_any_string(str)) err_type(L, str, S(STRING));
    str = string_designator(L, str);
    size_t len = STR(str)->len;
    size_t end = nargs > 2 && args[2] != NIL ? check_bound(L, args[2], len) : len;
    size_t start = nargs > 1 ? check_bound(L, args[1], end) : 0;
    return make_string_input_stream(L, str, start, end);
}

DEFPRIM(prim_make_string_output_stream) {
    Obj keys[1] = {S(K_ELEMENT_TYPE)}, o[1];
    parse_keys(L, nargs, args, 0, 1, keys, o);
    Obj r = make_string_output_stream(L);
    if (o[0] != NO_VALUE && upgrade_element_type(L, o[0]) == UE_BASE_CHAR) {
        STREAM(r)->flags |= ST_BASE;
        STREAM(r)->element_type = S(BASE_CHAR);
    }
    return r;
}

DEFPRIM(prim_get_output_stream_string) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    if (kind_of(s) != SK_STRING_OUT) err_type(L, s, S(STRING_STREAM));
    return get_output_stream_string(L, s);
}

/* (sys:%make-fill-pointer-output-stream string) */
DEFPRIM(prim_pct_make_fill_pointer_output_stream) { UNUSED_ARGS; return make_fill_pointer_output_stream(L, args[0]); }

/* (sys:%string-input-stream-index stream): the absolute index of the next character */
DEFPRIM(prim_pct_string_input_stream_index) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    if (kind_of(s) != SK_STRING_IN) err_type(L, s, S(STRING_STREAM));
    size_t p = STREAM(s)->pos;
    if (STREAM(s)->unread >= 0 && p > 0) p--;
    return FIX((intptr_t)p);
}

DEFPRIM(prim_make_synonym_stream) { UNUSED_ARGS; return make_synonym_stream(L, check_symbol(L, args[0])); }
DEFPRIM(prim_make_two_way_stream) {
    UNUSED_ARGS;
    Obj in = check_stream(L, args[0]), out = check_stream(L, args[1]);
    if (!stream_is_input(L, in)) err_type(L, args[0], list2(L, S(SATISFIES), intern_cstr(L, L->pkg_cl, "INPUT-STREAM-P")));
    if (!stream_is_output(L, out)) err_type(L, args[1], list2(L, S(SATISFIES), intern_cstr(L, L->pkg_cl, "OUTPUT-STREAM-P")));
    return make_two_way_stream(L, in, out);
}
DEFPRIM(prim_make_broadcast_stream) {
    Obj l = NIL;
    for (int i = nargs - 1; i >= 0; i--) {
        Obj s = check_stream(L, args[i]);
        if (!stream_is_output(L, s)) err_type(L, args[i], list2(L, S(SATISFIES), intern_cstr(L, L->pkg_cl, "OUTPUT-STREAM-P")));
        l = cons(L, s, l);
    }
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
    for (int i = nargs - 1; i >= 0; i--) {
        Obj s = check_stream(L, args[i]);
        if (!stream_is_input(L, s)) err_type(L, args[i], list2(L, S(SATISFIES), intern_cstr(L, L->pkg_cl, "INPUT-STREAM-P")));
        l = cons(L, s, l);
    }
    Stream *s = STREAM(make_broadcast_stream(L, l));
    s->h.aux = SK_CONCATENATED;
    s->flags = ST_INPUT | ST_OPEN | ST_CHAR;
    return (Obj)s;
}

static Obj stream_of_kind(Lisp *L, Obj s, StreamKind k, Obj type) {
    if (!is_stream(s)) err_type(L, s, type);
    check_stream(L, s);
    if (kind_of(s) != k) err_type(L, s, type);
    return s;
}

DEFPRIM(prim_synonym_stream_symbol) { UNUSED_ARGS; return STREAM(stream_of_kind(L, args[0], SK_SYNONYM, S(SYNONYM_STREAM)))->a; }
DEFPRIM(prim_two_way_stream_input_stream) { UNUSED_ARGS; return stream_visible(STREAM(stream_of_kind(L, args[0], SK_TWO_WAY, S(TWO_WAY_STREAM)))->a); }
DEFPRIM(prim_two_way_stream_output_stream) { UNUSED_ARGS; return stream_visible(STREAM(stream_of_kind(L, args[0], SK_TWO_WAY, S(TWO_WAY_STREAM)))->b); }
DEFPRIM(prim_echo_stream_input_stream) { UNUSED_ARGS; return stream_visible(STREAM(stream_of_kind(L, args[0], SK_ECHO, S(ECHO_STREAM)))->a); }
DEFPRIM(prim_echo_stream_output_stream) { UNUSED_ARGS; return stream_visible(STREAM(stream_of_kind(L, args[0], SK_ECHO, S(ECHO_STREAM)))->b); }
/* the component streams as Lisp sees them (a Gray stream as its instance) */
static Obj visible_streams(Lisp *L, Obj list) {
    Obj r = list_copy(L, list);
    for (Obj l = r; is_cons(l); l = CDR(l)) CAR(l) = stream_visible(CAR(l));
    return r;
}
DEFPRIM(prim_broadcast_stream_streams) { UNUSED_ARGS; return visible_streams(L, STREAM(stream_of_kind(L, args[0], SK_BROADCAST, S(BROADCAST_STREAM)))->a); }
DEFPRIM(prim_concatenated_stream_streams) { UNUSED_ARGS; return visible_streams(L, STREAM(stream_of_kind(L, args[0], SK_CONCATENATED, S(CONCATENATED_STREAM)))->a); }

DEFPRIM(prim_streamp) { UNUSED_ARGS; return boolean(L, is_stream(args[0]) || gray_instance_p(L, args[0])); }
DEFPRIM(prim_input_stream_p) { UNUSED_ARGS; return boolean(L, stream_is_input(L, check_stream(L, args[0]))); }
DEFPRIM(prim_output_stream_p) { UNUSED_ARGS; return boolean(L, stream_is_output(L, check_stream(L, args[0]))); }
DEFPRIM(prim_open_stream_p) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    if (kind_of(s) == SK_GRAY) return boolean(L, gray_call0(L, GRAY_OPEN_P, GRAY_OF(s)) != NIL);
    return boolean(L, (STREAM(s)->flags & ST_OPEN) != 0);
}

static bool interactive_p(Lisp *L, Obj s) {
    for (int depth = 0; depth < 64; depth++) {
        switch (kind_of(s)) {
        case SK_SYNONYM: s = synonym_target(L, s); continue;
        case SK_TWO_WAY: case SK_ECHO: s = STREAM(s)->a; continue;
        case SK_GRAY: return gray_call0(L, GRAY_INTERACTIVE_P, GRAY_OF(s)) != NIL;
        default: return (STREAM(s)->flags & ST_INTERACTIVE) != 0;
        }
    }
    return false;
}
DEFPRIM(prim_interactive_stream_p) { UNUSED_ARGS; return boolean(L, interactive_p(L, check_stream(L, args[0]))); }

DEFPRIM(prim_stream_element_type) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    for (int depth = 0; depth < 64 && kind_of(s) == SK_SYNONYM; depth++) s = synonym_target(L, s);
    if (kind_of(s) == SK_GRAY) return gray_call0(L, GRAY_ELEMENT_TYPE, GRAY_OF(s));
    return STREAM(s)->element_type;
}

DEFPRIM(prim_stream_external_format) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    while (kind_of(s) == SK_SYNONYM) s = synonym_target(L, s);
    if (kind_of(s) == SK_BROADCAST) {
        /* CLHS 21.2 BROADCAST-STREAM: the last component answers; with none, :DEFAULT */
        Obj last = NIL;
        for (Obj l = STREAM(s)->a; is_cons(l); l = CDR(l)) last = CAR(l);
        if (last == NIL) return S(K_DEFAULT);
        Obj sub[1] = {last};
        return prim_stream_external_format(L, 1, sub);
    }
    if (kind_of(s) != SK_FD) return kind_of(s) == SK_GRAY ? S(K_DEFAULT) : NIL;
    Stream *x = STREAM(s);
    if (!(x->flags & ST_CHAR)) return S(K_LATIN_1);
    Obj ef = ef_keyword(L, x->external_format);
    if (x->replacement >= 0) return list3(L, ef, S(K_REPLACEMENT), make_char((uint32_t)x->replacement));
    return ef;
}

DEFPRIM(prim_close) {
    Obj s = check_stream(L, args[0]);
    Obj keys[1] = {S(K_ABORT)}, out[1];
    parse_keys(L, nargs, args, 1, 1, keys, out);
    stream_close(L, s, out[0] != NO_VALUE && out[0] != NIL);
    return S(T);
}

DEFPRIM(prim_file_length) {
    UNUSED_ARGS;
    Obj s = file_stream_of(L, check_stream(L, args[0]), true);
    if (s == NIL) return FIX(0);
    Stream *x = STREAM(s);
    check_open(L, s);
    if (x->io_mode == 2) fd_flush(L, x);
    struct stat st;
    if (fstat(x->fd, &st) != 0 || !S_ISREG(st.st_mode)) return NIL;
    return FIX((intptr_t)st.st_size / (x->flags & ST_CHAR ? 1 : x->elt_bytes));
}

/* (file-position stream &optional position) */
DEFPRIM(prim_file_position) {
    Obj s = check_stream(L, args[0]);
    while (kind_of(s) == SK_SYNONYM) s = synonym_target(L, s);
    Stream *x = STREAM(s);
    Obj pos = opt_arg(nargs, args, 1, NO_VALUE);
    if (pos != NO_VALUE && pos != S(K_START) && pos != S(K_END) && !(is_integer(pos) && !(is_fixnum(pos) && fixnum_val(pos) < 0)) )
        err_type(L, pos, cons(L, S(OR), list2(L, S(UNSIGNED_BYTE), cons(L, S(MEMBER), list2(L, S(K_START), S(K_END))))));
    if (kind_of(s) == SK_GRAY) return gray_call1(L, GRAY_FILE_POSITION, GRAY_OF(s), pos == NO_VALUE ? NIL : pos);
    if (kind_of(s) == SK_BROADCAST) {
        /* CLHS 21.2 BROADCAST-STREAM: the last component answers; with none, the position is 0 */
        Obj last = NIL;
        for (Obj l = x->a; is_cons(l); l = CDR(l)) last = CAR(l);
        if (last == NIL) return pos == NO_VALUE ? FIX(0) : NIL;
        Obj sub[2] = {last, pos};
        return prim_file_position(L, pos == NO_VALUE ? 1 : 2, sub);
    }
    switch (kind_of(s)) {
    case SK_STRING_IN:
        check_open(L, s);
        if (pos == NO_VALUE) return FIX((intptr_t)(x->pos - x->start - (x->unread >= 0 && x->pos > x->start ? 1 : 0)));
        /* SBCL returns the new absolute index when the position is set */
        x->unread = -1;
        if (pos == S(K_START)) x->pos = x->start;
        else if (pos == S(K_END)) x->pos = x->end;
        else if (!is_fixnum(pos) || (size_t)fixnum_val(pos) > x->end - x->start) return NIL;
        else x->pos = x->start + (size_t)fixnum_val(pos);
        return FIX((intptr_t)x->pos);
    case SK_STRING_OUT:
        check_open(L, s);
        if (pos == NO_VALUE) return FIX((intptr_t)x->buf.len);
        return NIL;
    case SK_STRING_FILL:
        check_open(L, s);
        if (pos == NO_VALUE) return FIX((intptr_t)STR(x->string)->len);
        return NIL;
    case SK_FD: {
        check_open(L, s);
        int eb = (x->flags & ST_CHAR) ? 1 : x->elt_bytes;
        if (pos == NO_VALUE) {
            long long p = fd_position(x);
            return p < 0 ? NIL : FIX((intptr_t)(p / eb));
        }
        if (x->io_mode == 2) fd_flush(L, x);
        x->iolen = x->iopos = 0;
        x->io_mode = 0;
        x->unread = -1;
        off_t r;
        if (pos == S(K_START)) r = lseek(x->fd, 0, SEEK_SET);
        else if (pos == S(K_END)) r = lseek(x->fd, 0, SEEK_END);
        else if (!is_fixnum(pos)) return NIL;
        else r = lseek(x->fd, (off_t)fixnum_val(pos) * eb, SEEK_SET);
        if (r < 0) return NIL;
        x->file_pos = (long long)r;
        return S(T);
    }
    default:
        return NIL;
    }
}

DEFPRIM(prim_file_string_length) {
    UNUSED_ARGS;
    Obj s = file_stream_of(L, check_stream(L, args[0]), true);
    if (s == NIL) return FIX(1);
    Stream *x = STREAM(s);
    Obj o = args[1];
    size_t n = 0;
    char b[4];
    if (is_char(o)) return FIX(x->external_format == EF_UTF8 ? utf8_encode(char_code(o), b) : 1);
    if (!is_any_string(o)) err_type(L, o, cons(L, S(OR), list2(L, S(STRING), S(CHARACTER))));
    size_t len;
    const uint32_t *data = string_data(L, o, &len);
    for (size_t i = 0; i < len; i++)
        n += x->external_format == EF_UTF8 ? (size_t)utf8_encode(data[i], b) : 1;
    return FIX((intptr_t)n);
}

/* ---- READ-SEQUENCE and WRITE-SEQUENCE ---- */

static size_t seq_length(Lisp *L, Obj seq) {
    if (is_list(seq)) return list_length_proper(L, seq);
    if (is_vector(seq)) return vector_length(seq);
    err_type(L, seq, S(SEQUENCE));
}

static void seq_bounds(Lisp *L, Obj seq, int nargs, Obj *args, size_t *start, size_t *end) {
    Obj keys[2] = {S(K_START), S(K_END)}, o[2];
    parse_keys(L, nargs, args, 2, 2, keys, o);
    size_t len = seq_length(L, seq);
    *end = (o[1] == NO_VALUE || o[1] == NIL) ? len : check_bound(L, o[1], len);
    *start = o[0] == NO_VALUE ? 0 : check_bound(L, o[0], *end);
}

/* What the stream underlying S reads or writes: 1 characters only, 2 bytes only, 3 both. */
static int stream_capability(Lisp *L, Obj s, bool input) {
    for (int depth = 0; depth < 64; depth++) {
        switch (kind_of(s)) {
        case SK_SYNONYM: s = synonym_target(L, s); continue;
        case SK_TWO_WAY: case SK_ECHO: s = input ? STREAM(s)->a : STREAM(s)->b; continue;
        case SK_BROADCAST: case SK_CONCATENATED:
            if (!is_cons(STREAM(s)->a)) return 1;
            s = CAR(STREAM(s)->a);
            continue;
        case SK_FD: {
            uint32_t f = STREAM(s)->flags;
            return ((f & ST_CHAR) ? 1 : 0) | ((f & ST_BINARY) ? 2 : 0);
        }
        default: return 1;
        }
    }
    return 1;
}

DEFPRIM(prim_read_sequence) {
    Obj seq = args[0];
    Obj s = check_stream(L, args[1]);
    size_t start, end;
    seq_bounds(L, seq, nargs, args, &start, &end);
    if (kind_of(s) == SK_GRAY) {
        Obj a[3] = {seq, FIX((intptr_t)start), FIX((intptr_t)end)};
        return gray_call(L, GRAY_READ_SEQUENCE, GRAY_OF(s), 3, a);
    }
    int cap = stream_capability(L, s, true);
    /* a bivalent stream reads characters into strings and bytes into other sequences */
    bool chars = cap == 1 || (cap == 3 && is_any_string(seq));
    Obj l = seq;
    if (is_list(seq)) for (size_t i = 0; i < start; i++) l = CDR(l);
    size_t i = start;
    for (; i < end; i++) {
        if ((i & 4095) == 4095) safe_point(L);
        Obj v;
        if (chars) {
            int c = stream_read_char(L, s);
            if (c < 0) break;
            v = make_char((uint32_t)c);
        } else {
            v = stream_read_element(L, s);
            if (v == NO_VALUE) break;
        }
        if (is_list(seq)) { CAR(l) = v; l = CDR(l); }
        else if (is_any_string(seq)) {
            if (!is_char(v)) err_type(L, v, S(CHARACTER));
            string_set_any(L, seq, i, char_code(v));
        } else array_rm_set(L, seq, i, v);
    }
    return FIX((intptr_t)i);
}

DEFPRIM(prim_write_sequence) {
    Obj seq = args[0];
    Obj s = check_stream(L, args[1]);
    size_t start, end;
    seq_bounds(L, seq, nargs, args, &start, &end);
    if (kind_of(s) == SK_GRAY) {
        Obj a[3] = {seq, FIX((intptr_t)start), FIX((intptr_t)end)};
        gray_call(L, GRAY_WRITE_SEQUENCE, GRAY_OF(s), 3, a);
        return seq;
    }
    int cap = stream_capability(L, s, false);
    if (cap != 2 && is_any_string(seq)) {
        size_t len;
        const uint32_t *data = string_data(L, seq, &len);
        stream_write_u32(L, s, data + start, end - start);
        return seq;
    }
    Obj l = seq;
    if (is_list(seq)) for (size_t i = 0; i < start; i++) l = CDR(l);
    for (size_t i = start; i < end; i++) {
        if ((i & 4095) == 4095) safe_point(L);
        Obj v;
        if (is_list(seq)) { v = CAR(l); l = CDR(l); }
        else v = array_rm_ref(L, seq, i);
        bool as_char = cap == 1 || (cap == 3 && is_char(v));
        if (as_char) stream_write_char(L, s, char_code(check_char(L, v)));
        else {
            if (!is_integer(v)) err_type(L, v, S(INTEGER));
            stream_write_element(L, s, v);
        }
    }
    return seq;
}

/* ---- misc ---- */

DEFPRIM(prim_pct_stream_line) {
    UNUSED_ARGS;
    return FIX((intptr_t)STREAM(check_stream(L, args[0]))->line);
}

/* (sys:%output-truncated-p stream): whether a capped string output stream dropped characters */
DEFPRIM(prim_pct_output_truncated_p) {
    UNUSED_ARGS;
    return boolean(L, STREAM(check_stream(L, args[0]))->truncated);
}

/* (sys:%stream-type-p stream type): whether STREAM is of the standard stream class TYPE
 * (FILE-STREAM, STRING-STREAM, SYNONYM-STREAM, ...), for TYPEP. */
DEFPRIM(prim_pct_stream_type_p) {
    UNUSED_ARGS;
    if (!is_stream(args[0])) return NIL;
    Obj t = args[1];
    StreamKind k = kind_of(args[0]);
    if (t == S(STREAM)) return S(T);
    if (t == S(FILE_STREAM)) return boolean(L, k == SK_FD);
    if (t == S(STRING_STREAM)) return boolean(L, k == SK_STRING_IN || k == SK_STRING_OUT || k == SK_STRING_FILL);
    if (t == S(SYNONYM_STREAM)) return boolean(L, k == SK_SYNONYM);
    if (t == S(TWO_WAY_STREAM)) return boolean(L, k == SK_TWO_WAY);
    if (t == S(ECHO_STREAM)) return boolean(L, k == SK_ECHO);
    if (t == S(BROADCAST_STREAM)) return boolean(L, k == SK_BROADCAST);
    if (t == S(CONCATENATED_STREAM)) return boolean(L, k == SK_CONCATENATED);
    return NIL;
}

/* (sys:%stream-truename stream): the truename of a file stream's file, or NIL */
DEFPRIM(prim_pct_stream_native_name) {
    UNUSED_ARGS;
    Obj s = check_stream(L, args[0]);
    return kind_of(s) == SK_FD ? STREAM(s)->native : NIL;
}

/* (sys:%query-answer-p line word): LINE, trimmed of spaces, equals WORD ignoring ASCII case */
DEFPRIM(prim_pct_query_answer_p) {
    UNUSED_ARGS;
    Obj line = check_string(L, args[0]), word = check_string(L, args[1]);
    size_t a = 0, b = STR(line)->len;
    while (a < b && STR(line)->data[a] == ' ') a++;
    while (b > a && STR(line)->data[b - 1] == ' ') b--;
    if (b - a != STR(word)->len) return NIL;
    for (size_t i = 0; i < b - a; i++) {
        uint32_t x = STR(line)->data[a + i], y = STR(word)->data[i];
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return NIL;
    }
    return S(T);
}

const PrimDef stream_prims[] = {
    {"WRITE-CHAR", PK_CL, prim_write_char, 1, 2, 0, "(character &optional stream)", "Write CHARACTER to STREAM."},
    {"WRITE-STRING", PK_CL, prim_write_string, 1, REST, 0, "(string &optional stream &key start end)", "Write STRING to STREAM."},
    {"WRITE-LINE", PK_CL, prim_write_line, 1, REST, 0, "(string &optional stream &key start end)", "Write STRING and a newline."},
    {"TERPRI", PK_CL, prim_terpri, 0, 1, 0, "(&optional stream)", "Output a newline."},
    {"FRESH-LINE", PK_CL, prim_fresh_line, 0, 1, 0, "(&optional stream)", "Output a newline unless at the start of a line."},
    {"FINISH-OUTPUT", PK_CL, prim_finish_output, 0, 1, 0, "(&optional stream)", "Sends any output buffered for STREAM to its destination and waits until it is done; returns NIL."},
    {"FORCE-OUTPUT", PK_CL, prim_force_output, 0, 1, 0, "(&optional stream)", "Starts sending any output buffered for STREAM to its destination without waiting; returns NIL."},
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
    {"%MAKE-FILL-POINTER-OUTPUT-STREAM", PK_SYS, prim_pct_make_fill_pointer_output_stream, 1, 1, 0, "(string)", NULL},
    {"%STRING-INPUT-STREAM-INDEX", PK_SYS, prim_pct_string_input_stream_index, 1, 1, 0, "(stream)", NULL},
    {"MAKE-SYNONYM-STREAM", PK_CL, prim_make_synonym_stream, 1, 1, 0, "(symbol)", "A stream forwarding to the value of SYMBOL."},
    {"MAKE-TWO-WAY-STREAM", PK_CL, prim_make_two_way_stream, 2, 2, 0, "(input output)", "A bidirectional stream."},
    {"MAKE-BROADCAST-STREAM", PK_CL, prim_make_broadcast_stream, 0, REST, 0, "(&rest streams)", "Output to every stream."},
    {"MAKE-ECHO-STREAM", PK_CL, prim_make_echo_stream, 2, 2, 0, "(input output)", "Input echoed to output."},
    {"MAKE-CONCATENATED-STREAM", PK_CL, prim_make_concatenated_stream, 0, REST, 0, "(&rest streams)", "Input from each stream in turn."},
    {"SYNONYM-STREAM-SYMBOL", PK_CL, prim_synonym_stream_symbol, 1, 1, 0, "(stream)", "The symbol whose dynamic value the synonym STREAM forwards to."},
    {"TWO-WAY-STREAM-INPUT-STREAM", PK_CL, prim_two_way_stream_input_stream, 1, 1, 0, "(stream)", "The stream that the two-way STREAM reads from."},
    {"TWO-WAY-STREAM-OUTPUT-STREAM", PK_CL, prim_two_way_stream_output_stream, 1, 1, 0, "(stream)", "The stream that the two-way STREAM writes to."},
    {"ECHO-STREAM-INPUT-STREAM", PK_CL, prim_echo_stream_input_stream, 1, 1, 0, "(stream)", "The stream that the echo STREAM reads from."},
    {"ECHO-STREAM-OUTPUT-STREAM", PK_CL, prim_echo_stream_output_stream, 1, 1, 0, "(stream)", "The stream that the echo STREAM copies its input to."},
    {"BROADCAST-STREAM-STREAMS", PK_CL, prim_broadcast_stream_streams, 1, 1, 0, "(stream)", "The list of output streams that the broadcast STREAM writes to."},
    {"CONCATENATED-STREAM-STREAMS", PK_CL, prim_concatenated_stream_streams, 1, 1, 0, "(stream)", "The list of input streams that the concatenated STREAM still has to read from."},
    {"STREAMP", PK_CL, prim_streamp, 1, 1, 0, "(object)", "True when OBJECT is a stream."},
    {"INPUT-STREAM-P", PK_CL, prim_input_stream_p, 1, 1, 0, "(stream)", "True when STREAM can be read from."},
    {"OUTPUT-STREAM-P", PK_CL, prim_output_stream_p, 1, 1, 0, "(stream)", "True when STREAM can be written to."},
    {"OPEN-STREAM-P", PK_CL, prim_open_stream_p, 1, 1, 0, "(stream)", "True when STREAM has not been closed."},
    {"INTERACTIVE-STREAM-P", PK_CL, prim_interactive_stream_p, 1, 1, 0, "(stream)", "True when STREAM is interactive, such as a terminal."},
    {"STREAM-ELEMENT-TYPE", PK_CL, prim_stream_element_type, 1, 1, 0, "(stream)", "The type of element STREAM reads or writes, such as CHARACTER or (UNSIGNED-BYTE 8)."},
    {"STREAM-EXTERNAL-FORMAT", PK_CL, prim_stream_external_format, 1, 1, 0, "(stream)", "The external format (the character encoding) of STREAM; :UTF-8 for file streams in tinycl."},
    {"CLOSE", PK_CL, prim_close, 1, REST, 0, "(stream &key abort)", "Closes STREAM so that it can no longer be used; with ABORT true, an output file being written is discarded. Returns T."},
    {"OPEN", PK_CL, prim_open, 1, REST, 0, "(filespec &key direction element-type if-exists if-does-not-exist external-format)", "Opens the file FILESPEC and returns a stream to it: DIRECTION is :INPUT (default), :OUTPUT, :IO or :PROBE; IF-EXISTS and IF-DOES-NOT-EXIST say what to do when the file is there or missing."},
    {"FILE-LENGTH", PK_CL, prim_file_length, 1, 1, 0, "(stream)", "The length of the file behind STREAM, in units of its element type, or NIL when it cannot be found."},
    {"FILE-POSITION", PK_CL, prim_file_position, 1, 2, 0, "(stream &optional position)", "Without POSITION, the current position in STREAM or NIL; with POSITION (an index, :START or :END), moves there and returns true on success."},
    {"FILE-STRING-LENGTH", PK_CL, prim_file_string_length, 2, 2, 0, "(stream object)", "How many units of STREAM's file writing OBJECT (a character or string) would take, or NIL when unknown."},
    {"READ-SEQUENCE", PK_CL, prim_read_sequence, 2, REST, 0, "(sequence stream &key start end)", "Reads elements from STREAM into SEQUENCE from START to END; returns the index after the last element stored, which is less than END at end of file."},
    {"WRITE-SEQUENCE", PK_CL, prim_write_sequence, 2, REST, 0, "(sequence stream &key start end)", "Writes the elements of SEQUENCE from START to END to STREAM and returns SEQUENCE."},
    {"%STREAM-LINE", PK_SYS, prim_pct_stream_line, 1, 1, 0, "(stream)", "Current input line number."},
    {"%OUTPUT-TRUNCATED-P", PK_SYS, prim_pct_output_truncated_p, 1, 1, 0, "(stream)", NULL},
    {"%STREAM-TYPE-P", PK_SYS, prim_pct_stream_type_p, 2, 2, 0, "(stream type)", NULL},
    {"%STREAM-NATIVE-NAME", PK_SYS, prim_pct_stream_native_name, 1, 1, 0, "(stream)", NULL},
    {"%QUERY-ANSWER-P", PK_SYS, prim_pct_query_answer_p, 2, 2, 0, "(line word)", NULL},
    {0},
};

/* documentation of the standard stream variables stream_init defines (docs.h) */
const DocRow stream_variable_docs[] = {
    {"*TERMINAL-IO*", "The two-way stream connected to the user's terminal (or to the session's input and output)."},
    {"*STANDARD-INPUT*", "The default stream for input functions such as READ and READ-LINE."},
    {"*STANDARD-OUTPUT*", "The default stream for output functions such as PRINT, FORMAT T and WRITE-STRING."},
    {"*ERROR-OUTPUT*", "The stream for warnings and error messages."},
    {"*TRACE-OUTPUT*", "The stream TRACE and TIME write to."},
    {"*DEBUG-IO*", "The bidirectional stream the debugger talks to the user on."},
    {"*QUERY-IO*", "The bidirectional stream used to ask the user questions, as Y-OR-N-P does."},
    {0},
};

void stream_init(Lisp *L) {
    prims_register(L, stream_prims);
    stream_standard_init(L);
}

/* The standard streams on descriptors 0, 1 and 2 (made again when a boot image is loaded: whether
 * they are terminals belongs to the process). */
void stream_standard_init(Lisp *L) {
    Obj in = make_fd_stream(L, 0, ST_INPUT | ST_CHAR | ST_BINARY | (isatty(0) ? ST_INTERACTIVE : 0), NIL);
    Obj out = make_fd_stream(L, 1, ST_OUTPUT | ST_CHAR | ST_BINARY | (isatty(1) ? ST_INTERACTIVE : 0), NIL);
    Obj err = make_fd_stream(L, 2, ST_OUTPUT | ST_CHAR | ST_BINARY | ST_INTERACTIVE, NIL);
    Obj term = make_two_way_stream(L, in, out);
    SYM(S(TERMINAL_IO))->value = term;
    SYM(S(STANDARD_INPUT))->value = make_synonym_stream(L, S(TERMINAL_IO));
    SYM(S(STANDARD_OUTPUT))->value = out;
    SYM(S(ERROR_OUTPUT))->value = err;
    SYM(S(TRACE_OUTPUT))->value = make_synonym_stream(L, S(TERMINAL_IO)); /* as SBCL: trace output shares the terminal */
    SYM(S(DEBUG_IO))->value = make_synonym_stream(L, S(TERMINAL_IO));
    SYM(S(QUERY_IO))->value = make_synonym_stream(L, S(TERMINAL_IO));
    Obj vars[] = {S(TERMINAL_IO), S(STANDARD_INPUT), S(STANDARD_OUTPUT), S(ERROR_OUTPUT),
                  S(TRACE_OUTPUT), S(DEBUG_IO), S(QUERY_IO)};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) SYM(vars[i])->h.flags |= SYM_SPECIAL;
}
