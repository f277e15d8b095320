/* stream.h: character and byte streams: strings, file descriptors (files), and the composite kinds. */
#ifndef TINYCL_STREAM_H
#define TINYCL_STREAM_H

#include "state.h"
#include "lstring.h"

typedef enum {
    SK_STRING_IN, SK_STRING_OUT, SK_FD, SK_SYNONYM, SK_BROADCAST, SK_TWO_WAY,
    SK_ECHO, SK_CONCATENATED, SK_NULL,
    SK_STRING_FILL,           /* output into a string with a fill pointer (WITH-OUTPUT-TO-STRING) */
    SK_GRAY,                  /* a Gray stream instance (a = the instance); see gray.h */
} StreamKind;

enum {
    ST_INPUT = 1, ST_OUTPUT = 2, ST_OPEN = 4,
    ST_BINARY = 8,            /* byte operations allowed (READ-BYTE, WRITE-BYTE) */
    ST_FILE = 16,             /* a FILE-STREAM */
    ST_INTERACTIVE = 32, ST_OWN_FD = 64, ST_EOF_SEEN = 128,
    ST_CHAR = 256,            /* character operations allowed; both with ST_BINARY: bivalent */
    ST_CREATED = 512,         /* OPEN created the file: CLOSE :ABORT T deletes it */
    ST_BASE = 1024,           /* a string output stream of BASE-CHARs: its strings are base strings */
    ST_MAY_BLOCK = 2048,      /* fd: not a regular file (a pipe, FIFO, terminal...): I/O waits in iowait */
    ST_NONBLOCK = 4096,       /* fd: opened with O_NONBLOCK (reads and writes may say EAGAIN) */
    ST_CAPTURE = 8192,        /* a session's capture stream: its characters count against L->output_left */
};

enum { EF_UTF8 = 0, EF_LATIN1 = 1, EF_ASCII = 2 };

typedef struct Stream {
    Header h;                 /* aux = StreamKind */
    uint32_t flags;
    size_t column;            /* output column, for fresh-line and ~& */
    int unread;               /* pushed-back character or -1 */
    uint32_t last_char;       /* last character read (for unread-char checking) */
    /* string input; SK_STRING_FILL: string = the target string */
    Obj string; size_t pos, end, start;
    /* string output: buffer, optional cap (0 = none) and whether it overflowed */
    StrBuf buf; size_t cap; bool truncated;
    /* fd */
    int fd;
    unsigned char *iobuf; size_t iolen, iopos; /* input buffer / output pending */
    Obj pathname;             /* file streams: the pathname OPEN was given, merged */
    Obj element_type;
    long long file_pos;       /* bytes consumed/produced, for unseekable fds */
    int external_format;      /* EF_* */
    /* composite */
    Obj a, b;                 /* synonym: a = symbol; two-way/echo: a = in, b = out; broadcast/concatenated: a = list */
    size_t line;              /* input line number (1-based), for reader errors */
    size_t col, prev_col;     /* input column (0-based) and the column before the last newline, for source locations */
    /* files */
    int io_mode;              /* fd: 0 idle, 1 reading, 2 writing (the buffer holds input or pending output) */
    int elt_bytes;            /* binary element size in bytes: 1, 2, 4 or 8 (little-endian) */
    bool elt_signed;
    int replacement;          /* replacement character for coding errors, or -1 to signal */
    Obj native;               /* file streams: the native file name (string) */
} Stream;
#define STREAM(o) ((Stream *)(o))
static inline bool is_stream(Obj o) { return is_type(o, T_STREAM); }

Obj make_string_input_stream(Lisp *L, Obj str, size_t start, size_t end);
Obj make_string_output_stream(Lisp *L);
/* A string output stream that keeps at most CAP characters (the rest are counted as truncated). */
Obj make_capped_output_stream(Lisp *L, size_t cap);
Obj get_output_stream_string(Lisp *L, Obj s);
/* An output stream appending to STRING (a string with a fill pointer), growing it as needed. */
Obj make_fill_pointer_output_stream(Lisp *L, Obj string);
Obj make_fd_stream(Lisp *L, int fd, uint32_t flags, Obj pathname);
Obj make_synonym_stream(Lisp *L, Obj sym);
Obj make_two_way_stream(Lisp *L, Obj in, Obj out);
Obj make_broadcast_stream(Lisp *L, Obj list);
/* The stream the C functions use for a Gray stream instance: every operation on it calls the
 * instance's generic functions. It holds no state of its own, so one may be made per call. */
Obj make_gray_stream(Lisp *L, Obj instance);
/* A Gray stream instance as Lisp should see it: the instance behind an SK_GRAY stream, else O. */
static inline Obj stream_visible(Obj o) {
    return is_type(o, T_STREAM) && (StreamKind)STREAM(o)->h.aux == SK_GRAY ? STREAM(o)->a : o;
}

/* Resolve a stream designator: NIL -> *standard-output* / *standard-input*, T -> *terminal-io*. */
Obj stream_out(Lisp *L, Obj designator);
Obj stream_in(Lisp *L, Obj designator);

void stream_write_char(Lisp *L, Obj s, uint32_t c);
void stream_write_u32(Lisp *L, Obj s, const uint32_t *chars, size_t n);
void stream_write_cstr(Lisp *L, Obj s, const char *utf8);
void stream_write_string(Lisp *L, Obj s, Obj str, size_t start, size_t end);
int stream_read_char(Lisp *L, Obj s);   /* -1 at end of file */
/* READ-CHAR for the reader's loops: an open string input stream with nothing pushed back is read
 * here, anything else by stream_read_char. */
static inline int stream_read_char_fast(Lisp *L, Obj o) {
    Stream *s = STREAM(o);
    if ((StreamKind)s->h.aux == SK_STRING_IN && s->unread < 0 && (s->flags & ST_OPEN) && s->pos < s->end) {
        uint32_t c = STR(s->string)->data[s->pos++];
        if (c == '\n') { s->line++; s->prev_col = s->col; s->col = 0; } else s->col++;
        s->last_char = c;
        return (int)c;
    }
    return stream_read_char(L, o);
}
void stream_unread_char(Lisp *L, Obj s, uint32_t c);
int stream_peek_char(Lisp *L, Obj s);
bool stream_listen(Lisp *L, Obj s);
int stream_read_byte(Lisp *L, Obj s);   /* -1 at end of file (8-bit elements) */
void stream_write_byte(Lisp *L, Obj s, int byte);
/* Binary elements of the stream's element type; EOF returns NO_VALUE. */
Obj stream_read_element(Lisp *L, Obj s);
void stream_write_element(Lisp *L, Obj s, Obj integer);
size_t stream_column(Lisp *L, Obj s);
void stream_fresh_line(Lisp *L, Obj s);
void stream_terpri(Lisp *L, Obj s);
void stream_finish_output(Lisp *L, Obj s);
void stream_close(Lisp *L, Obj s, bool abort);
bool stream_is_input(Lisp *L, Obj s);
bool stream_is_output(Lisp *L, Obj s);
/* SYSTEM::CLOSED-STREAM-ERROR "<stream> is closed". */
_Noreturn void stream_closed_error(Lisp *L, Obj s);

void stream_standard_init(Lisp *L);

#endif
