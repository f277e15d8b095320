/* test_image_cold.c: images laid out hot first with their other pages compressed (image_write_layout,
 * runtime/imagecold.c): the pages themselves, round trips copied and mapped from a file (each cold
 * page inflated on its first touch, written and collected like the others), damaged pages refused,
 * and the inflater leaving no pointer behind for the collector to find; the file of the pages
 * inflated (imagepages.h): written, checked, refused when damaged, mapped, written to and
 * collected, and cut short under the mapping. */
#include "unit.h"
#include "image.h"
#include "imagecold.h"
#include "gcdirty.h"
#include "imagepages.h"
#include "eval.h"
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gc/gc.h>

/* A graph of many pages: every kind of object, shared and circular structure, strings. */
static const char *graph_code =
    "(let* ((x (list 1 2)) (c (list 1 2 3)) (v (vector 0 x))"
    "       (strings (loop for i below 3000 collect (format nil \"string number ~d\" i))))"
    "  (setf (cdr (cddr c)) c) (setf (svref v 0) v)"
    "  (list x x c v (expt 3 100) -7/3 2.5d0 #c(1 2) \"héllo\" #*10110 (make-array '(2 3) :initial-element 7)"
    "        (make-hash-table) 'image-cold-sym strings))";

/* Its root written hot first, with the root cons the only hot block. */
static unsigned char *write_layout(Lisp *L, Obj root, size_t *len) {
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {WORD(root)}, hot[1] = {WORD(CONS(root))};
    ImageRegion ext[1] = {{L, sizeof *L}};
    unsigned char *img = image_write_layout(L, roots, 1, ext, 1, hot, 1, len, err);
    ck_assert_msg(img != NULL, "image_write_layout: %s", err);
    return img;
}

static Obj nth(Obj list, int n) {
    while (n-- > 0) list = CDR(list);
    return CAR(list);
}

static bool equalp_obj(Lisp *L, Obj a, Obj b) {
    return funcall2(L, intern_cstr(L, L->pkg_cl, "EQUALP"), a, b) != NIL;
}

/* What a copy must be: EQUALP to the original, element by element, sharing and cycles kept. */
static void check_copy(Lisp *L, Obj orig, Obj copy) {
    ck_assert(copy != orig);
    Obj a = orig, b = copy;
    for (int n = 0; a != NIL; a = CDR(a), b = CDR(b), n++) {
        ck_assert_msg(is_cons(b), "element %d: the copy's list is shorter", n);
        if (n == 2 || n == 3 || n == 12) continue;   /* the circular list and vector, the symbol (a copy): below */
        ck_assert_msg(equalp_obj(L, CAR(a), CAR(b)), "element %d differs", n);
    }
    Obj x1 = CAR(copy), x2 = CAR(CDR(copy)), c = CAR(CDR(CDR(copy))), v = CAR(CDR(CDR(CDR(copy))));
    ck_assert(x1 == x2 && x1 != CAR(orig));
    ck_assert(CDR(CDR(CDR(c))) == c);
    ck_assert(VEC(v)->data[0] == v && VEC(v)->data[1] == x1);
    Obj sym = nth(copy, 12);
    ck_assert(is_type(sym, T_SYMBOL));
    ck_assert_str_eq(string_to_utf8(L, SYM(sym)->name, NULL), "IMAGE-COLD-SYM");
    Obj last = nth(copy, 13);
    ck_assert_str_eq(string_to_utf8(L, CAR(last), NULL), "string number 0");
}

/* An image written to a temporary file and read back mapped from it, as the executable's is. */
typedef struct {
    char path[32];
    int fd;
    const unsigned char *buf;
    size_t len;
    uintptr_t back[1];     /* the root, read back */
    ImageHeap heap;
} MappedImage;

