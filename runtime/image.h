/* image.h: serialise an object graph of collected memory to bytes and rebuild it in one linear pass. */
#ifndef TINYCL_IMAGE_H
#define TINYCL_IMAGE_H

#include "state.h"

/*
 * The writer copies every block of collected memory reachable from a set of root words, finding
 * pointers the way the collector does (any word that points into a block of its heap), so that
 * Lisp objects and the evaluator's C structures (node trees, lambda lists) are handled alike,
 * sharing and cycles included. A word that points elsewhere is kept as a reference to what it
 * points to:
 *   - an external region the caller names (the interpreter structure, say): the reader gets the
 *     caller's region of the same index, so the graph can point into a fresh interpreter;
 *   - a C function or constant of this executable (a primitive's function and strings, a node's
 *     evaluator): named by its key in the declared tables (imagetab.h), which the image lists
 *     beside the writer's address; the reader keeps the address when its executable is where
 *     the writer's was and looks each key up otherwise;
 * and the writer refuses a word that points into any other mapping (a malloc'd buffer, a shared
 * library, the stack), or into the executable but to nothing a declared table holds: that memory
 * would not exist, or have no name, in the reader.
 *
 * The reader checks the header (format version, build id, sizes, checksum) before it allocates
 * anything, then maps the two parts (one scanned, one pointer-free) from the file at the address
 * they were written for, or copies them and relocates the marked words; hash tables are rehashed
 * on their first lookup (their hashes are of addresses). Nothing the caller can see changes
 * unless every check passed.
 */

typedef struct ImageRegion { void *base; size_t size; } ImageRegion;

#define IMAGE_FORMAT_VERSION 7u  /* 3: the checksum runs over 64-byte blocks; 4: block starts recorded;
                                   * 5: C addresses listed with their keys in the declared tables;
                                   * 6: a hot part as it is and cold pages compressed;
                                   * 7: zstd with a dictionary instead of deflate */
#define IMAGE_ERRLEN 256

/* Serialise what ROOTS (NROOTS words: objects or raw pointers) reach. Returns a malloc'd buffer
 * (its length in *LEN) or NULL with ERR (IMAGE_ERRLEN bytes) saying why. */
unsigned char *image_write(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                           size_t nexterns, size_t *len, char *err);

/* image_write, the blocks holding the NHOT addresses HOT first in each part, written as they are:
 * every other block follows from the next page on, and its pages are compressed one by one
 * (imagecold.h). Mapped from a file at the address it was written for, such an image reads its hot
 * pages from the file and inflates a cold page when it is first touched; copied, it is inflated
 * whole. For the boot image: HOT is what a start touches. */
unsigned char *image_write_layout(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                                  size_t nexterns, const uintptr_t *hot, size_t nhot, size_t *len, char *err);

/* Objects the caller writes as references instead of copies (symbols and packages by name, say):
 * FN is asked about each block of collected memory the graph reaches, at its base (*SIZE its
 * size: a block of a loaded graph is not the collector's own); it returns -1
 * to copy it, or K >= 0 (numbered densely from 0) with *SIZE the bytes a word may point past the
 * base. The image then records K as external region NEXTERNS + K, so the reader passes the
 * caller's regions followed by one region per cut object (the object the caller resolved, of the
 * same size). FN runs with the collector disabled: it must not allocate from it. IS_REF, when
 * given, answers the same question without numbering anything (FN's answer will be K >= 0): the
 * writer then surveys the graph first, to give conses two words (image.c), without walking into
 * the references. Blocks of collected memory are written without the last word the collector
 * adds past each object when it is zero (the caller's graph is read, never collected, object by
 * object). */
typedef struct ImageCut {
    long (*fn)(void *ctx, uintptr_t base, size_t *size);
    void *ctx;
    bool (*is_ref)(void *ctx, uintptr_t base, size_t size);
} ImageCut;
unsigned char *image_write_cut(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                               size_t nexterns, const ImageCut *cut, size_t *len, char *err);

/* image_write, also listing the blocks written whose header has type TYPE (T_STREAM, say) and
 * whose size is SIZE (as the collector rounds it; what a cons or a C structure starting with that
 * byte is not): their offsets in the scanned part (add them to the scanned heap image_read makes), a malloc'd array
 * in *NOTED (NULL when none), *NNOTED of them. For a caller that must fix such objects up after
 * reading: streams bound to the writer's process. */
unsigned char *image_write_noting(Lisp *L, const uintptr_t *roots, size_t nroots, const ImageRegion *externs,
                                  size_t nexterns, size_t *len, char *err, int type, size_t size, uint64_t **noted,
                                  size_t *nnoted);

/* The memory a loaded graph lives in (declared in state.h, which holds one): a scanned part, which
 * the collector scans as roots, and a pointer-free part, outside the collector's heap. Mapped
 * from the file at the address it was written for, or copied into one prefaulted mapping and
 * relocated; either way no collection and no page fault per object at start. Its objects are
 * never freed one by one: the whole graph goes with image_release (lisp_free). */
typedef struct ImageHeap ImageHeap;

