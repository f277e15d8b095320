/* formstart.c: where the next top-level form starts (see formstart.h). #| needs two characters of
 * lookahead; a string stream has its text at hand, a file stream its buffer. */
#include "formstart.h"
#include "stream.h"
#include "error.h"

static bool blank(uint32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* The end of the #| comment that starts at POS (its #), or NO_END when it does not end. */
#define NO_END ((size_t)-1)
static size_t comment_end(const uint32_t *d, size_t n, size_t pos) {
    size_t depth = 1;
    pos += 2;
    while (pos < n && depth > 0) {
        if (d[pos] == '|' && pos + 1 < n && d[pos + 1] == '#') { depth--; pos += 2; }
        else if (d[pos] == '#' && pos + 1 < n && d[pos + 1] == '|') { depth++; pos += 2; }
        else pos++;
    }
    return depth > 0 ? NO_END : pos;
}

size_t form_skip_blank(const uint32_t *d, size_t n, size_t pos) {
    while (pos < n) {
        uint32_t c = d[pos];
        if (blank(c)) { pos++; continue; }
        if (c == ';') {
            while (pos < n && d[pos] != '\n') pos++;
            continue;
        }
        if (c == '#' && pos + 1 < n && d[pos + 1] == '|') {
            size_t e = comment_end(d, n, pos);
            if (e == NO_END) return pos;
            pos = e;
            continue;
        }
        break;
    }
    return pos;
}

/* After a peek returned '#' on a file stream: the byte after it, if buffered; else -1. */
static int byte_after_peeked(Stream *s) {
    if ((StreamKind)s->h.aux != SK_FD || s->unread != '#' || s->io_mode != 1 || s->iopos >= s->iolen) return -1;
    return s->iobuf[s->iopos];
}

void form_locate(Lisp *L, Obj stream, long *line, long *column) {
    Stream *s = STREAM(stream);
    if ((StreamKind)s->h.aux == SK_STRING_IN && s->unread < 0) {
        /* the text is at hand: skip in it, then read up to there so that lines and columns count */
        size_t to = form_skip_blank(STR(s->string)->data, s->end, s->pos);
        while (s->pos < to) stream_read_char_fast(L, stream);
    } else {
        for (;;) {
            int c = stream_peek_char(L, stream);
            if (c == ';') {
                while (c >= 0 && c != '\n') c = stream_read_char(L, stream);
            } else if (c >= 0 && blank((uint32_t)c)) {
                stream_read_char(L, stream);
            } else if (c == '#' && byte_after_peeked(s) == '|') {
                stream_read_char(L, stream);
                stream_read_char(L, stream);
                int depth = 1, prev = 0;
                while (depth > 0) {
                    int k = stream_read_char(L, stream);
                    if (k < 0) err_eof(L, stream);
                    if (prev == '|' && k == '#') { depth--; prev = 0; continue; }
                    if (prev == '#' && k == '|') { depth++; prev = 0; continue; }
                    prev = k;
                }
            } else break;
        }
    }
    *line = (long)s->line;
    *column = (long)s->col + 1;
}