static void map_image(Lisp *L, unsigned char *img, size_t len, MappedImage *m) {
    strcpy(m->path, "/tmp/tinycl-cold-XXXXXX");
    m->fd = mkstemp(m->path);
    ck_assert_int_ge(m->fd, 0);
    ck_assert_uint_eq((size_t)write(m->fd, img, len), len);
    free(img);
    m->len = len;
    m->buf = (const unsigned char *)mmap(NULL, len, PROT_READ, MAP_PRIVATE, m->fd, 0);
    ck_assert(m->buf != MAP_FAILED);
    char err[IMAGE_ERRLEN] = "";
    ImageRegion ext[1] = {{L, sizeof *L}};
    m->back[0] = 0;
    ck_assert_msg(image_read_file(L, m->buf, len, m->fd, 0, m->back, 1, ext, 1, &m->heap, err),
                  "image_read_file: %s", err);
}

static void unmap_image(MappedImage *m) {
    image_release(&m->heap);
    munmap((void *)m->buf, m->len);
    close(m->fd);
    unlink(m->path);
}

/* A few collections, with garbage made before each. */
static void collect_a_few(Lisp *L) {
    for (int i = 0; i < 3; i++) {
        unit_eval(L, "(length (make-list 100000))");
        GC_gcollect();
    }
}

/* A fresh string stored into the Nth cell of the read-back graph's string list survives
 * collections, and the cell after it is untouched. */
static void check_write_survives(Lisp *L, Obj root, int n, const char *make, const char *want) {
    Obj cell = nth(root, 13);
    for (int i = 0; i < n; i++) cell = CDR(cell);
    CAR(cell) = unit_eval(L, make);
    collect_a_few(L);
    ck_assert_str_eq(string_to_utf8(L, CAR(cell), NULL), want);
    char next[40];
    snprintf(next, sizeof next, "string number %d", n + 1);
    ck_assert_str_eq(string_to_utf8(L, CAR(CDR(cell)), NULL), next);
}

/* A page compressed and inflated is the page; a damaged or short one does not inflate. */
START_TEST(pages_deflate_and_inflate) {
    unsigned char page[IMAGECOLD_PAGE], back[IMAGECOLD_PAGE];
    for (size_t i = 0; i < sizeof page; i++) page[i] = (unsigned char)(i % 7 == 0 ? i * 31 : 0);
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    ck_assert(imagecold_deflate(page, &buf, &len, &cap));
    ck_assert(len > 0 && len < IMAGECOLD_PAGE);
    ck_assert(imagecold_inflate(buf, len, back));
    ck_assert(memcmp(page, back, sizeof page) == 0);
    ck_assert(!imagecold_inflate(buf, len / 2, back));
    buf[len / 2] ^= 0x55;
    bool same = imagecold_inflate(buf, len, back) && memcmp(page, back, sizeof page) == 0;
    ck_assert(!same);
    free(buf);
}
END_TEST

/* Pages packed together share a dictionary trained on them, stored before the first page's data:
 * each page comes back as it was, and the pages take fewer bytes than compressed alone; with a
 * byte of the dictionary changed, they do not all come back. */
typedef struct Pages { unsigned char *base; } Pages;
static unsigned char *page_in(void *arg, size_t k) { return ((Pages *)arg)->base + k * IMAGECOLD_PAGE; }

