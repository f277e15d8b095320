/* session-checkpoint.c: a session's whole state as bytes (runtime/image.c), kept in memory as named
 * checkpoints or written to a session file, and put back exactly. */
#include "session.h"
#include "session_guard.h"
#include "../runtime/image.h"
#include "../runtime/bootimage.h"
#include "../runtime/gc.h"
#include "../runtime/gcdirty.h"
#include "../runtime/eval.h"
#include "../runtime/thread.h"
#include "../runtime/control.h"
#include "../runtime/pathname.h"
#include "../runtime/package.h"
#include "../runtime/hash.h"
#include "../runtime/stream.h"
#include "../runtime/abi.h"
#include <gc/gc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The state of a session is everything its interpreter reaches: the words of the Lisp structure
 * (less the fields that belong to the instance, as for the boot image) and the objects they reach.
 * Most of them are in collected memory, or in the heap the last restore read its graph into; the
 * writer finds the objects of both one by one (the latter by the block starts its image recorded)
 * and copies only what is reachable. The boot image's heap is the exception: it is the same in
 * every interpreter of this build, but mutated since (package tables, symbol cells), so it is
 * written whole: the words of its scanned part as roots (so what they point to is written and
 * relocated), its pointer-free part as raw bytes, and it is an external region, so pointers into
 * it stay pointers into it. A restore reads the graph into a new heap, then puts the Lisp
 * structure's words and the boot heap's contents back in place. The result is the session as it
 * was, with its own I/O channels (the standard streams stay the live ones). Nothing reaches the
 * heap of an earlier restore any more, so it is freed then: memory and the size of a checkpoint
 * follow what the session holds, however many restores came before.
 *
 * Bytes of a state:  "TCLSTATE" u64 length, u64 checksum of what follows, u64 nheaps (1);
 *   per heap: id, scanned bytes, scanned room, atomic room, ntables; then the table offsets of
 *   every heap; then the pointer-free part of every heap; then the offsets of the file streams,
 *   then u64 image length and the image.
 * Heap 0 is the boot image's (its sizes must be this interpreter's: the same build and boot).
 */

#define STATE_MAGIC "TCLSTATE"
#define NROOTS (sizeof(Lisp) / sizeof(uintptr_t))
#define MAX_CHECKPOINTS 16
#define MAX_NAME 64

typedef struct Heap {
    uint64_t id;
    char *scanned; size_t scanned_bytes, scanned_room;
    char *atomic; size_t atomic_room;
    uint64_t *tables; size_t ntables;
} Heap;

typedef struct Checkpoint { char name[MAX_NAME + 1]; unsigned char *bytes; size_t len; double created, seconds; } Checkpoint;

struct SessionStore {
    ImageHeap graph;                      /* the last restore's (scanned NULL when none), owned */
    Checkpoint ckpt[MAX_CHECKPOINTS];
    int count;
    long changes;                         /* restores and resets, for tcl_session_generation */
    bool graph_restored;                  /* GRAPH is a restore's, not yet compacted by a reset */
    size_t compacted_bytes;               /* the size of the heap the last compaction made */
    double last_write_seconds, last_read_seconds;
    size_t last_bytes;
};

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static SessionStore *store(TclSession *s) {
    if (!s->store) s->store = (SessionStore *)calloc(1, sizeof *s->store);
    return s->store;
}

