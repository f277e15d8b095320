/* input.c: the server's input: newline-delimited messages cut in linear time, the size limit
 * (an oversized message is skipped up to its newline, keeping the stream in sync), strict UTF-8
 * validation, and the id of a message too large to parse. */
#include "input.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

void mcp_input_init(McpInput *in, size_t max_message) {
    memset(in, 0, sizeof *in);
    in->max = max_message ? max_message : MCP_DEFAULT_MAX_MESSAGE;
}

void mcp_input_free(McpInput *in) {
    free(in->buf);
    in->buf = NULL;
    in->len = in->cap = 0;
}

/* Keep the first bytes of an oversized message (its id is usually among them). */
static void keep_head(McpInput *in, const char *p, size_t n) {
    size_t room = sizeof in->head - in->head_len;
    if (n > room) n = room;
    if (n == 0) return;   /* P may be NULL then (nothing buffered yet) */
    memcpy(in->head + in->head_len, p, n);
    in->head_len += n;
}

/* Start dropping the current message: what was buffered goes, its head is kept. */
static void start_skipping(McpInput *in, const char *more, size_t n) {
    in->head_len = 0;
    keep_head(in, in->buf, in->len);
    keep_head(in, more, n);
    in->skipped = in->len + n;
    in->len = 0;
    in->skipping = true;
}

/* Append N bytes to the buffered message; false when that would pass the limit or memory fails. */
static bool append(McpInput *in, const char *p, size_t n) {
    if (in->len + n > in->max) return false;
    if (in->len + n > in->cap) {
        size_t nc = in->cap ? in->cap : 65536;
        while (nc < in->len + n) nc *= 2;
        if (nc > in->max) nc = in->max;
        char *nb = (char *)realloc(in->buf, nc);
        if (!nb) return false;
        in->buf = nb;
        in->cap = nc;
    }
    memcpy(in->buf + in->len, p, n);
    in->len += n;
    return true;
}

void mcp_input_feed(McpInput *in, const char *data, size_t n, const McpInputHandlers *h) {
    size_t i = 0;
    while (i < n) {
        const char *nl = (const char *)memchr(data + i, '\n', n - i);
        size_t seg = nl ? (size_t)(nl - (data + i)) : n - i;
        if (in->skipping) {
            in->skipped += seg;
            if (!nl) return;
            h->oversized(h->ctx, in->head, in->head_len, in->skipped);
            in->skipping = false;
            i += seg + 1;
            continue;
        }
        if (nl && in->len == 0 && seg <= in->max) {
            /* the whole message is in this chunk: no copy */
            h->line(h->ctx, data + i, seg);
        } else if (!append(in, data + i, seg)) {
            start_skipping(in, data + i, seg);
            if (!nl) return;
            h->oversized(h->ctx, in->head, in->head_len, in->skipped);
            in->skipping = false;
        } else if (nl) {
            h->line(h->ctx, in->buf, in->len);
            in->len = 0;
        }
        i += seg + (nl ? 1 : 0);
    }
}

size_t mcp_utf8_invalid_at(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII eight bytes at a time */
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, u + i, 8);
            if (!(w & 0x8080808080808080ULL)) { i += 8; continue; }
        }
        unsigned c = u[i];
        if (c < 0x80) { i++; continue; }
        int need;
        uint32_t min, cp;
        if (c >= 0xC2 && c <= 0xDF) { need = 1; cp = c & 0x1F; min = 0x80; }
        else if ((c & 0xF0) == 0xE0) { need = 2; cp = c & 0x0F; min = 0x800; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; cp = c & 0x07; min = 0x10000; }
        else return i;   /* a continuation byte, an overlong lead (C0, C1) or F5..FF */
        if (i + (size_t)need >= n) return i;   /* cut short */
        for (int k = 1; k <= need; k++) {
            if ((u[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (u[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += (size_t)need + 1;
    }
    return (size_t)-1;
}

/* Skip a JSON string starting at s[i] == '"'; returns the index after its closing quote, or n. */
static size_t skip_string(const char *s, size_t i, size_t n) {
    for (i++; i < n; i++) {
        if (s[i] == '\\') i++;
        else if (s[i] == '"') return i + 1;
    }
    return n;
}

static size_t skip_space(const char *s, size_t i, size_t n) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++;
    return i;
}

cJSON *mcp_input_find_id(const char *head, size_t n) {
    size_t i = skip_space(head, 0, n);
    if (i >= n || head[i] != '{') return NULL;
    int depth = 0;
    bool expect_key = false;
    while (i < n) {
        char c = head[i];
        if (c == '"') {
            size_t end = skip_string(head, i, n);
            if (depth == 1 && expect_key && end - i == 4 && memcmp(head + i, "\"id\"", 4) == 0) {
                size_t v = skip_space(head, end, n);
                if (v >= n || head[v] != ':') return NULL;
                v = skip_space(head, v + 1, n);
                size_t e = v;
                if (v < n && head[v] == '"') e = skip_string(head, v, n);
                else while (e < n && (head[e] == '-' || head[e] == '+' || head[e] == '.' || head[e] == 'e' ||
                                      head[e] == 'E' || (head[e] >= '0' && head[e] <= '9'))) e++;
                if (e == v || e >= n) return NULL;   /* no value, or it runs past what was kept */
                cJSON *id = cJSON_ParseWithLength(head + v, e - v);
                if (id && (cJSON_IsString(id) || cJSON_IsNumber(id))) return id;
                cJSON_Delete(id);
                return NULL;
            }
            expect_key = false;
            i = end;
            continue;
        }
        if (c == '{') { depth++; expect_key = depth == 1; }
        else if (c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == ',' && depth == 1) expect_key = true;
        i++;
    }
    return NULL;
}