START_TEST(pages_packed_with_a_dictionary) {
    enum { N = 200 };
    unsigned char *src = (unsigned char *)malloc(N * IMAGECOLD_PAGE), *back = (unsigned char *)malloc(N * IMAGECOLD_PAGE);
    const unsigned char *pages[N];
    /* pages made of 64-byte pieces from a common stock of 256, as a heap's pages repeat the same
     * shapes of objects: a page alone holds few repeats, the dictionary learns the stock */
    static unsigned char stock[256][64];
    uint32_t state = 7;
    for (size_t i = 0; i < sizeof stock; i++) {
        state = state * 1103515245u + 12345u;
        stock[i / 64][i % 64] = (unsigned char)(state >> 16);
    }
    for (size_t k = 0; k < N; k++) {
        unsigned char *p = src + k * IMAGECOLD_PAGE;
        for (size_t i = 0; i < IMAGECOLD_PAGE; i += 64) {
            state = state * 1103515245u + 12345u;
            memcpy(p + i, stock[(state >> 16) & 255], 64);
        }
        pages[k] = p;
    }
    unsigned char *buf = NULL, *alone = NULL;
    size_t len = 0, alone_len = 0, cap = 0;
    uint32_t offs[N + 1];
    ck_assert(imagecold_pack(pages, N, &buf, &len, offs));
    ck_assert_msg(offs[0] > 0, "no dictionary");
    ck_assert_uint_eq(offs[N], len);
    for (size_t k = 0; k < N; k++) ck_assert(imagecold_deflate(pages[k], &alone, &alone_len, &cap));
    ck_assert_msg(len < alone_len, "packed %zu bytes, alone %zu", len, alone_len);
    Pages to = {back};
    ck_assert(imagecold_unpack(buf, offs, N, page_in, &to));
    ck_assert(memcmp(src, back, N * IMAGECOLD_PAGE) == 0);
    buf[offs[0] / 2] ^= 0x5a;       /* a byte of the dictionary's content */
    bool same = imagecold_unpack(buf, offs, N, page_in, &to) && memcmp(src, back, N * IMAGECOLD_PAGE) == 0;
    ck_assert(!same);
    buf[offs[0] / 2] ^= 0x5a;
    buf[3] ^= 0xff;                 /* its header */
    same = imagecold_unpack(buf, offs, N, page_in, &to) && memcmp(src, back, N * IMAGECOLD_PAGE) == 0;
    ck_assert(!same);
    /* a few pages: no dictionary */
    ck_assert(imagecold_pack(pages, 3, &alone, &alone_len, offs));
    ck_assert_uint_eq(offs[0], 0);
    ck_assert(imagecold_unpack(alone, offs, 3, page_in, &to));
    ck_assert(memcmp(src, back, 3 * IMAGECOLD_PAGE) == 0);
    free(alone);
    free(buf);
    free(src);
    free(back);
}
END_TEST

/* The executable's static memory, .data to the end of .bss: the collector scans it as a root
 * (its DATASTART and DATAEND on Linux), and the inflater's state lives there. */
extern char __data_start[], _end[];

/* Whether a word of that memory points into LO..HI, both included (a pointer just past a block is
 * one into the next). Read whole, the sanitizer's redzones between globals included. */
__attribute__((no_sanitize_address)) static bool static_word_into(const void *lo, const void *hi) {
    const uintptr_t *w = (const uintptr_t *)(((uintptr_t)__data_start + 7) & ~(uintptr_t)7);
    for (; (const char *)(w + 1) <= _end; w++)
        if (*w >= (uintptr_t)lo && *w <= (uintptr_t)hi) return true;
    return false;
}

/* An inflated page leaves no pointer to itself, past its end or into its source in static memory:
 * the address past the page is often the first byte of the next mapping (the collector's newest
 * heap section), and such a word kept an 800 MB array alive after its last use. */
START_TEST(inflating_leaves_no_root) {
    unsigned char page[IMAGECOLD_PAGE];
    for (size_t i = 0; i < sizeof page; i++) page[i] = (unsigned char)(i % 5 == 0 ? i * 13 : 0);
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    ck_assert(imagecold_deflate(page, &buf, &len, &cap));
    /* three pages, the page inflated into the first: the words looked for (the page, the byte past
     * it and the page after) all fall inside this mapping, never on the start of the next one,
     * which static memory may rightly point at */
    unsigned char *three = (unsigned char *)mmap(NULL, 3 * IMAGECOLD_PAGE, PROT_READ | PROT_WRITE,
                                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(three != MAP_FAILED);
    ck_assert(imagecold_inflate(buf, len, three));
    ck_assert(memcmp(page, three, sizeof page) == 0);
    ck_assert_msg(!static_word_into(three, three + 2 * IMAGECOLD_PAGE), "static memory points at the inflated page or past it");
    ck_assert_msg(!static_word_into(buf, buf + len), "static memory points into the compressed page");
    munmap(three, 3 * IMAGECOLD_PAGE);
    free(buf);
}
END_TEST

/* Copied into memory (image_read), every cold page is inflated where it belongs. */
START_TEST(layout_round_trips_copied) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0, plain_len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    size_t at, bytes, pages;
    ck_assert(image_cold_section(img, len, &at, &bytes, &pages));
    ck_assert_msg(pages > 10, "only %zu cold pages", pages);
    char err[IMAGE_ERRLEN] = "";
    uintptr_t roots[1] = {WORD(orig)};
    ImageRegion ext[1] = {{L, sizeof *L}};
    unsigned char *plain = image_write(L, roots, 1, ext, 1, &plain_len, err);
    ck_assert(plain != NULL);
    ck_assert_msg(len * 2 < plain_len, "compressed %zu bytes, plain %zu", len, plain_len);
    free(plain);
    uintptr_t back[1] = {0};
    ck_assert_msg(image_read(L, img, len, back, 1, ext, 1, NULL, err), "image_read: %s", err);
    check_copy(L, orig, OBJ(back[0]));
    /* and written again from the copy, it reads back the same */
    free(img);
}
END_TEST

