/* jsontext.c: exact JSON text where cJSON's NUL-terminated strings fall short: string literals
 * written from bytes with a length, string arguments read from the raw message, and a wire that
 * is always valid UTF-8. */
#include "mcp.h"
#include <stdlib.h>
#include <string.h>

typedef struct Out { char *s; size_t len, cap; bool failed; } Out;

static void out_add(Out *o, const char *s, size_t n) {
    if (o->failed) return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        while (cap < o->len + n + 1) cap *= 2;
        char *ns = (char *)realloc(o->s, cap);
        if (!ns) { o->failed = true; return; }
        o->s = ns;
        o->cap = cap;
    }
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = 0;
}

static void out_escape_u(Out *o, unsigned v) {
    static const char hex[] = "0123456789abcdef";
    char e[6] = {'\\', 'u', hex[(v >> 12) & 15], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15]};
    out_add(o, e, 6);
}

/* The length of the well-formed UTF-8 sequence at S (1..4), 0 when the bytes there are not one,
 * or -3 for the three bytes of a surrogate code point (generalized UTF-8), with it in *SURROGATE. */
static int utf8_sequence(const unsigned char *s, size_t n, unsigned *surrogate) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;                       /* overlong */
        if (c == 0xED && s[1] >= 0xA0) {                              /* U+D800..U+DFFF */
            *surrogate = 0xD000 | ((unsigned)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
            return -3;
        }
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;                       /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0;                      /* beyond U+10FFFF */
        return 4;
    }
    return 0;
}

/* Copy the N bytes of S into O as JSON string content. ESCAPE_ASCII: also escape quotes,
 * backslashes and control characters (a string's content); without it only non-ASCII bytes are
 * looked at (a whole JSON text, whose non-ASCII bytes are all inside string literals). A
 * surrogate becomes its \uXXXX escape (exact); bytes that are no UTF-8 at all become U+FFFD. */
static void out_utf8(Out *o, const char *s, size_t n, bool escape_ascii) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0;   /* bytes from `run` to i are copied as they are */
    while (i < n) {
        unsigned c = u[i];
        if (c < 0x80) {
            if (!escape_ascii || (c >= 0x20 && c != '"' && c != '\\')) { i++; continue; }
            out_add(o, s + run, i - run);
            switch (c) {
            case '"': out_add(o, "\\\"", 2); break;
            case '\\': out_add(o, "\\\\", 2); break;
            case '\n': out_add(o, "\\n", 2); break;
            case '\r': out_add(o, "\\r", 2); break;
            case '\t': out_add(o, "\\t", 2); break;
            case '\b': out_add(o, "\\b", 2); break;
            case '\f': out_add(o, "\\f", 2); break;
            default: out_escape_u(o, c); break;
            }
            run = ++i;
            continue;
        }
        unsigned sur = 0;
        int k = utf8_sequence(u + i, n - i, &sur);
        if (k > 0) { i += (size_t)k; continue; }
        out_add(o, s + run, i - run);
        if (k == -3) { out_escape_u(o, sur); i += 3; }
        else { out_escape_u(o, 0xFFFD); i++; }
        run = i;
    }
    out_add(o, s + run, n - run);
}

cJSON *mcp_json_string_n(const char *s, size_t len) {
    Out o = {0};
    out_add(&o, "\"", 1);
    if (s) out_utf8(&o, s, len, true);
    out_add(&o, "\"", 1);
    if (o.failed) { free(o.s); return cJSON_CreateString(""); }
    cJSON *item = cJSON_CreateRaw(o.s);
    free(o.s);
    return item;
}

cJSON *mcp_json_string(const char *s) { return mcp_json_string_n(s, s ? strlen(s) : 0); }

char *mcp_json_wire_utf8(const char *text, size_t len, size_t *out_len) {
    size_t i = 0;
    const unsigned char *u = (const unsigned char *)text;
    while (i < len && u[i] < 0x80) i++;
    if (i == len) return NULL;              /* all ASCII: nothing to do */
    Out o = {0};
    out_utf8(&o, text, len, false);
    if (o.failed) { free(o.s); return NULL; }
    if (o.len == len && memcmp(o.s, text, len) == 0) { free(o.s); return NULL; }
    *out_len = o.len;
    return o.s;
}

/* ---- reading raw JSON text (already known to be valid: cJSON parsed it) ---- */

