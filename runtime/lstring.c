/* lstring.c: C-level string helpers (construction, UTF-8 conversion, hashing, buffers). */
#include "lstring.h"
#include "error.h"
#include "prim.h"
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
    uint32_t v;
    if ((c & 0xE0) == 0xC0) { need = 1; v = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { need = 2; v = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { need = 3; v = c & 0x07; }
    else { *cp = 0xFFFD; return 1; }
    if ((size_t)need >= n) { *cp = 0xFFFD; return 1; }
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v > 0x10FFFF) v = 0xFFFD;
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
    size_t count = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += (size_t)utf8_decode((const unsigned char *)s + i, n - i, &cp);
        count++;
    }
    Obj str = string_new(L, count);
    uint32_t *d = STR(str)->data;
    for (size_t i = 0, j = 0; i < n; j++) i += (size_t)utf8_decode((const unsigned char *)s + i, n - i, &d[j]);
    return str;
}

Obj string_from_cstr(Lisp *L, const char *s) { return string_from_utf8(L, s, strlen(s)); }

Obj string_from_u32(Lisp *L, const uint32_t *s, size_t n) {
    Obj str = string_new(L, n);
    if (n) memcpy(STR(str)->data, s, n * 4);
    return str;
}

static size_t utf8_size(Obj str) {
    size_t n = 0;
    String *s = STR(str);
    for (size_t i = 0; i < s->len; i++) {
        uint32_t c = s->data[i];
        n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }
    return n;
}

static void utf8_fill(Obj str, char *out) {
    String *s = STR(str);
    char *p = out;
    for (size_t i = 0; i < s->len; i++) p += utf8_encode(s->data[i], p);
    *p = 0;
}

char *string_to_utf8(Lisp *L, Obj str, size_t *len_out) {
    size_t n = utf8_size(str);
    char *out = (char *)gc_alloc_atomic(L, n + 1);
    utf8_fill(str, out);
    if (len_out) *len_out = n;
    return out;
}

char *string_to_utf8_malloc(Obj str, size_t *len_out) {
    size_t n = utf8_size(str);
    char *out = (char *)malloc(n + 1);
    if (!out) return NULL;
    utf8_fill(str, out);
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

Obj string_designator(Lisp *L, Obj o) {
    if (is_string(o)) return o;
    if (o == NIL) return L->nil_sym.name;
    if (is_type(o, T_SYMBOL)) return SYM(o)->name;
    if (is_char(o)) {
        uint32_t c = char_code(o);
        return string_from_u32(L, &c, 1);
    }
    /* a string designator of rank-1 character array type */
    err_fmt(L, S(TYPE_ERROR), "%S is not a string designator.", o);
}

void sb_init(Lisp *L, StrBuf *b, size_t cap) {
    if (cap < 16) cap = 16;
    b->data = (uint32_t *)gc_alloc_atomic(L, cap * 4);
    b->len = 0;
    b->cap = cap;
}

static void sb_reserve(Lisp *L, StrBuf *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap * 2;
    while (cap < b->len + extra) cap *= 2;
    gc_check_request(L, cap * 4);
    b->data = (uint32_t *)gc_realloc(L, b->data, cap * 4);
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

void sb_put_string(Lisp *L, StrBuf *b, Obj str) { sb_putn(L, b, STR(str)->data, STR(str)->len); }

Obj sb_to_string(Lisp *L, StrBuf *b) { return string_from_u32(L, b->data, b->len); }