/* Mapped from a file at the address it was written for, a cold page comes when first touched; it
 * can be written, and what is stored there survives collections (the collector tracks it). */
START_TEST(layout_mapped_lazily) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    ck_assert_msg(m.heap.fixed, "the image was not mapped at its address");
    bool lazy = gcdirty_usable();
    size_t before = imagecold_inflated();
    check_copy(L, orig, OBJ(m.back[0]));
    if (lazy) ck_assert_msg(imagecold_inflated() > before, "no cold page was inflated");
    /* a fresh object stored into a cold page, then collections: it stays */
    check_write_survives(L, OBJ(m.back[0]), 2500, "(make-string 5 :initial-element #\\z)", "zzzzz");
    unmap_image(&m);
}
END_TEST

/* Past the first pages, a fault brings in the run of pages around the one touched, inflated aside
 * in one mapping (TINYCL_IMAGE_COLD_RUN fixes the run: here longer than the image); every page is
 * then equal to its source, and a write to one survives collections. */
START_TEST(runs_inflated_together) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0, at, bytes, pages;
    unsigned char *img = write_layout(L, orig, &len);
    ck_assert(image_cold_section(img, len, &at, &bytes, &pages));
    MappedImage m;
    setenv("TINYCL_IMAGE_COLD_RUN", "100000", 1);
    map_image(L, img, len, &m);
    unsetenv("TINYCL_IMAGE_COLD_RUN");
    if (gcdirty_usable()) {
        /* the root cons is hot; five strings of the list touch a few pages a page at a time */
        size_t before = imagecold_inflated();
        Obj s = nth(OBJ(m.back[0]), 13);
        for (int i = 0; i < 5; i++) s = CDR(s);
        ck_assert_str_eq(string_to_utf8(L, CAR(s), NULL), "string number 5");
        ck_assert_msg(imagecold_inflated() - before > 50, "one touch inflated %zu of %zu pages",
                      imagecold_inflated() - before, pages);
    }
    check_copy(L, orig, OBJ(m.back[0]));
    check_write_survives(L, OBJ(m.back[0]), 1500, "(make-string 3 :initial-element #\\q)", "qqq");
    unmap_image(&m);
}
END_TEST

/* Stored where nothing else refers to it (not left in this function's frame). */
static __attribute__((noinline)) void store_fresh(Lisp *L, Obj cell) {
    CAR(cell) = unit_eval(L, "(make-string 7 :initial-element #\\h)");
}

/* Mapped from a file, the hot part is protected only at the first collection (gcdirty.h,
 * gcdirty_track_mapped): a write before it takes no fault, and what it stored is found then from
 * the kernel's record of the written pages, and survives; a write after it faults once. */
START_TEST(hot_part_protected_at_first_collection) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    ImageHeap *heap = &m.heap;
    ck_assert(heap->fixed);
    if (gcdirty_usable()) {
        Obj root = OBJ(m.back[0]);    /* the root cons: the hot part */
        ck_assert((char *)CONS(root) >= heap->scanned && (char *)CONS(root) < heap->scanned + heap->scanned_raw);
        ck_assert_msg(!gcdirty_armed(heap->scanned), "protected before any collection");
        size_t faults = gcdirty_faults();
        store_fresh(L, root);
        ck_assert_uint_eq(gcdirty_faults(), faults);
        collect_a_few(L);
        ck_assert(gcdirty_armed(heap->scanned));
        ck_assert_str_eq(string_to_utf8(L, CAR(root), NULL), "hhhhhhh");
        size_t total = 0;
        ck_assert_uint_ge(gcdirty_pages(heap->scanned, &total), 1);
        /* protected now: the next write to a page not written yet faults (the first cold page's) */
        faults = gcdirty_faults();
        Obj strings = nth(root, 13);
        for (int i = 0; i < 2900; i++) strings = CDR(strings);
        store_fresh(L, strings);
        ck_assert_uint_gt(gcdirty_faults(), faults);
    }
    unmap_image(&m);
}
END_TEST