/* Rebuild the graph of BUF: on success ROOTS_OUT gets the NROOTS root words, *HEAP the memory it
 * lives in, and true is returned; on failure nothing is changed and ERR says why. */
bool image_read(Lisp *L, const unsigned char *buf, size_t len, uintptr_t *roots_out, size_t nroots,
                const ImageRegion *externs, size_t nexterns, ImageHeap *heap, char *err);
/* The same for an image that is also the bytes of FD from FILE_OFFSET (page-aligned): its parts
 * are mapped from the file when their address is free, and BUF must then stay readable as long
 * as the graph lives (the block starts are read there). */
bool image_read_file(Lisp *L, const unsigned char *buf, size_t len, int fd, uint64_t file_offset,
                     uintptr_t *roots_out, size_t nroots, const ImageRegion *externs, size_t nexterns,
                     ImageHeap *heap, char *err);
void image_release(ImageHeap *heap);
/* BUF (LEN bytes, read with image_read_file from a file) needs no checksum: the caller vouches for
 * its bytes (the executable's own boot image, checked when it was built). The header's checks
 * still apply. */
void image_file_verified(const unsigned char *buf, size_t len);
/* The same into two blocks of the collector's heap (no ImageHeap: the objects are collected when
 * nothing points into them any more); for small graphs loaded many times, such as compiled files. */
bool image_read_gc(Lisp *L, const unsigned char *buf, size_t len, uintptr_t *roots_out, size_t nroots,
                   const ImageRegion *externs, size_t nexterns, char *err);
/* The same, the image being the LEN bytes of the open file FD from OFFSET, of which HEAD holds the
 * first HEADLEN (at least image_head_bytes of them): its two parts are read straight into their
 * blocks, and the checksum taken there, so that the file is never copied whole in memory (an image
 * with cold pages is read whole first). A file that ends early is refused as truncated. */
bool image_read_gc_fd(Lisp *L, int fd, uint64_t offset, size_t len, const unsigned char *head, size_t headlen,
                      uintptr_t *roots_out, size_t nroots, const ImageRegion *externs, size_t nexterns, char *err);
/* The bytes of an image before its first part (its header's, at least), from BUF holding LEN of its
 * first bytes: what image_read_gc_fd wants in HEAD. */
size_t image_head_bytes(const unsigned char *buf, size_t len);
/* For tests: look every C address up in the declared tables even when the executable is where the
 * writer's was (as a reader must when it is not); and give an image a test edited its checksum. */
extern bool image_always_relink;
void image_seal(unsigned char *buf, size_t len);

/* The header's checks and the checksum, without building anything: true when BUF would be read. */
bool image_check(const unsigned char *buf, size_t len, char *err);
/* Only the header's checks (format, build id, size), for an image of LEN bytes of which BUF holds
 * at least the header (256 bytes are enough). */
bool image_check_header(const unsigned char *buf, size_t len, char *err);
static inline bool image_heap_contains(const ImageHeap *h, const void *p) {
    const char *c = (const char *)p;
    return h->scanned && ((c >= h->scanned && c < h->scanned + h->scanned_room) ||
                          (c >= h->atomic && c < h->atomic + h->atomic_room));
}

/* The offsets in the scanned part of the hash tables of BUF, an image image_read accepted: a
 * malloc'd array in *OUT, their number returned (0 and NULL when none). For a caller that later
 * overwrites that part's words and must have the tables rehashed again (session checkpoints). */
size_t image_table_offsets(const unsigned char *buf, size_t len, uint64_t **out);

/* Where the pointer-bearing part of BUF, an image image_read accepted, starts in it (0 when
 * BUF is too short): image_read_file maps it from there. */
size_t image_scanned_offset(const unsigned char *buf, size_t len);

/* Where the compressed pages of BUF are (image_write_layout): the section's offset and bytes (an
 * index of PAGES + 1 32-bit offsets, then the data); false when it has none. For the tests. */
bool image_cold_section(const unsigned char *buf, size_t len, size_t *at, size_t *bytes, size_t *pages);

/* The same for a reader of the pages themselves (imagepages.c): the index (*OFFS, PAGES + 1
 * offsets into *DATA, which starts with the dictionary), as map_fixed hands them to imagecold_map,
 * and the checksum the header records, which names the image; false when it has none. */
bool image_cold_pages(const unsigned char *buf, size_t len, const uint32_t **offs, const unsigned char **data,
                      size_t *pages, uint64_t *sum);
/* The checksum images use (Fletcher's on 64-bit words over 64-byte blocks), of the N bytes at P
 * (N a multiple of 64). */
uint64_t image_sum(const void *p, size_t n);

/* The executable's build id, as the header records it (len 0 when the linker wrote none). */
size_t image_build_id(unsigned char out[32]);

/* What the last image_write or image_read in this process handled: the bytes of the two parts
 * (what the reader allocates, in one mapping), blocks written, relocated words, hash tables. */
typedef struct ImageStats { size_t scanned_bytes, atomic_bytes, blocks, relocations, tables; } ImageStats;
extern ImageStats image_last_stats;

#endif
