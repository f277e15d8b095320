/* lstring.c: C-level string helpers (construction, UTF-8 conversion, hashing, buffers). */
#include "lstring.h"
#include "error.h"
#include "prim.h"
#include "array.h"
#include <stdlib.h>

Obj string_new(Lisp *L, size_t len) {
    gc_check_request(L, len * 4);
    String *s = (String *)heap_alloc(L, T_STRING, sizeof(String));
    s->data = (uint32_t *)gc_alloc_atomic(L, len * 4);
    memset(s->data, 0, len * 4);
    s->len = s->cap = len;
    return (Obj)s;
}

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int need;
    uint32_t v, min;
    /* C0 and C1 can only start overlong forms; F5..FF would pass U+10FFFF */
    if (c >= 0xC2 && c <= 0xDF) { need = 1; v = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { need = 2; v = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 3; v = c & 0x07; min = 0x10000; }
    else { *cp = 0xFFFD; return 1; }
    if ((size_t)need >= n) { *cp = 0xFFFD; return 1; }
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        v = (v << 6) | (s[i] & 0x3F);
    }
    /* overlong forms (C0 AF for "/"), UTF-16 surrogates and code points past U+10FFFF are not UTF-8 */
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) { *cp = 0xFFFD; return 1; }
    *cp = v;
    return need + 1;
}