/* A cold page that does not inflate, or an index out of order, is refused before anything is
 * built, with a message that says so, even when the checksum agrees. */
START_TEST(damaged_cold_pages_refused) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0, at, bytes, pages;
    unsigned char *img = write_layout(L, orig, &len);
    ck_assert(image_cold_section(img, len, &at, &bytes, &pages));
    char err[IMAGE_ERRLEN] = "";
    uintptr_t back[1] = {0xDEAD};
    ImageRegion ext[1] = {{L, sizeof *L}};
    /* the data of the first page damaged */
    size_t data = at + (pages + 1) * 4;
    uint32_t second;
    memcpy(&second, img + at + 4, 4);
    for (size_t i = 0; i < second; i++) img[data + i] ^= 0xA5;
    image_seal(img, len);
    ck_assert(!image_read(L, img, len, back, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "inflate") != NULL, "%s", err);
    ck_assert(back[0] == 0xDEAD);
    for (size_t i = 0; i < second; i++) img[data + i] ^= 0xA5;
    /* the index out of order */
    uint32_t big = (uint32_t)bytes;
    memcpy(img + at + 4, &big, 4);
    image_seal(img, len);
    ck_assert(!image_read(L, img, len, back, 1, ext, 1, NULL, err));
    ck_assert_msg(strstr(err, "compressed pages") != NULL, "%s", err);
    ck_assert(back[0] == 0xDEAD);
    memcpy(img + at + 4, &second, 4);
    image_seal(img, len);
    /* undamaged, it loads */
    ck_assert_msg(image_read(L, img, len, back, 1, ext, 1, NULL, err), "%s", err);
    check_copy(L, orig, OBJ(back[0]));
    free(img);
}
END_TEST

/* ---- the file of the cold pages inflated (imagepages.h) ---- */

/* A fresh directory for the files. */
static void temp_dir(char *dir) {
    strcpy(dir, "/tmp/tinycl-pages-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert(d != NULL);
    char path[512];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The path of the file of image M in DIR. */
static void pages_path(const MappedImage *m, const char *dir, char *path, size_t n) {
    char name[IMAGEPAGES_NAMELEN];
    ck_assert(imagepages_name(m->buf, m->len, name));
    snprintf(path, n, "%s/%s", dir, name);
}

static bool file_valid(const MappedImage *m, const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    bool ok = imagepages_valid(m->buf, m->len, fd);
    close(fd);
    return ok;
}

/* Flip a byte of the file at OFF. */
static void flip_byte(const char *path, off_t off) {
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    unsigned char b;
    ck_assert_int_eq(pread(fd, &b, 1, off), 1);
    b ^= 0x40;
    ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
    close(fd);
}

/* The pages of M not there yet. */
static size_t imagecold_absent_of(const MappedImage *m) {
    const uint32_t *offs;
    const unsigned char *data;
    size_t pages;
    uint64_t sum;
    ck_assert(image_cold_pages(m->buf, m->len, &offs, &data, &pages, &sum));
    return imagecold_absent(data);
}

/* The first process writes the file and maps every page not there yet from it; the pages read
 * as the graph written, none is inflated, and a second use finds nothing left to map. */
START_TEST(pages_file_written_then_mapped) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    char dir[64], path[128];
    temp_dir(dir);
    if (gcdirty_usable()) {
        size_t at, bytes, pages, mapped = 0;
        ck_assert(image_cold_section(m.buf, m.len, &at, &bytes, &pages));
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, false, &mapped), IMAGEPAGES_NONE);   /* none, and may not write */
        ck_assert_uint_eq(mapped, 0);
        size_t absent = imagecold_absent_of(&m);
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, true, &mapped), IMAGEPAGES_WRITTEN);
        ck_assert_uint_eq(mapped, absent);
        ck_assert_msg(absent + 64 > pages, "%zu of %zu pages absent", absent, pages);
        pages_path(&m, dir, path, sizeof path);
        ck_assert(file_valid(&m, path));
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq((size_t)st.st_size, (pages + 1) * IMAGECOLD_PAGE);
        size_t inflated = imagecold_inflated();
        check_copy(L, orig, OBJ(m.back[0]));
        ck_assert_uint_eq(imagecold_inflated(), inflated);
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, true, &mapped), IMAGEPAGES_NONE);
        ck_assert_uint_eq(mapped, 0);
    }
    unmap_image(&m);
    /* mapped again (another interpreter): the same file, found valid, is used */
    img = write_layout(L, orig, &len);
    map_image(L, img, len, &m);
    if (gcdirty_usable()) {
        size_t mapped = 0;
        Obj s = nth(OBJ(m.back[0]), 13);       /* a page inflated before: it stays */
        ck_assert_str_eq(string_to_utf8(L, CAR(s), NULL), "string number 0");
        ImagePagesResult r = imagepages_use(m.buf, m.len, dir, true, &mapped);
        ck_assert_msg(r == IMAGEPAGES_MAPPED || r == IMAGEPAGES_WRITTEN, "result %d", (int)r);
        ck_assert(mapped > 0);
        check_copy(L, orig, OBJ(m.back[0]));
    }
    unmap_image(&m);
    remove_dir(dir);
}
END_TEST