static uint64_t sum_bytes(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull, x = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { memcpy(&x, p + i, 8); h = (h ^ x) * 0x100000001b3ull; h ^= h >> 29; }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The boot heap of L as heap 0, its table offsets from the boot image. */
static Heap boot_heap(Lisp *L) {
    Heap h = {0, L->image_heap.scanned, L->image_heap.scanned_bytes, L->image_heap.scanned_room,
              L->image_heap.atomic, L->image_heap.atomic_room, NULL, 0};
    static uint64_t *tables;
    static size_t ntables;
    static bool known;
    if (h.scanned && !known) {
        size_t len;
        const unsigned char *bytes = bootimage_bytes(&len);
        if (bytes) ntables = image_table_offsets(bytes, len, &tables);
        known = true;
    }
    if (h.scanned) { h.tables = tables; h.ntables = ntables; }
    return h;
}

/* Tell the interpreter (L->restored_heaps: for gc_realloc, and for the writer, which finds their
 * objects by their block starts) where the heap of the last restore is. */
static void publish_heaps(TclSession *s) {
    Lisp *L = s->L;
    SessionStore *st = s->store;
    ImageHeap *v = st && st->graph.scanned ? (ImageHeap *)malloc(sizeof *v) : NULL;
    if (v) *v = st->graph;
    free(L->restored_heaps);
    L->restored_heaps = v;
    L->nrestored_heaps = v ? 1 : 0;
}

void session_store_detach(TclSession *s) {
    free(s->L->restored_heaps);
    s->L->restored_heaps = NULL;
    s->L->nrestored_heaps = 0;
}

void session_store_release_heaps(TclSession *s) {
    if (!s->store) return;
    image_release(&s->store->graph);
    s->store->changes++;
}

void session_store_changed(TclSession *s) {
    SessionStore *st = store(s);
    if (st) st->changes++;
}

void session_store_free(TclSession *s) {
    if (!s->store) return;
    session_store_release_heaps(s);
    for (int i = 0; i < s->store->count; i++) free(s->store->ckpt[i].bytes);
    free(s->store);
    s->store = NULL;
}

static void put64(unsigned char **p, uint64_t v) { memcpy(*p, &v, 8); *p += 8; }

/* The session's state as bytes (malloc'd), or NULL with ERR set. */
static unsigned char *state_write(TclSession *s, size_t *len, char *err) {
    Lisp *L = s->L;
    SessionStore *st = store(s);
    if (!st) { snprintf(err, IMAGE_ERRLEN, "out of memory"); return NULL; }
    /* the boot heap only: the objects of a restore's heap are copied like collected ones */
    size_t nh = 1;
    Heap *hs = (Heap *)malloc(nh * sizeof *hs);
    ImageRegion *ext = (ImageRegion *)malloc((1 + 2 * nh) * sizeof *ext);
    if (!hs || !ext) { free(hs); free(ext); snprintf(err, IMAGE_ERRLEN, "out of memory"); return NULL; }
    hs[0] = boot_heap(L);
    size_t nroots = NROOTS;
    for (size_t i = 0; i < nh; i++) nroots += hs[i].scanned_bytes / 8;
    uintptr_t *roots = (uintptr_t *)malloc(nroots * sizeof *roots);
    if (!roots) { free(hs); free(ext); snprintf(err, IMAGE_ERRLEN, "out of memory"); return NULL; }
    memcpy(roots, L, sizeof *L);
    bootimage_strip_instance((Lisp *)roots);
    size_t at = NROOTS;
    ext[0] = (ImageRegion){L, sizeof *L};
    for (size_t i = 0; i < nh; i++) {
        if (hs[i].scanned_bytes) memcpy(roots + at, hs[i].scanned, hs[i].scanned_bytes);
        at += hs[i].scanned_bytes / 8;
        ext[1 + 2 * i] = (ImageRegion){hs[i].scanned, hs[i].scanned_room};
        ext[2 + 2 * i] = (ImageRegion){hs[i].atomic, hs[i].atomic_room};
    }
    size_t ilen = 0, nstreams = 0;
    uint64_t *streams = NULL;
    unsigned char *img = image_write_noting(L, roots, nroots, ext, 1 + 2 * nh, &ilen, err, T_STREAM, sizeof(Stream),
                                            &streams, &nstreams);
    free(roots);
    free(ext);
    if (!img) { free(hs); return NULL; }
    size_t total = 32 + nh * 40 + 8 + 8 + nstreams * 8;
    for (size_t i = 0; i < nh; i++) total += hs[i].ntables * 8 + hs[i].atomic_room;
    total += ilen;
    unsigned char *out = (unsigned char *)malloc(total);
    if (!out) { free(img); free(hs); free(streams); snprintf(err, IMAGE_ERRLEN, "out of memory for a state of %zu bytes", total); return NULL; }
    unsigned char *p = out;
    memcpy(p, STATE_MAGIC, 8); p += 8;
    put64(&p, total);
    put64(&p, 0);                          /* the checksum, below */
    put64(&p, nh);
    for (size_t i = 0; i < nh; i++) {
        put64(&p, hs[i].id); put64(&p, hs[i].scanned_bytes); put64(&p, hs[i].scanned_room);
        put64(&p, hs[i].atomic_room); put64(&p, hs[i].ntables);
    }
    for (size_t i = 0; i < nh; i++) { if (hs[i].ntables) memcpy(p, hs[i].tables, hs[i].ntables * 8); p += hs[i].ntables * 8; }
    for (size_t i = 0; i < nh; i++) { if (hs[i].atomic_room) memcpy(p, hs[i].atomic, hs[i].atomic_room); p += hs[i].atomic_room; }
    put64(&p, nstreams);
    for (size_t i = 0; i < nstreams; i++) put64(&p, streams[i]);
    free(streams);
    put64(&p, ilen);
    memcpy(p, img, ilen);
    free(img);
    free(hs);
    uint64_t sum = sum_bytes(out + 24, total - 24);
    memcpy(out + 16, &sum, 8);
    *len = total;
    return out;
}

static bool refuse(char *err, const char *msg) {
    snprintf(err, IMAGE_ERRLEN, "%s", msg);
    return false;
}

static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The finalizer table came back with the state: drop the entries no finalization can reach. */
static void finalizers_step(Lisp *L, void *ud) {
    (void)ud;
    funcall0(L, abi_upcall(L, S(P_FORGET_DEAD_FINALIZERS)));
}

static void restart_step(Lisp *L, void *ud) {
    (void)ud;
    pathname_default_init(L);
    Obj var = intern_cstr(L, L->pkg_system, "*IMAGE-RESTART-FUNCTIONS*");
    for (Obj l = SYM(var)->value; is_cons(l); l = CDR(l)) funcall0(L, CAR(l));
}

/* The file streams of the state (NSTREAMS offsets in GRAPH's scanned part, at STREAMS) are bound to
 * descriptors of the process that took it, which may since have been closed or reused: they come
 * back closed, and say so when used. The process's standard descriptors (0, 1, 2) stay. */
static void close_process_streams(const ImageHeap *graph, const unsigned char *streams, size_t nstreams) {
    for (size_t i = 0; i < nstreams; i++) {
        uint64_t off = get64(streams + i * 8);
        if (off + sizeof(Stream) > graph->scanned_bytes || (off & 7)) continue;
        Stream *x = (Stream *)(graph->scanned + off);
        if (x->h.type != T_STREAM || (StreamKind)x->h.aux != SK_FD || x->fd <= 2 || !(x->flags & ST_OPEN)) continue;
        x->flags &= ~(uint32_t)ST_OPEN;
        x->fd = -1;
        x->io_mode = 0;
        x->iolen = x->iopos = 0;
    }
}

/* Put the state BYTES back into the session. Nothing changes unless every check passed. NEW_PROCESS:
 * the bytes come from another process (a session file): what depends on the process is made again. */
static bool state_read(TclSession *s, const unsigned char *b, size_t len, bool new_process, char *err) {
    Lisp *L = s->L;
    SessionStore *st = store(s);
    if (!st) return refuse(err, "out of memory");
    if (len < 40 || memcmp(b, STATE_MAGIC, 8) != 0) return refuse(err, "not a tinycl session state (bad magic number)");
    if (get64(b + 8) != len) return refuse(err, "the session state is truncated or has trailing bytes");
    if (sum_bytes(b + 24, len - 24) != get64(b + 16)) return refuse(err, "the session state is damaged (checksum mismatch)");
    uint64_t nh = get64(b + 24);
    if (nh != 1 || 32 + nh * 40 + 8 > len) return refuse(err, "the session state is damaged (impossible sizes)");
    Heap *hs = (Heap *)calloc(nh, sizeof *hs);
    ImageRegion *ext = (ImageRegion *)malloc((1 + 2 * nh) * sizeof *ext);
    uintptr_t *roots = NULL;
    bool ok = hs && ext;
    if (!ok) refuse(err, "out of memory");
    const unsigned char *p = b + 32;
    size_t need = 32 + nh * 40 + 8, nroots = NROOTS;
    for (uint64_t i = 0; ok && i < nh; i++, p += 40) {
        hs[i] = (Heap){get64(p), NULL, get64(p + 8), get64(p + 16), NULL, get64(p + 24), NULL, get64(p + 32)};
        if (hs[i].scanned_bytes > hs[i].scanned_room || (hs[i].scanned_bytes & 7) || hs[i].scanned_room > len ||
            hs[i].atomic_room > len || hs[i].ntables > len / 8)
            ok = refuse(err, "the session state is damaged (impossible sizes)");
        else { need += hs[i].ntables * 8 + hs[i].atomic_room; nroots += hs[i].scanned_bytes / 8; }
    }
    if (ok && need > len) ok = refuse(err, "the session state is damaged (sizes do not add up)");
    Heap boot = boot_heap(L);
    if (ok && (hs[0].scanned_bytes != boot.scanned_bytes || hs[0].scanned_room != boot.scanned_room ||
               hs[0].atomic_room != boot.atomic_room))
        ok = refuse(err, "the session state was written by another build of tinycl (its boot image differs)");
    const unsigned char *tables = p, *atomics = NULL, *img = NULL, *streams = NULL;
    size_t ilen = 0, nstreams = 0;
    if (ok) {
        const unsigned char *q = tables;
        for (uint64_t i = 0; i < nh; i++) q += hs[i].ntables * 8;
        atomics = q;
        for (uint64_t i = 0; i < nh; i++) q += hs[i].atomic_room;
        nstreams = get64(q);
        if (nstreams > len / 8 || (size_t)(q - b) + 16 + nstreams * 8 > len) ok = refuse(err, "the session state is damaged (sizes do not add up)");
        else {
            streams = q + 8;
            q += 8 + nstreams * 8;
            ilen = get64(q);
            img = q + 8;
        }
        if (ok && (size_t)(img - b) + ilen != len) ok = refuse(err, "the session state is damaged (sizes do not add up)");
    }
    hs[0].scanned = boot.scanned;
    hs[0].atomic = boot.atomic;
    if (ok) {
        ext[0] = (ImageRegion){L, sizeof *L};
        for (uint64_t i = 0; i < nh; i++) {
            ext[1 + 2 * i] = (ImageRegion){hs[i].scanned, hs[i].scanned_room};
            ext[2 + 2 * i] = (ImageRegion){hs[i].atomic, hs[i].atomic_room};
        }
        roots = (uintptr_t *)malloc(nroots * sizeof *roots);
        if (!roots) ok = refuse(err, "out of memory");
    }
    ImageHeap graph;
    memset(&graph, 0, sizeof graph);
    if (ok) ok = image_read(L, img, ilen, roots, nroots, ext, 1 + 2 * nh, &graph, err);
    if (!ok) {
        free(hs); free(ext); free(roots);
        return false;
    }
    /* every check passed: from here the session becomes the state */
    Obj saved_streams = session_guard_saved_streams(L);
    Lisp *loaded = (Lisp *)malloc(sizeof *loaded);
    memcpy(loaded, roots, sizeof *loaded);
    bootimage_keep_instance(loaded, L);
    memcpy(L, loaded, sizeof *L);
    free(loaded);
    const unsigned char *tp = tables, *ap = atomics;
    size_t at = NROOTS;
    for (uint64_t i = 0; i < nh; i++) {
        /* the boot heap's writes are tracked: its pages that do not change stay unwritten */
        if (hs[i].scanned_bytes && i == 0) gcdirty_copy(hs[i].scanned, roots + at, hs[i].scanned_bytes);
        else if (hs[i].scanned_bytes) memcpy(hs[i].scanned, roots + at, hs[i].scanned_bytes);
        at += hs[i].scanned_bytes / 8;
        if (hs[i].atomic_room) memcpy(hs[i].atomic, ap, hs[i].atomic_room);
        ap += hs[i].atomic_room;
        for (size_t k = 0; k < hs[i].ntables; k++) hash_rehash_loaded(L, (Obj)(hs[i].scanned + get64(tp + k * 8)));
        tp += hs[i].ntables * 8;
    }
    /* the heap of the restore before is unreachable now: the interpreter's words and the boot heap
     * were just overwritten with the state's (which names only the boot heap), the standard
     * streams put back are the session's own (collected memory), and no Lisp frame is running;
     * free it, or each restore would keep its memory */
    image_release(&st->graph);
    st->graph = graph;      /* its block starts kept: a later checkpoint finds its objects with them */
    publish_heaps(s);
    free(hs); free(ext); free(roots);
    close_process_streams(&graph, streams, nstreams);
    session_guard_reinstall_streams(L, saved_streams);
    threads_state_replaced(L);
    L->format_cache = NULL;     /* keyed by address */
    Obj epoch = SYM(S(P_CLOS_EPOCH))->value;     /* generic function caches too */
    SYM(S(P_CLOS_EPOCH))->value = is_fixnum(epoch) ? FIX(FIXVAL(epoch) + 1) : FIX(0);
    if (new_process && lisp_pcall(L, FR_TOPLEVEL, restart_step, NULL))
        fprintf(stderr, "tinycl: a restart function failed after reading the session state\n");
    if (lisp_pcall(L, FR_TOPLEVEL, finalizers_step, NULL))
        fprintf(stderr, "tinycl: could not drop the finalizers of the state that cannot run\n");
    st->changes++;
    st->graph_restored = true;
    return true;
}

/* After a plain reset the session reaches only the reset state: the snapshot, the registries'
 * copies and the kept systems. When the last restore's heap holds them, it holds whatever else
 * the checkpoint had too; writing the state and reading it back makes a heap of what is reachable
 * and frees that one (as a restore frees the heap of the one before). Once per restore: the heap
 * made here has nothing else, and what the session makes later is in collected memory. The
 * writer walks the whole boot heap (tens of milliseconds), so a small heap is left alone: what a
 * reset keeps is at most COMPACT_SLACK more than twice what the reset state needs. */
#define COMPACT_SLACK ((size_t)4 << 20)

static size_t graph_bytes(const ImageHeap *h) { return h->scanned_room + h->atomic_room; }

void session_store_compact(TclSession *s) {
    SessionStore *st = s->store;
    if (!st || !st->graph.scanned || !st->graph_restored) return;
    /* a Lisp thread that outlived the reset (its cleanup forms still running) may be running code
     * of the restored heap, which the compaction frees: a later reset compacts */
    if (threads_others_alive(s->L)) return;
    st->graph_restored = false;
    if (graph_bytes(&st->graph) <= 2 * st->compacted_bytes + COMPACT_SLACK) return;
    char err[IMAGE_ERRLEN];
    size_t len = 0;
    unsigned char *bytes = state_write(s, &len, err);
    /* without the memory to write it the heap stays, which is still correct */
    if (bytes && !state_read(s, bytes, len, false, err))
        fprintf(stderr, "tinycl: the reset could not compact the restored state: %s\n", err);
    free(bytes);
    st->graph_restored = false;
    st->compacted_bytes = st->graph.scanned ? graph_bytes(&st->graph) : 0;
}

/* ---- named checkpoints ---- */

static char *message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *message(const char *fmt, ...) {
    char buf[IMAGE_ERRLEN + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return strdup(buf);
}

static void set_error(char **error, char *msg) {
    if (error) *error = msg; else free(msg);
}

static Checkpoint *find_checkpoint(SessionStore *st, const char *name) {
    for (int i = 0; i < st->count; i++) if (strcmp(st->ckpt[i].name, name) == 0) return &st->ckpt[i];
    return NULL;
}

static bool usable(TclSession *s, const char *name, char **error) {
    if (!name || !*name || strlen(name) > MAX_NAME) {
        set_error(error, message("a checkpoint name is 1 to 64 characters"));
        return false;
    }
    if (s->debug) {
        set_error(error, message("an evaluation is suspended in the debugger: continue or abort it first"));
        return false;
    }
    if (threads_others_alive(s->L)) {
        /* a thread's state is its C stack, which no checkpoint holds */
        set_error(error, message("other Lisp threads of this session are running: join or terminate them "
                                 "(or reset the session) first"));
        return false;
    }
    if (!store(s)) { set_error(error, strdup("out of memory")); return false; }
    return true;
}

int tcl_checkpoint(TclSession *s, const char *name, char **error) {
    if (error) *error = NULL;
    if (!usable(s, name, error)) return -1;
    SessionStore *st = s->store;
    Checkpoint *old = find_checkpoint(st, name);
    if (!old && st->count == MAX_CHECKPOINTS) {
        set_error(error, message("there are already %d checkpoints, the most a session keeps: delete one first "
                                 "(delete-checkpoint) or reuse a name", MAX_CHECKPOINTS));
        return -1;
    }
    session_enter(s);
    char err[IMAGE_ERRLEN];
    double t0 = now_seconds();
    size_t len = 0;
    unsigned char *bytes = state_write(s, &len, err);
    if (!bytes) { set_error(error, message("cannot checkpoint the session: %s", err)); return -1; }
    Checkpoint *c = old ? old : &st->ckpt[st->count++];
    if (old) free(c->bytes);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->bytes = bytes;
    c->len = len;
    c->created = (double)time(NULL);
    c->seconds = now_seconds() - t0;
    st->last_bytes = len;
    st->last_write_seconds = c->seconds;
    return 0;
}

int tcl_restore(TclSession *s, const char *name, char **error) {
    if (error) *error = NULL;
    if (!usable(s, name, error)) return -1;
    Checkpoint *c = find_checkpoint(s->store, name);
    if (!c) { set_error(error, message("there is no checkpoint named \"%s\"", name)); return -1; }
    session_enter(s);
    char err[IMAGE_ERRLEN];
    double t0 = now_seconds();
    if (!state_read(s, c->bytes, c->len, false, err)) {
        set_error(error, message("cannot restore checkpoint \"%s\": %s", name, err));
        return -1;
    }
    s->store->last_read_seconds = now_seconds() - t0;
    return 0;
}

int tcl_delete_checkpoint(TclSession *s, const char *name, char **error) {
    if (error) *error = NULL;
    SessionStore *st = store(s);
    Checkpoint *c = st && name ? find_checkpoint(st, name) : NULL;
    if (!c) { set_error(error, message("there is no checkpoint named \"%s\"", name ? name : "")); return -1; }
    free(c->bytes);
    int i = (int)(c - st->ckpt);
    memmove(&st->ckpt[i], &st->ckpt[i + 1], (size_t)(st->count - i - 1) * sizeof *c);
    st->count--;
    memset(&st->ckpt[st->count], 0, sizeof *c);
    return 0;
}

TclCheckpoints *tcl_list_checkpoints(TclSession *s) {
    SessionStore *st = store(s);
    TclCheckpoints *l = (TclCheckpoints *)calloc(1, sizeof *l);
    if (!l) return NULL;
    l->max = MAX_CHECKPOINTS;
    int n = st ? st->count : 0;
    l->items = (TclCheckpointInfo *)calloc((size_t)(n ? n : 1), sizeof *l->items);
    if (!l->items) { free(l); return NULL; }
    for (int i = 0; i < n; i++) {
        l->items[i].name = strdup(st->ckpt[i].name);
        l->items[i].bytes = st->ckpt[i].len;
        l->items[i].created = st->ckpt[i].created;
        l->items[i].seconds = st->ckpt[i].seconds;
    }
    l->count = n;
    return l;
}

void tcl_checkpoints_free(TclCheckpoints *l) {
    if (!l) return;
    for (int i = 0; i < l->count; i++) free(l->items[i].name);
    free(l->items);
    free(l);
}

long tcl_session_generation(TclSession *s) {
    return s->calls + (s->store ? s->store->changes : 0);
}

void tcl_state_timings(TclSession *s, size_t *bytes, double *write_seconds, double *read_seconds) {
    SessionStore *st = store(s);
    *bytes = st ? st->last_bytes : 0;
    *write_seconds = st ? st->last_write_seconds : 0;
    *read_seconds = st ? st->last_read_seconds : 0;
}

/* ---- the session file ---- */

int tcl_session_file_save(TclSession *s, const char *path, char **error) {
    if (error) *error = NULL;
    if (s->debug) return 0;     /* saved once the suspended evaluation ends */
    if (threads_others_alive(s->L)) return 0;   /* saved once the other Lisp threads end */
    session_enter(s);
    char err[IMAGE_ERRLEN];
    double t0 = now_seconds();
    size_t len = 0;
    unsigned char *bytes = state_write(s, &len, err);
    if (!bytes) { set_error(error, message("cannot save the session to %s: %s", path, err)); return -1; }
    size_t plen = strlen(path);
    char *tmp = (char *)malloc(plen + 32);
    if (!tmp) { free(bytes); set_error(error, strdup("out of memory")); return -1; }
    snprintf(tmp, plen + 32, "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < len;) {
        ssize_t w = write(fd, bytes + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) ok = false; else off += (size_t)w;
    }
    if (fd >= 0) ok = fsync(fd) == 0 && ok, ok = close(fd) == 0 && ok;
    int saved_errno = errno;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        if (!saved_errno) saved_errno = errno;
        unlink(tmp);
        set_error(error, message("cannot save the session to %s: %s", path, strerror(saved_errno ? saved_errno : errno)));
    }
    free(tmp);
    free(bytes);
    SessionStore *st = store(s);
    if (ok && st) { st->last_bytes = len; st->last_write_seconds = now_seconds() - t0; }
    return ok ? 0 : -1;
}

int tcl_session_file_load(TclSession *s, const char *path, char **message_out) {
    if (message_out) *message_out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        set_error(message_out, message("cannot open the session file %s: %s", path, strerror(errno)));
        return -1;
    }
    struct stat sb;
    unsigned char *bytes = NULL;
    size_t len = 0;
    bool read_ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    if (read_ok) {
        len = (size_t)sb.st_size;
        bytes = (unsigned char *)malloc(len ? len : 1);
        read_ok = bytes != NULL;
        for (size_t off = 0; read_ok && off < len;) {
            ssize_t r = read(fd, bytes + off, len - off);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) read_ok = false; else off += (size_t)r;
        }
    }
    close(fd);
    char err[IMAGE_ERRLEN] = "it cannot be read";
    double t0 = now_seconds();
    if (read_ok) session_enter(s);
    if (read_ok && state_read(s, bytes, len, true, err)) {
        free(bytes);
        s->store->last_read_seconds = now_seconds() - t0;
        s->store->last_bytes = len;
        return 1;
    }
    free(bytes);
    /* refused: moved aside, so that the next save does not destroy what may still be wanted */
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    size_t plen = strlen(path);
    char *aside = (char *)malloc(plen + 48);
    if (aside) {
        snprintf(aside, plen + 48, "%s.bad-%s", path, stamp);
        bool moved = rename(path, aside) == 0;
        char why[IMAGE_ERRLEN + 64];
        snprintf(why, sizeof why, "%s; %s", err, moved ? "moved aside to" : "could not move it aside to");
        set_error(message_out, message("the session file %s was refused: %s", path, why));
        if (message_out && *message_out) {
            char *full = (char *)malloc(strlen(*message_out) + plen + 64);
            if (full) {
                sprintf(full, "%s %s; starting a fresh session", *message_out, aside);
                free(*message_out);
                *message_out = full;
            }
        }
        free(aside);
    }
    return -1;
}