int utf8_encode(uint32_t c, char *b) {
    if (c < 0x80) { b[0] = (char)c; return 1; }
    if (c < 0x800) { b[0] = (char)(0xC0 | (c >> 6)); b[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        b[0] = (char)(0xE0 | (c >> 12)); b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        b[2] = (char)(0x80 | (c & 0x3F)); return 3;
    }
    b[0] = (char)(0xF0 | (c >> 18)); b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((c >> 6) & 0x3F)); b[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

Obj string_from_utf8(Lisp *L, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t count = 0;
    for (size_t i = 0; i < n; count++) {
        if (u[i] < 0x80) { i++; continue; }   /* ASCII: most text, decoded inline */
        uint32_t cp;
        i += (size_t)utf8_decode(u + i, n - i, &cp);
    }
    Obj str = string_new(L, count);
    uint32_t *d = STR(str)->data;
    for (size_t i = 0, j = 0; i < n; j++) {
        if (u[i] < 0x80) { d[j] = u[i++]; continue; }
        i += (size_t)utf8_decode(u + i, n - i, &d[j]);
    }
    return str;
}

/* Generalized UTF-8 ("WTF-8"), as the session API gives results: a lone surrogate's three-byte
 * form (ED A0..BF xx) reads back as that character; everything else as strict UTF-8. */
static int wtf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    if (n >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && (s[2] & 0xC0) == 0x80) {
        *cp = 0xD000u | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
        return 3;
    }
    return utf8_decode(s, n, cp);
}

Obj string_from_wtf8(Lisp *L, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t count = 0;
    uint32_t cp;
    for (size_t i = 0; i < n; count++) i += (size_t)wtf8_decode(u + i, n - i, &cp);
    Obj str = string_new(L, count);
    uint32_t *d = STR(str)->data;
    for (size_t i = 0, j = 0; i < n; j++) i += (size_t)wtf8_decode(u + i, n - i, &d[j]);
    return str;
}

Obj string_from_cstr(Lisp *L, const char *s) { return string_from_utf8(L, s, strlen(s)); }

Obj string_from_u32(Lisp *L, const uint32_t *s, size_t n) {
    Obj str = string_new(L, n);
    if (n) memcpy(STR(str)->data, s, n * 4);
    return str;
}

static size_t utf8_size(const uint32_t *d, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = d[i];
        n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    return n;
}

static void utf8_fill(const uint32_t *d, size_t len, char *out) {
    char *p = out;
    for (size_t i = 0; i < len; i++) p += utf8_encode(d[i], p);
    *p = 0;
}

char *string_to_utf8(Lisp *L, Obj str, size_t *len_out) {
    size_t len;
    const uint32_t *d = string_data(L, str, &len);
    size_t n = utf8_size(d, len);
    char *out = (char *)gc_alloc_atomic(L, n + 1);
    utf8_fill(d, len, out);
    if (len_out) *len_out = n;
    return out;
}

char *string_to_utf8_malloc(Obj str, size_t *len_out) {
    size_t len;
    const uint32_t *d = string_storage(str, &len);
    if (!d) return NULL;
    size_t n = utf8_size(d, len);
    char *out = (char *)malloc(n + 1);
    if (!out) return NULL;
    utf8_fill(d, len, out);
    if (len_out) *len_out = n;
    return out;
}

bool string_equal_cstr(Obj str, const char *a) {
    String *s = STR(str);
    size_t n = strlen(a);
    if (s->len != n) return false;
    for (size_t i = 0; i < n; i++)
        if (s->data[i] != (unsigned char)a[i]) return false;
    return true;
}

bool string_eq(Obj a, Obj b) {
    String *x = STR(a), *y = STR(b);
    return x->len == y->len && (x->len == 0 || memcmp(x->data, y->data, x->len * 4) == 0);
}

uint64_t string_hash_u32(const uint32_t *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

_Noreturn void err_string_designator(Lisp *L, Obj o) {
    err_type(L, o, cons(L, S(OR), cons(L, S(STRING), cons(L, S(SYMBOL), cons(L, S(CHARACTER), NIL)))));
}

Obj string_designator(Lisp *L, Obj o) {
    if (is_string(o)) return o;
    if (o == NIL) return L->nil_sym.name;
    if (is_type(o, T_SYMBOL)) return SYM(o)->name;
    if (is_char(o)) {
        uint32_t c = char_code(o);
        return string_from_u32(L, &c, 1);
    }
    if (is_any_string(o)) {
        size_t n;
        const uint32_t *d = string_data(L, o, &n);
        return string_from_u32(L, d, n);
    }
    err_string_designator(L, o);
}

Obj string_arg(Lisp *L, Obj o) {
    if (is_string(o)) return o;
    if (!is_any_string(o)) err_type(L, o, S(STRING));
    size_t n;
    const uint32_t *d = string_data(L, o, &n);
    return string_from_u32(L, d, n);
}

bool is_any_string(Obj o) {
    if (!is_heap(o)) return false;
    if (heap_type(o) == T_STRING) return true;
    return heap_type(o) == T_ARRAY && ARR(o)->h.aux == 1 && ARR(o)->h.aux32 == ELT_CHARACTER;
}

/* The object holding the elements of character vector S, following displacements, and the
 * index in it of S's element 0; NULL when the chain is absurdly deep. */
static Obj element_holder(Obj s, size_t *off) {
    size_t o = 0;
    for (int depth = 0; is_type(s, T_ARRAY); depth++) {
        if (depth > 64) return NULL;
        o += ARR(s)->offset;
        s = ARR(s)->storage;
    }
    *off = o;
    return s;
}

/* Can the holder H supply N elements from OFF (a displaced-to array may have shrunk)? */
static bool holder_covers(Obj h, size_t off, size_t n) {
    if (!h || !is_array(h)) return false;
    size_t total = array_total(h);
    return off <= total && n <= total - off;
}

static _Noreturn void err_holder(Lisp *L, Obj s) {
    err_simple(L, "The array %S is displaced to an array too small for it.", s);
}

uint32_t *string_storage(Obj s, size_t *len) {
    if (is_string(s)) {
        *len = STR(s)->len;
        return STR(s)->data;
    }
    size_t n = vector_length(s), off;
    Obj h = element_holder(s, &off);
    if (!h || !is_string(h) || !holder_covers(h, off, n)) return NULL;
    *len = n;
    return STR(h)->data + off;
}

const uint32_t *string_data(Lisp *L, Obj s, size_t *len) {
    uint32_t *d = string_storage(s, len);
    if (d) return d;
    size_t n = vector_length(s), off;
    Obj h = element_holder(s, &off);
    if (!holder_covers(h, off, n) || !is_vector(h)) err_holder(L, s);
    gc_check_request(L, n * 4);
    uint32_t *copy = (uint32_t *)gc_alloc_atomic(L, n ? n * 4 : 4);
    for (size_t i = 0; i < n; i++) {
        Obj c = array_rm_ref(L, h, off + i);
        if (!is_char(c)) err_type(L, c, S(CHARACTER));
        copy[i] = char_code(c);
    }
    *len = n;
    return copy;
}

uint32_t string_ref_any(Lisp *L, Obj s, size_t i) {
    if (is_string(s)) return STR(s)->data[i];
    size_t off;
    Obj h = element_holder(s, &off);
    if (!holder_covers(h, off, i + 1) || !is_vector(h)) err_holder(L, s);
    if (is_string(h)) return STR(h)->data[off + i];
    Obj c = array_rm_ref(L, h, off + i);
    if (!is_char(c)) err_type(L, c, S(CHARACTER));
    return char_code(c);
}

void string_set_any(Lisp *L, Obj s, size_t i, uint32_t c) {
    Obj h = s;
    size_t off = 0;
    if (!is_string(s)) {
        h = element_holder(s, &off);
        if (!holder_covers(h, off, i + 1) || !is_vector(h)) err_holder(L, s);
    }
    if (is_string(h)) {
        if ((STR(h)->h.flags & ARR_BASE) && c >= 128) err_type(L, make_char(c), S(BASE_CHAR));
        STR(h)->data[off + i] = c;
    } else {
        array_rm_set(L, h, off + i, make_char(c));
    }
}

Obj string_concat(Lisp *L, size_t n, const Obj *strings) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_any_string(strings[i])) err_type(L, strings[i], S(STRING));
        size_t len;
        string_data(L, strings[i], &len);
        if (len > SIZE_MAX / 8 - total) err_storage(L, "string too long");
        total += len;
    }
    Obj out = string_new(L, total);
    uint32_t *d = STR(out)->data;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint32_t *s = string_data(L, strings[i], &len);
        if (len > total) len = total;   /* a string shrunk meanwhile: never overrun */
        if (len) memcpy(d, s, len * 4);
        d += len;
        total -= len;
    }
    return out;
}