/* A file cut short, with a byte of a page or of its header changed, of another image, or a
 * symbolic link, is not valid; used, it is written again, and the image reads as it was written. */
START_TEST(pages_file_damaged_refused_and_rewritten) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    char dir[64], path[128], other[160];
    temp_dir(dir);
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dirfd, 0);
    int fd = imagepages_write(m.buf, m.len, dirfd);
    ck_assert_int_ge(fd, 0);
    ck_assert(imagepages_valid(m.buf, m.len, fd));
    close(fd);
    pages_path(&m, dir, path, sizeof path);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    /* a byte of a page, then of the header's page count */
    flip_byte(path, st.st_size - 100);
    ck_assert(!file_valid(&m, path));
    flip_byte(path, st.st_size - 100);
    ck_assert(file_valid(&m, path));
    flip_byte(path, 16);
    ck_assert(!file_valid(&m, path));
    flip_byte(path, 16);
    /* cut short by a page */
    ck_assert_int_eq(truncate(path, st.st_size - IMAGECOLD_PAGE), 0);
    ck_assert(!file_valid(&m, path));
    /* the file of another image under this one's name */
    Obj other_graph = unit_eval(L, "(loop for i below 2000 collect (format nil \"other ~d\" i))");
    size_t olen = 0;
    unsigned char *oimg = write_layout(L, other_graph, &olen);
    int ofd = imagepages_write(oimg, olen, dirfd);
    ck_assert_int_ge(ofd, 0);
    close(ofd);
    char oname[IMAGEPAGES_NAMELEN];
    ck_assert(imagepages_name(oimg, olen, oname));
    snprintf(other, sizeof other, "%s/%s", dir, oname);
    ck_assert_int_eq(access(path, F_OK), -1);        /* writing it removed this image's file */
    ck_assert_int_eq(rename(other, path), 0);
    ck_assert(!file_valid(&m, path));
    if (gcdirty_usable()) {
        /* used: written again, valid, and the pages are the image's */
        size_t mapped = 0;
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, true, &mapped), IMAGEPAGES_WRITTEN);
        ck_assert(file_valid(&m, path));
        size_t inflated = imagecold_inflated();
        check_copy(L, orig, OBJ(m.back[0]));
        ck_assert_uint_eq(imagecold_inflated(), inflated);
    }
    /* a symbolic link to a valid file is not followed */
    char link[160];
    snprintf(link, sizeof link, "%s/elsewhere", dir);
    ck_assert_int_eq(rename(path, link), 0);
    ck_assert_int_eq(symlink(link, path), 0);
    int lfd = open(path, O_RDONLY | O_NOFOLLOW);
    ck_assert_int_lt(lfd, 0);
    free(oimg);
    close(dirfd);
    unmap_image(&m);
    remove_dir(dir);
}
END_TEST