static size_t skip_ws(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

static int hex4(const char *s, size_t n, size_t i) {
    if (i + 4 > n) return -1;
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[i + (size_t)k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static void put_code_point(Out *o, unsigned v) {
    char b[4];
    int k;
    if (v < 0x80) { b[0] = (char)v; k = 1; }
    else if (v < 0x800) { b[0] = (char)(0xC0 | (v >> 6)); b[1] = (char)(0x80 | (v & 0x3F)); k = 2; }
    else if (v < 0x10000) {
        /* a lone surrogate too: generalized UTF-8, which the session reads back as that character */
        b[0] = (char)(0xE0 | (v >> 12)); b[1] = (char)(0x80 | ((v >> 6) & 0x3F)); b[2] = (char)(0x80 | (v & 0x3F)); k = 3;
    } else {
        b[0] = (char)(0xF0 | (v >> 18)); b[1] = (char)(0x80 | ((v >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((v >> 6) & 0x3F)); b[3] = (char)(0x80 | (v & 0x3F)); k = 4;
    }
    out_add(o, b, (size_t)k);
}

/* The string literal at S[I] ('"'): its end (past the closing quote), its decoded bytes into O
 * when O is not NULL. Returns 0 when it is not a well-formed literal. */
static size_t scan_string(const char *s, size_t n, size_t i, Out *o) {
    if (i >= n || s[i] != '"') return 0;
    i++;
    size_t run = i;
    while (i < n) {
        char c = s[i];
        if (c == '"') {
            if (o) out_add(o, s + run, i - run);
            return i + 1;
        }
        if (c != '\\') { i++; continue; }
        if (o) out_add(o, s + run, i - run);
        if (i + 1 >= n) return 0;
        char e = s[i + 1];
        i += 2;
        if (e == 'u') {
            int v = hex4(s, n, i);
            if (v < 0) return 0;
            i += 4;
            if (v >= 0xD800 && v <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                int w = hex4(s, n, i + 2);
                if (w >= 0xDC00 && w <= 0xDFFF) {
                    v = 0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00);
                    i += 6;
                }
            }
            if (o) put_code_point(o, (unsigned)v);
        } else if (o) {
            char d = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            out_add(o, &d, 1);
        }
        run = i;
    }
    return 0;
}

/* The end of the JSON value at S[I], or 0. */
static size_t skip_value(const char *s, size_t n, size_t i) {
    if (i >= n) return 0;
    if (s[i] == '"') return scan_string(s, n, i, NULL);
    if (s[i] == '{' || s[i] == '[') {
        size_t depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') { i = scan_string(s, n, i, NULL); if (!i) return 0; continue; }
            if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') { if (--depth == 0) return i + 1; }
            i++;
        }
        return 0;
    }
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') i++;
    return i;
}

/* Where the value of member KEY of the object at S[I] starts (the first such member, as cJSON
 * finds it), or 0. */
static size_t member(const char *s, size_t n, size_t i, const char *key) {
    i = skip_ws(s, n, i);
    if (i >= n || s[i] != '{') return 0;
    i = skip_ws(s, n, i + 1);
    size_t klen = strlen(key);
    while (i < n && s[i] == '"') {
        Out k = {0};
        size_t j = scan_string(s, n, i, &k);
        bool match = j && !k.failed && k.len == klen && memcmp(k.s ? k.s : "", key, klen) == 0;
        free(k.s);
        if (!j) return 0;
        j = skip_ws(s, n, j);
        if (j >= n || s[j] != ':') return 0;
        j = skip_ws(s, n, j + 1);
        if (match) return j;
        j = skip_value(s, n, j);
        if (!j) return 0;
        j = skip_ws(s, n, j);
        if (j >= n || s[j] != ',') return 0;
        i = skip_ws(s, n, j + 1);
    }
    return 0;
}

char *mcp_json_raw_argument(const char *raw, size_t raw_len, const char *name, size_t *len) {
    if (!raw) return NULL;
    size_t p = member(raw, raw_len, 0, "params");
    if (p) p = member(raw, raw_len, p, "arguments");
    if (p) p = member(raw, raw_len, p, name);
    if (!p || raw[p] != '"') return NULL;
    Out o = {0};
    out_add(&o, "", 0);
    if (!scan_string(raw, raw_len, p, &o) || o.failed) { free(o.s); return NULL; }
    *len = o.len;
    return o.s;
}

char *mcp_string_argument(const McpContext *ctx, const cJSON *item, const char *name, size_t *len) {
    size_t n = strlen(item->valuestring), exact_len = 0;
    char *exact = mcp_json_raw_argument(ctx->raw, ctx->raw_len, name, &exact_len);
    /* cJSON's string is the exact one up to its first NUL character */
    if (exact && exact_len >= n && memcmp(exact, item->valuestring, n) == 0) {
        *len = exact_len;
        return exact;
    }
    free(exact);
    *len = n;
    return strdup(item->valuestring);
}

bool mcp_json_array_element(const char *raw, size_t raw_len, int index, size_t *start, size_t *len) {
    size_t i = skip_ws(raw, raw_len, 0);
    if (i >= raw_len || raw[i] != '[') return false;
    i = skip_ws(raw, raw_len, i + 1);
    for (int k = 0; i < raw_len; k++) {
        size_t e = skip_value(raw, raw_len, i);
        if (!e) return false;
        if (k == index) { *start = i; *len = e - i; return true; }
        i = skip_ws(raw, raw_len, e);
        if (i >= raw_len || raw[i] != ',') return false;
        i = skip_ws(raw, raw_len, i + 1);
    }
    return false;
}