Obj string_substring(Lisp *L, Obj s, size_t start, size_t end) {
    size_t len;
    const uint32_t *d = string_data(L, s, &len);
    if (end > len) end = len;
    if (start > end) start = end;
    return string_from_u32(L, d + start, end - start);
}

void sb_init(Lisp *L, StrBuf *b, size_t cap) {
    if (cap < 16) cap = 16;
    b->data = (uint32_t *)gc_alloc_atomic(L, cap * 4);
    b->len = 0;
    b->cap = cap;
    b->local = false;
}

void sb_init_local(StrBuf *b, uint32_t *buf, size_t cap) {
    b->data = buf;
    b->len = 0;
    b->cap = cap;
    b->local = true;
}

static void sb_reserve(Lisp *L, StrBuf *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap * 2;
    while (cap < b->len + extra) cap *= 2;
    gc_check_request(L, cap * 4);
    if (b->local) {
        uint32_t *d = (uint32_t *)gc_alloc_atomic(L, cap * 4);
        memcpy(d, b->data, b->len * 4);
        b->data = d;
        b->local = false;
    } else b->data = (uint32_t *)gc_realloc(L, b->data, cap * 4);
    b->cap = cap;
}

void sb_putc(Lisp *L, StrBuf *b, uint32_t c) {
    if (b->len == b->cap) sb_reserve(L, b, 1);
    b->data[b->len++] = c;
}

void sb_putn(Lisp *L, StrBuf *b, const uint32_t *s, size_t n) {
    sb_reserve(L, b, n);
    memcpy(b->data + b->len, s, n * 4);
    b->len += n;
}

void sb_puts(Lisp *L, StrBuf *b, const char *s) {
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += (size_t)utf8_decode((const unsigned char *)s + i, n - i, &cp);
        sb_putc(L, b, cp);
    }
}

void sb_put_string(Lisp *L, StrBuf *b, Obj str) {
    size_t len;
    const uint32_t *d = string_data(L, str, &len);
    sb_putn(L, b, d, len);
}

Obj sb_to_string(Lisp *L, StrBuf *b) { return string_from_u32(L, b->data, b->len); }