/* Writing the file removes the files of other images in the directory, and nothing else. */
START_TEST(pages_file_removes_other_images) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    char dir[64], path[160];
    temp_dir(dir);
    const char *names[] = {"image-0123456789abcdef.pages", "image-0123456789abcdef.pages.1.2.3.tmp", "keep.fasl",
                           "image-notes.txt"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    int fd = imagepages_write(img, len, dirfd);
    ck_assert_int_ge(fd, 0);
    close(fd);
    close(dirfd);
    bool want[] = {false, true, true, true};    /* a writer's temporary file is left for an hour */
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ck_assert_msg((access(path, F_OK) == 0) == want[i], "%s", names[i]);
    }
    free(img);
    remove_dir(dir);
}
END_TEST

/* A cold page mapped from the file is tracked by the collector as an inflated one: a fresh object
 * stored there survives collections, and the write took the tracker's fault. */
START_TEST(pages_mapped_written_and_collected) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    char dir[64];
    temp_dir(dir);
    if (gcdirty_usable()) {
        size_t mapped = 0;
        collect_a_few(L);                           /* the region armed: writes fault from here */
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, true, &mapped), IMAGEPAGES_WRITTEN);
        ck_assert(mapped > 0);
        size_t inflated = imagecold_inflated(), faults = gcdirty_faults();
        Obj cell = nth(OBJ(m.back[0]), 13);
        for (int i = 0; i < 2700; i++) cell = CDR(cell);
        ck_assert((char *)CONS(cell) >= m.heap.scanned + m.heap.scanned_raw);   /* a cold page */
        store_fresh(L, cell);
        ck_assert_uint_gt(gcdirty_faults(), faults);
        collect_a_few(L);
        ck_assert_str_eq(string_to_utf8(L, CAR(cell), NULL), "hhhhhhh");
        ck_assert_str_eq(string_to_utf8(L, CAR(CDR(cell)), NULL), "string number 2701");
        check_write_survives(L, OBJ(m.back[0]), 2800, "(make-string 4 :initial-element #\\k)", "kkkk");
        ck_assert_uint_eq(imagecold_inflated(), inflated);
    }
    unmap_image(&m);
    remove_dir(dir);
}
END_TEST

/* The file cut short after its pages were mapped: a page it no longer holds faults with SIGBUS,
 * and is inflated from the image instead; the process goes on, and the graph reads as written. */
START_TEST(pages_file_truncated_under_the_mapping) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    char dir[64], path[128];
    temp_dir(dir);
    if (gcdirty_usable()) {
        size_t mapped = 0;
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, true, &mapped), IMAGEPAGES_WRITTEN);
        pages_path(&m, dir, path, sizeof path);
        ck_assert_int_eq(truncate(path, IMAGECOLD_PAGE), 0);
        size_t inflated = imagecold_inflated(), from_file = imagecold_from_file();
        check_copy(L, orig, OBJ(m.back[0]));
        ck_assert_msg(imagecold_inflated() > inflated, "no page was inflated after the file was cut short");
        ck_assert_uint_lt(imagecold_from_file(), from_file);
        check_write_survives(L, OBJ(m.back[0]), 2600, "(make-string 2 :initial-element #\\t)", "tt");
    }
    unmap_image(&m);
    remove_dir(dir);
}
END_TEST

/* Threads reading the cold pages while they are mapped from the file: each page reads whole and
 * as written, before (inflated on the fault), during and after (the file's). */
typedef struct Reader {
    const unsigned char *lo, *want;   /* the cold pages of the scanned part, and what they hold */
    size_t pages, stride, bad, rounds;
    _Atomic bool *stop;
    unsigned char *seen_bad;          /* a byte per page: read otherwise once */
} Reader;

