/* fasl.c: compiled files: the analysed top-level forms of a source file as an image whose symbols,
 * packages, global functions and classes are references by name, resolved when it is loaded. */
#include "prim.h"
#include "image.h"
#include "eval.h"
#include "lstring.h"
#include "package.h"
#include "clos.h"
#include "hash.h"
#include "pathname.h"
#include "access.h"
#include "truename.h"
#define GC_THREADS
#include <gc/gc.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A compiled file (COMPILE-FILE writes it, LOAD recognises it by its first bytes, whatever its
 * type) is
 *   header   magic "TCLFASL\0", format version, number of references, length of the reference
 *            table, length of the image, a checksum of the table
 *   table    one entry per reference: kind byte, heap type byte, then one or two names, each a
 *            4-byte length and UTF-8 bytes (package name, symbol name)
 *   image    runtime/image.c's format: one root, the vector of items the compiling code gave
 * The image's external regions are the interpreter structure (NIL lives there), the two parts of
 * the boot image (its objects are at the same place in every process of this build that booted
 * from it), then one region per reference. So a file is tied to the build (the image's build id)
 * and to how the writer booted (the regions' sizes): anything else is refused before anything of
 * the file runs (the table and the image's header before a name is interned, the image's checksum
 * before the graph is built), and the system cache then compiles the file again.
 */

#define FASL_MAGIC "TCLFASL"
#define FASL_VERSION 1u

typedef struct FaslHeader {
    char magic[8];
    uint32_t version, nrefs;
    uint64_t table_bytes, image_bytes, table_checksum;
} FaslHeader;

enum { REF_SYMBOL = 1, REF_PACKAGE, REF_FUNCTION, REF_SETF_FUNCTION, REF_CLASS };

/* ---- writing: which blocks are references ---- */

typedef struct Refs {
    Lisp *L;
    uintptr_t *keys; long *vals; size_t cap, count;   /* block -> reference number */
    Obj *objs; uint8_t *kinds; size_t n, objcap;
} Refs;

/* O is an object of type T that this interpreter made: in the collector's heap (a block of its
 * own, or one of a graph loaded from a compiled file, which is one block for the collector), or in
 * the boot image. (Words of node structures are not objects: the writer asks about blocks.) */
static bool object_of(Lisp *L, Obj o, HeapType t) {
    if (!is_heap(o) || (WORD(o) & 7)) return false;
    if (!image_heap_contains(&L->image_heap, o) && !GC_base(o)) return false;
    return heap_type(o) == t;
}

/* P is a package found by its name (see interned_symbol). */
static bool live_package(Lisp *L, Obj p) {
    return object_of(L, p, T_PACKAGE) && object_of(L, PKG(p)->name, T_STRING) && package_find(L, PKG(p)->name) == p;
}

/* S is a symbol its package gives back by its name. The writer asks about every block it reaches,
 * node structures included, whose first word (an evaluator's address) can read as a header of any
 * type: only what the package and class tables give back is taken as a reference. */
static bool interned_symbol(Lisp *L, Obj s) {
    if (!(object_of(L, s, T_SYMBOL) && object_of(L, SYM(s)->name, T_STRING) && SYM(s)->package != NIL &&
          live_package(L, SYM(s)->package)))
        return false;
    int status;
    return package_find_symbol(L, SYM(s)->package, STR(SYM(s)->name)->data, STR(SYM(s)->name)->len, &status) == s;
}

/* O is the class FIND-CLASS gives for NAME. */
static bool named_class(Lisp *L, Obj o, Obj name) {
    Obj table = SYM(S(P_CLASS_TABLE))->value;
    return interned_symbol(L, name) && is_type(table, T_HASHTABLE) && hash_get(L, table, name, NIL) == o;
}

static size_t ref_size(HeapType t) {
    switch (t) {
    case T_SYMBOL: return sizeof(Symbol);
    case T_PACKAGE: return sizeof(Package);
    case T_PRIMITIVE: return sizeof(Primitive);
    case T_CLOSURE: return sizeof(Closure);
    default: return sizeof(Instance);
    }
}

/* What kind of reference the block at BASE (of SIZE bytes) is, 0 when it is copied. */
static int ref_kind(Lisp *L, Obj o, size_t size) {
    if (size < sizeof(Header) + 8) return 0;
    switch ((HeapType)((Header *)o)->type) {
    case T_SYMBOL:
        return size >= sizeof(Symbol) && interned_symbol(L, o) ? REF_SYMBOL : 0;
    case T_PACKAGE:
        return size >= sizeof(Package) && live_package(L, o) ? REF_PACKAGE : 0;
    case T_PRIMITIVE:
    case T_CLOSURE: {
        if (size < sizeof(Closure) || !object_of(L, o, heap_type(o))) return 0;
        Obj name = heap_type(o) == T_PRIMITIVE ? PRIM(o)->name : CLOSURE(o)->name;
        if (interned_symbol(L, name) && SYM(name)->function == o && !(SYM(name)->h.flags & SYM_MACRO)) return REF_FUNCTION;
        if (is_cons(name) && GC_base(CONS(name)) && is_cons(CDR(name)) && interned_symbol(L, CAR(CDR(name))) &&
            SYM(CAR(CDR(name)))->setf_function == o)
            return REF_SETF_FUNCTION;
        return 0;
    }
    case T_INSTANCE:
    case T_FUNCALLABLE: {
        if (size < sizeof(Instance) || !object_of(L, o, heap_type(o))) return 0;
        Instance *in = INST(o);
        if (!in->slots || !GC_base(in->slots)) return 0;
        if (heap_type(o) == T_INSTANCE && (in->h.flags & INST_CLASS) && in->nslots > CL_NAME) {
            return named_class(L, o, in->slots[CL_NAME]) ? REF_CLASS : 0;
        }
        if (heap_type(o) == T_FUNCALLABLE && (in->h.flags & INST_GENERIC) && in->nslots > GF_NAME) {
            Obj name = in->slots[GF_NAME];
            if (interned_symbol(L, name) && SYM(name)->function == o) return REF_FUNCTION;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static size_t refs_slot(Refs *r, uintptr_t key) {
    size_t mask = r->cap - 1, i = (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (r->keys[i] && r->keys[i] != key) i = (i + 1) & mask;
    return i;
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) { fputs("tinycl: out of memory writing a compiled file\n", stderr); abort(); }
    return q;
}

static void refs_grow(Refs *r) {
    Refs old = *r;
    r->cap = old.cap ? old.cap * 2 : 1024;
    r->keys = (uintptr_t *)calloc(r->cap, sizeof *r->keys);
    r->vals = (long *)calloc(r->cap, sizeof *r->vals);
    if (!r->keys || !r->vals) { fputs("tinycl: out of memory writing a compiled file\n", stderr); abort(); }
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i]) {
            size_t j = refs_slot(r, old.keys[i]);
            r->keys[j] = old.keys[i];
            r->vals[j] = old.vals[i];
        }
    free(old.keys);
    free(old.vals);
}

/* The image writer's question (collector disabled: only malloc here). */
static long fasl_cut(void *ctx, uintptr_t base, size_t *size) {
    Refs *r = (Refs *)ctx;
    if ((r->count + 1) * 2 > r->cap) refs_grow(r);
    size_t i = refs_slot(r, base);
    if (r->keys[i]) {
        long k = r->vals[i];
        if (k >= 0) *size = ref_size(heap_type(r->objs[k]));
        return k;
    }
    int kind = ref_kind(r->L, (Obj)base, *size);
    long k = -1;
    if (kind) {
        if (r->n == r->objcap) {
            r->objcap = r->objcap ? r->objcap * 2 : 256;
            r->objs = (Obj *)xrealloc(r->objs, r->objcap * sizeof *r->objs);
            r->kinds = (uint8_t *)xrealloc(r->kinds, r->objcap);
        }
        k = (long)r->n;
        r->objs[r->n] = (Obj)base;
        r->kinds[r->n++] = (uint8_t)kind;
        *size = ref_size(heap_type((Obj)base));
    }
    r->keys[i] = base;
    r->vals[i] = k;
    r->count++;
    return k;
}

/* The writer's survey asks the same without numbering anything. */
static bool fasl_is_ref(void *ctx, uintptr_t base, size_t size) {
    Refs *r = (Refs *)ctx;
    if (r->cap) {
        size_t i = refs_slot(r, base);
        if (r->keys[i]) return r->vals[i] >= 0;
    }
    return ref_kind(r->L, (Obj)base, size) != 0;
}

/* ---- the reference table ---- */

typedef struct Buf { unsigned char *p; size_t len, cap; } Buf;

static void buf_put(Buf *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 256;
        b->p = (unsigned char *)xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void buf_string(Lisp *L, Buf *b, Obj str) {
    size_t n = 0;
    char *s = string_to_utf8(L, str, &n);
    uint32_t len = (uint32_t)n;
    buf_put(b, &len, 4);
    buf_put(b, s, n);
}

static uint64_t fnv(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The symbol naming reference K: itself, its function's name, its class's name. */
static Obj ref_symbol(Obj o, int kind) {
    switch (kind) {
    case REF_SYMBOL: return o;
    case REF_FUNCTION:
        if (heap_type(o) == T_PRIMITIVE) return PRIM(o)->name;
        if (heap_type(o) == T_CLOSURE) return CLOSURE(o)->name;
        return INST(o)->slots[GF_NAME];
    case REF_SETF_FUNCTION: {
        Obj name = heap_type(o) == T_PRIMITIVE ? PRIM(o)->name : CLOSURE(o)->name;
        return CAR(CDR(name));
    }
    default: return INST(o)->slots[CL_NAME];
    }
}

static void fasl_regions(Lisp *L, ImageRegion *ext) {
    ext[0] = (ImageRegion){L, sizeof *L};
    ext[1] = (ImageRegion){L->image_heap.scanned, L->image_heap.scanned ? L->image_heap.scanned_bytes : 0};
    ext[2] = (ImageRegion){L->image_heap.atomic, L->image_heap.scanned ? L->image_heap.atomic_room : 0};
}

/* The file PATH names, when the session's file rules allow the operation on it. */
static char *path_of(Lisp *L, Obj path, bool output, const char *op) {
    Obj p = pathname_merged(L, path);
    char *native = pathname_native(L, p);
    access_check(L, native, output ? ACCESS_WRITE : ACCESS_READ, op, p);
    return native;
}

/* (sys:%fasl-write path object): write OBJECT (what the compiled file's loader gets) to PATH. */
DEFPRIM(prim_pct_fasl_write) {
    UNUSED_ARGS;
    char *path = path_of(L, args[0], true, "COMPILE-FILE");
    Refs refs;
    memset(&refs, 0, sizeof refs);
    refs.L = L;
    ImageCut cut = {fasl_cut, &refs, fasl_is_ref};
    ImageRegion ext[3];
    fasl_regions(L, ext);
    uintptr_t root = (uintptr_t)args[1];
    char err[IMAGE_ERRLEN];
    size_t len = 0;
    unsigned char *img = image_write_cut(L, &root, 1, ext, 3, &cut, &len, err);
    free(refs.keys);
    free(refs.vals);
    if (!img) {
        free(refs.objs); free(refs.kinds);
        err_file(L, args[0], "Cannot write the compiled file %s: %s", path, err);
    }
    /* the referenced objects are all reachable from packages and names: the collector may run now */
    Buf table = {0};
    Obj objs = NIL;
    for (size_t i = refs.n; i-- > 0;) objs = cons(L, refs.objs[i], objs);
    size_t n = refs.n;
    uint8_t *kinds = refs.kinds;
    free(refs.objs);
    for (size_t i = 0; i < n; i++, objs = CDR(objs)) {
        Obj o = CAR(objs);
        uint8_t k[2] = {kinds[i], (uint8_t)heap_type(o)};
        buf_put(&table, k, 2);
        if (kinds[i] == REF_PACKAGE) { buf_string(L, &table, PKG(o)->name); continue; }
        Obj sym = ref_symbol(o, kinds[i]);
        buf_string(L, &table, PKG(SYM(sym)->package)->name);
        buf_string(L, &table, SYM(sym)->name);
    }
    free(kinds);
    while (table.len % 8) buf_put(&table, "", 1);
    FaslHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, FASL_MAGIC, 8);
    h.version = FASL_VERSION;
    h.nrefs = (uint32_t)n;
    h.table_bytes = table.len;
    h.image_bytes = len;
    h.table_checksum = fnv(table.p, table.len);
    /* written beside and renamed: a reader never sees half a file */
    size_t plen = strlen(path);
    char *tmp = (char *)malloc(plen + 32);
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(&h, sizeof h, 1, f) == 1 && (!table.len || fwrite(table.p, table.len, 1, f) == 1) &&
              fwrite(img, len, 1, f) == 1;
    int e = errno;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) { ok = false; e = errno; }
    if (!ok) remove(tmp);
    free(tmp);
    free(table.p);
    free(img);
    if (!ok) err_file(L, args[0], "Cannot write the compiled file %s: %s", path, strerror(e));
    return S(T);
}

/* ---- reading ---- */

/* A buffer for a compiled file's head (%fasl-read: its parts go straight into their blocks) or, for
 * %fasl-loadable-p's full check, the whole file. LOAD reads the compiled files of a system one
 * after the other: the buffer of the last one is kept for the next (per thread, up to SLURP_KEEP
 * bytes), so that each does not get fresh pages from the kernel. slurp_free gives it back. */
#define SLURP_KEEP ((size_t)32 << 20)
static _Thread_local unsigned char *slurp_kept;
static _Thread_local size_t slurp_kept_cap;

/* The SIZE bytes (fstat's) of the open file FD: *LEN those read (fewer when the file was truncated
 * meanwhile: its sizes then do not add up); NULL with errno set when it cannot be read. One read
 * call, usually. */
static unsigned char *slurp_fd(int fd, size_t size, size_t *len) {
    unsigned char *p = slurp_kept;
    size_t n = 0, cap = p ? slurp_kept_cap : 0;
    slurp_kept = NULL;
    slurp_kept_cap = 0;
    if (size + 1 > cap) {
        unsigned char *q = (unsigned char *)realloc(p, size + 1);
        if (!q) { free(p); errno = ENOMEM; return NULL; }
        p = q;
        cap = size + 1;
    }
    while (n < size) {   /* what was written meanwhile past SIZE is not read: the checksums judge the rest */
        ssize_t got = read(fd, p + n, size - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) { int e = errno; free(p); errno = e; return NULL; }
        if (got == 0) break;
        n += (size_t)got;
    }
    *len = n;
    if (cap <= SLURP_KEEP) slurp_kept_cap = cap;   /* slurp_free keeps it */
    return p;
}

static unsigned char *slurp(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *p = fstat(fd, &st) == 0 ? slurp_fd(fd, (size_t)st.st_size, len) : NULL;
    int e = errno;
    close(fd);
    errno = e;
    return p;
}

static void slurp_free(unsigned char *buf) {
    if (buf && !slurp_kept && slurp_kept_cap) slurp_kept = buf;
    else free(buf);
}

static bool take_string(const unsigned char **p, const unsigned char *end, const char **s, uint32_t *n) {
    if (end - *p < 4) return false;
    memcpy(n, *p, 4);
    *p += 4;
    if ((size_t)(end - *p) < *n) return false;
    *s = (const char *)*p;
    *p += *n;
    return true;
}

/* Why BUF cannot be loaded (NULL when it can): checked before anything is interned. */
static const char *fasl_refusal(const unsigned char *buf, size_t len, FaslHeader *hp, bool image_sum, char *err) {
    FaslHeader h;
    if (len < sizeof h || memcmp(buf, FASL_MAGIC, 8) != 0) return "it is not a tinycl compiled file";
    memcpy(&h, buf, sizeof h);
    *hp = h;
    if (h.version != FASL_VERSION) return "it was written by a tinycl of another compiled-file format";
    if (h.table_bytes > len || h.image_bytes > len || sizeof h + h.table_bytes + h.image_bytes != len)
        return "it is truncated or damaged (sizes do not add up)";
    if (fnv(buf + sizeof h, h.table_bytes) != h.table_checksum) return "it is damaged (checksum mismatch)";
    /* the image's checksum is checked again by image_read_gc, before it builds anything */
    if (!(image_sum ? image_check : image_check_header)(buf + sizeof h + h.table_bytes, h.image_bytes, err)) return err;
    return NULL;
}

/* (sys:%fasl-loadable-p path &optional full) -> T, or NIL and why not (a string): what the
 * system cache asks before it loads a compiled file instead of compiling its source again. Without
 * FULL only the headers and the size are checked (the checksum is LOAD's, which refuses a damaged
 * file before running anything). */
DEFPRIM(prim_pct_fasl_loadable_p) {
    char *path = path_of(L, args[0], false, "LOAD");
    bool full = nargs > 1 && args[1] != NIL;
    size_t len = 0;
    unsigned char *buf = NULL;
    if (full) buf = slurp(path, &len);
    else {
        FILE *f = fopen(path, "rb");
        if (f) {
            fseek(f, 0, SEEK_END);
            long size = ftell(f);
            rewind(f);
            buf = (unsigned char *)calloc(1, 8192);
            size_t got = buf ? fread(buf, 1, 8192, f) : 0;
            fclose(f);
            FaslHeader h;
            char err[IMAGE_ERRLEN];
            const char *why = NULL;
            if (got < sizeof h || memcmp(buf, FASL_MAGIC, 8) != 0) why = "it is not a tinycl compiled file";
            else {
                memcpy(&h, buf, sizeof h);
                if (h.version != FASL_VERSION) why = "it was written by a tinycl of another compiled-file format";
                else if (size < 0 || sizeof h + h.table_bytes + h.image_bytes != (uint64_t)size) why = "it is truncated or damaged";
                else if (sizeof h + h.table_bytes + 256 > got) full = true;   /* a long table: read it all */
                else if (!image_check_header(buf + sizeof h + h.table_bytes, h.image_bytes, err)) why = err;
            }
            free(buf);
            buf = NULL;
            if (!full) return why ? values2(L, NIL, string_from_cstr(L, why)) : values2(L, S(T), NIL);
            buf = slurp(path, &len);
        }
    }
    if (!buf) return values2(L, NIL, string_from_cstr(L, strerror(errno)));
    FaslHeader h;
    char err[IMAGE_ERRLEN];
    const char *why = fasl_refusal(buf, len, &h, true, err);
    Obj r = why ? values2(L, NIL, string_from_cstr(L, why)) : values2(L, S(T), NIL);
    slurp_free(buf);
    return r;
}

/* (sys:%fasl-file-p path) -> true when PATH begins as a compiled file does. */
DEFPRIM(prim_pct_fasl_file_p) {
    UNUSED_ARGS;
    char *path = path_of(L, args[0], false, "LOAD");
    FILE *f = fopen(path, "rb");
    if (!f) return NIL;
    char m[8];
    bool yes = fread(m, 8, 1, f) == 1 && memcmp(m, FASL_MAGIC, 8) == 0;
    fclose(f);
    return yes ? S(T) : NIL;
}

#define UNIVERSAL_TIME_OF_EPOCH 2208988800LL    /* as FILE-WRITE-DATE counts */
#define FASL_HEAD_READ ((size_t)16 << 10)       /* read first: the header, the table, the image's head */

/* A compiled file being read (%fasl-read): open as FD, SIZE bytes; BUF (CAP bytes, the kept
 * buffer) holds its first GOT bytes: its header, its reference table and its image's head. The
 * image's parts are read from the file straight into their blocks (image_read_gc_fd). */
typedef struct FaslRead {
    Obj pathobj;
    const char *path;
    int fd;
    size_t size, got, cap;
    unsigned char *buf;
    FaslHeader h;
    Obj pending;
    uintptr_t root;
    bool ok, named;
    char err[IMAGE_ERRLEN], real[PATH_MAX];
} FaslRead;

/* The file's first NEED bytes in R's buffer (false when it ends first). */
static bool fasl_head(FaslRead *r, size_t need) {
    if (need <= r->got) return true;
    if (need > r->size) return false;
    if (need > r->cap) {
        unsigned char *q = (unsigned char *)realloc(r->buf, need);
        if (!q) return false;
        r->buf = q;
        r->cap = need;
    }
    while (r->got < need) {
        ssize_t n = pread(r->fd, r->buf + r->got, need - r->got, (off_t)r->got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        r->got += (size_t)n;
    }
    return true;
}

/* Resolve the references (interning what must be), then rebuild the graph over them: run under an
 * unwind-protect that closes the file (an error here is a Lisp error: FIND-CLASS, the heap). */
static void fasl_build(Lisp *L, FaslRead *r) {
    FaslHeader h = r->h;
    Obj pathobj = r->pathobj;
    const char *path = r->path;
    size_t nregions = 3 + h.nrefs;
    ImageRegion *ext = (ImageRegion *)gc_alloc(L, nregions * sizeof *ext);   /* scanned: they hold objects */
    fasl_regions(L, ext);
    const unsigned char *p = r->buf + sizeof h, *end = p + h.table_bytes;
    Obj pending = NIL;
    /* the entries of a package follow one another: its name is looked up once per run of them,
     * and a symbol's name is decoded into NAMEBUF, not made a string, to be interned */
    const char *last_pn = NULL;
    uint32_t last_pl = 0;
    Obj last_pkg = NIL;
    uint32_t namebuf[256];
    for (uint32_t i = 0; i < h.nrefs; i++) {
        if (end - p < 2) err_file(L, pathobj, "Cannot load the compiled file %s: it is damaged.", path);
        int kind = p[0];
        HeapType type = (HeapType)p[1];
        p += 2;
        const char *pn, *sn = NULL;
        uint32_t pl, sl = 0;
        bool ok = take_string(&p, end, &pn, &pl) && (kind == REF_PACKAGE || take_string(&p, end, &sn, &sl));
        if (!ok) err_file(L, pathobj, "Cannot load the compiled file %s: it is damaged.", path);
        Obj pkg = last_pkg;
        if (!last_pn || pl != last_pl || memcmp(pn, last_pn, pl) != 0) {
            pkg = package_find(L, string_from_utf8(L, pn, pl));
            last_pn = pn;
            last_pl = pl;
            last_pkg = pkg;
        }
        if (pkg == NIL && kind == REF_SYMBOL) {
            Obj pname = string_from_utf8(L, pn, pl);
            /* a package the file itself makes (its DEFPACKAGE runs first): a stand-in until then */
            Obj sname = string_from_utf8(L, sn, sl);
            Obj stand_in = symbol_new(L, sname);
            pending = cons(L, cons(L, stand_in, cons(L, pname, sname)), pending);
            ext[3 + i] = (ImageRegion){stand_in, ref_size(type)};
            continue;
        }
        if (pkg == NIL)
            err_file(L, pathobj, "Cannot load the compiled file %s: it needs the package %S, which does not exist.", path,
                     string_from_utf8(L, pn, pl));
        Obj o = pkg;
        if (kind != REF_PACKAGE) {
            int status;
            Obj sym;
            size_t n = 0;
            bool ascii = sl <= sizeof namebuf / sizeof *namebuf;
            for (uint32_t k = 0; ascii && k < sl; k++) {
                if ((unsigned char)sn[k] >= 0x80) ascii = false;
                else namebuf[n++] = (unsigned char)sn[k];
            }
            if (ascii) sym = package_intern(L, pkg, namebuf, n, &status);
            else {
                Obj sname = string_from_utf8(L, sn, sl);
                sym = package_intern(L, pkg, STR(sname)->data, STR(sname)->len, &status);
            }
            o = sym;
            if (kind == REF_FUNCTION) o = SYM(sym)->function;
            else if (kind == REF_SETF_FUNCTION) o = SYM(sym)->setf_function;
            else if (kind == REF_CLASS) o = funcall1(L, intern_cstr(L, L->pkg_cl, "FIND-CLASS"), sym);
            if (!is_heap(o) || heap_type(o) != type)
                err_file(L, pathobj, "Cannot load the compiled file %s: it refers to the %s of %S, which is not what it was when the file was compiled.",
                         path, kind == REF_CLASS ? "class" : "function", sym);
        }
        ext[3 + i] = (ImageRegion){o, ref_size(type)};
    }
    r->pending = pending;
    size_t at = sizeof h + h.table_bytes;
    r->ok = image_read_gc_fd(L, r->fd, at, h.image_bytes, r->buf + at, r->got - at, &r->root, 1, ext, nregions, r->err);
    r->named = r->ok && truename_of_fd(r->fd, path, r->real);
}

/* (sys:%fasl-read path &optional not-before) -> the object the file was written with, every
 * reference resolved, the stand-ins pending (see %fasl-resolve) and the file's truename; a
 * FILE-ERROR saying why when the file is damaged or from another build. With NOT-BEFORE (a
 * universal time: its source's write date), the system loader's question: NIL and why, instead of
 * an error, when the file is missing or unreadable, older than NOT-BEFORE, or refused as damaged,
 * truncated or foreign, so that the loader compiles the source again; nothing of the file has run
 * then. The file is opened once: its date, size, truename and contents all come from that, and
 * its image's parts are read straight into the blocks they live in. */
DEFPRIM(prim_pct_fasl_read) {
    Obj pathobj = args[0];
    bool cached = nargs > 1 && args[1] != NIL;
    if (cached && !is_fixnum(args[1])) err_type(L, args[1], S(INTEGER));
    char *path = path_of(L, pathobj, false, "LOAD");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int e = 0;
    if (fd < 0 || fstat(fd, &st) != 0) e = errno;
    else if (!S_ISREG(st.st_mode)) e = EISDIR;
    if (e) {
        if (fd >= 0) close(fd);
        if (cached) return values2(L, NIL, string_from_cstr(L, strerror(e)));
        err_file(L, pathobj, "Cannot read the compiled file %s: %s", path, strerror(e));
    }
    if (cached && (long long)st.st_mtime + UNIVERSAL_TIME_OF_EPOCH < (long long)fixnum_val(args[1])) {
        close(fd);
        return values2(L, NIL, string_from_cstr(L, "it is older than its source"));
    }
    FaslRead r;
    memset(&r, 0, sizeof r);
    r.pathobj = pathobj;
    r.path = path;
    r.fd = fd;
    r.size = (size_t)st.st_size;
    r.buf = slurp_kept;
    r.cap = slurp_kept ? slurp_kept_cap : 0;
    slurp_kept = NULL;
    slurp_kept_cap = 0;
    /* the head: what the checks and the interning read (a table longer than the first read: more) */
    bool whole = fasl_head(&r, r.size < FASL_HEAD_READ ? r.size : FASL_HEAD_READ);
    if (whole && r.got >= sizeof r.h && memcmp(r.buf, FASL_MAGIC, 8) == 0) {
        memcpy(&r.h, r.buf, sizeof r.h);
        uint64_t image_at = sizeof r.h + r.h.table_bytes;
        if (r.h.table_bytes <= r.size && r.h.image_bytes <= r.size && image_at + r.h.image_bytes == r.size) {
            whole = fasl_head(&r, (size_t)image_at + 256 < r.size ? (size_t)image_at + 256 : r.size);
            if (whole && r.got >= image_at)
                whole = fasl_head(&r, (size_t)image_at + image_head_bytes(r.buf + image_at, r.got - (size_t)image_at));
        }
    }
    const char *why = whole ? fasl_refusal(r.buf, r.size, &r.h, false, r.err) : "it is truncated or damaged (sizes do not add up)";
    if (why) {
        close(fd);
        if (r.cap <= SLURP_KEEP) { slurp_kept_cap = r.cap; slurp_free(r.buf); } else free(r.buf);
        if (cached) return values2(L, NIL, string_from_cstr(L, why));
        err_file(L, pathobj, "Cannot load the compiled file %s: %s; compile its source again.", path, why);
    }
    Frame guard;
    LISP_UNWIND_PROTECT_BEGIN(L, &guard)
        fasl_build(L, &r);
    LISP_UNWIND_PROTECT_EXIT
        close(fd);
        if (r.cap <= SLURP_KEEP) { slurp_kept_cap = r.cap; slurp_free(r.buf); } else free(r.buf);
    LISP_UNWIND_PROTECT_END
    if (!r.ok && strstr(r.err, "external regions"))
        snprintf(r.err, sizeof r.err, "it was written by a tinycl that booted another way (from its boot image or from the sources)");
    if (!r.ok && cached) return values2(L, NIL, string_from_cstr(L, r.err));
    if (!r.ok) err_file(L, pathobj, "Cannot load the compiled file %s: %s; compile its source again.", path, r.err);
    return values3(L, (Obj)r.root, r.pending, r.named ? pathname_from_native(L, r.real, false) : NIL);
}

/* (sys:%fasl-resolve items pending) -> the stand-ins still pending: each whose package exists now
 * is replaced, in every word of the loaded file's block (ITEMS is in it), by the symbol it stands for. */
DEFPRIM(prim_pct_fasl_resolve) {
    UNUSED_ARGS;
    Obj left = NIL;
    uintptr_t *block = (uintptr_t *)GC_base((void *)args[0]);
    size_t nwords = block ? GC_size(block) / sizeof *block : 0;
    for (Obj l = args[1]; is_cons(l); l = CDR(l)) {
        Obj e = CAR(l), stand_in = CAR(e), pname = CAR(CDR(e)), sname = CDR(CDR(e));
        Obj pkg = package_find(L, pname);
        if (pkg == NIL) { left = cons(L, e, left); continue; }
        int status;
        Obj sym = package_intern(L, pkg, STR(sname)->data, STR(sname)->len, &status);
        for (size_t i = 0; i < nwords; i++)
            if (block[i] == (uintptr_t)stand_in) block[i] = (uintptr_t)sym;
    }
    return left;
}

const PrimDef fasl_prims[] = {
    {"%FASL-WRITE", PK_SYS, prim_pct_fasl_write, 2, 2, 0, "(path object)", NULL},
    {"%FASL-READ", PK_SYS, prim_pct_fasl_read, 1, 2, FN_MV, "(path &optional not-before)", NULL},
    {"%FASL-RESOLVE", PK_SYS, prim_pct_fasl_resolve, 2, 2, 0, "(items pending)", NULL},
    {"%FASL-LOADABLE-P", PK_SYS, prim_pct_fasl_loadable_p, 1, 2, FN_MV, "(path &optional full)", NULL},
    {"%FASL-FILE-P", PK_SYS, prim_pct_fasl_file_p, 1, 1, 0, "(path)", NULL},
    {0},
};

void fasl_init(Lisp *L) { prims_register(L, fasl_prims); }