static void *read_pages(void *arg) {
    Reader *r = (Reader *)arg;
    while (!atomic_load(r->stop) || r->rounds < 3) {
        for (size_t i = 0; i < r->pages; i++) {
            size_t k = (i * r->stride) % r->pages;
            if (memcmp(r->lo + k * IMAGECOLD_PAGE, r->want + k * IMAGECOLD_PAGE, IMAGECOLD_PAGE) != 0) r->seen_bad[k] = 1;
        }
        r->rounds++;
    }
    return NULL;
}

START_TEST(pages_mapped_while_threads_read) {
    Lisp *L = unit_shared_lisp();
    Obj orig = unit_eval(L, graph_code);
    size_t len = 0;
    unsigned char *img = write_layout(L, orig, &len);
    MappedImage m;
    map_image(L, img, len, &m);
    char dir[64], path[128];
    temp_dir(dir);
    if (gcdirty_usable()) {
        int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
        int fd = imagepages_write(m.buf, m.len, dirfd);
        ck_assert_int_ge(fd, 0);
        close(dirfd);
        size_t hot = (m.heap.scanned_raw + IMAGECOLD_PAGE - 1) / IMAGECOLD_PAGE * IMAGECOLD_PAGE;
        size_t pages = (m.heap.scanned_room - hot) / IMAGECOLD_PAGE;
        ck_assert(pages > 100);
        unsigned char *want = (unsigned char *)malloc(pages * IMAGECOLD_PAGE);
        ck_assert_int_eq(pread(fd, want, pages * IMAGECOLD_PAGE, IMAGECOLD_PAGE), (ssize_t)(pages * IMAGECOLD_PAGE));
        close(fd);
        _Atomic bool stop = false;
        unsigned char *seen = (unsigned char *)calloc(pages, 1);
        Reader r[2] = {{(const unsigned char *)m.heap.scanned + hot, want, pages, 1, 0, 0, &stop, seen},
                       {(const unsigned char *)m.heap.scanned + hot, want, pages, 7, 0, 0, &stop, seen}};
        r[1].stride = pages % 7 ? 7 : 11;
        pthread_t th[2];
        for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, read_pages, &r[i]), 0);
        usleep(2000);
        size_t mapped = 0;
        ck_assert_int_eq(imagepages_use(m.buf, m.len, dir, false, &mapped), IMAGEPAGES_MAPPED);
        atomic_store(&stop, true);
        for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
        /* a page the process wrote (a hash table marked for its rehash) reads otherwise for good;
         * any other was seen half there */
        for (size_t k = 0; k < pages; k++) {
            bool now = memcmp(m.heap.scanned + hot + k * IMAGECOLD_PAGE, want + k * IMAGECOLD_PAGE, IMAGECOLD_PAGE) != 0;
            if (seen[k] && !now) r[0].bad++;
        }
        free(seen);
        ck_assert_msg(r[0].bad == 0, "pages read otherwise than written for a while: %zu", r[0].bad);
        pages_path(&m, dir, path, sizeof path);
        ck_assert(file_valid(&m, path));
        free(want);
    }
    unmap_image(&m);
    remove_dir(dir);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("image_cold");
    TCase *t = tcase_create("image_cold");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, pages_deflate_and_inflate);
    tcase_add_test(t, pages_packed_with_a_dictionary);
    tcase_add_test(t, inflating_leaves_no_root);
    tcase_add_test(t, layout_round_trips_copied);
    tcase_add_test(t, layout_mapped_lazily);
    tcase_add_test(t, runs_inflated_together);
    tcase_add_test(t, hot_part_protected_at_first_collection);
    tcase_add_test(t, damaged_cold_pages_refused);
    tcase_add_test(t, pages_file_written_then_mapped);
    tcase_add_test(t, pages_file_damaged_refused_and_rewritten);
    tcase_add_test(t, pages_file_removes_other_images);
    tcase_add_test(t, pages_mapped_written_and_collected);
    tcase_add_test(t, pages_file_truncated_under_the_mapping);
    tcase_add_test(t, pages_mapped_while_threads_read);
    suite_add_tcase(s, t);
    return s;
}

UNIT_MAIN(suite)
