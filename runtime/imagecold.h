/* imagecold.h: the cold pages of an image: kept compressed in the file, each inflated on its first touch. */
#ifndef TINYCL_IMAGECOLD_H
#define TINYCL_IMAGECOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The boot image puts the blocks a start touches first (its hot part, mapped from the file as they
 * are) and compresses every other page of its two parts on its own (zstd, with a dictionary
 * trained on them and stored before them). Mapped at the address it was written for, a cold page
 * is reserved without access; the first touch faults, and the SIGSEGV handler of gcdirty.c asks
 * imagecold_fault, which inflates the page (once the process has inflated many, the run of pages
 * around it) into a fresh mapping and moves it into place (mremap) with the access it is to have:
 * another thread sees a page either absent or whole. Nothing else changes: a pointer into a cold
 * page is the address it always was, so the graph needs no relocation and no Lisp code can tell.
 * Where the fault cannot be taken (the handler is not installed: the image scanned whole, or
 * under Valgrind), imagecold_fill inflates every page at once.
 *
 * The handler takes one lock, with every signal blocked, and allocates nothing (the decompressor
 * and the dictionaries are made when a range is added); a page that does not inflate is corruption the checksum
 * would have caught, and aborts with a message.
 */

#define IMAGECOLD_PAGE 4096u
/* A range's pages can also come from a file holding them inflated (imagecold_adopt, imagepages.h):
 * mapped over the reservation once a program is known to need most of them (the system loader). */

/* Compress the page at PAGE (IMAGECOLD_PAGE bytes), without a dictionary, onto the end of *BUF
 * (*LEN bytes used, *CAP allocated, grown with realloc). False when out of memory. */
bool imagecold_deflate(const unsigned char *page, unsigned char **buf, size_t *len, size_t *cap);
/* Inflate SRC (SRCLEN bytes, from imagecold_deflate) into the page at DST; false unless it is
 * exactly one page. */
bool imagecold_inflate(const unsigned char *src, size_t srclen, unsigned char *dst);
/* Compress the N pages PAGES[0..N-1] into *BUF (malloc'd, *LEN bytes): a dictionary trained on
 * them (none for a few pages), then each page compressed with it, page K at OFFS[K] ..
 * OFFS[K + 1] (OFFS has N + 1 entries; OFFS[0] is the dictionary's length). False when out of
 * memory, with *BUF NULL. */
bool imagecold_pack(const unsigned char *const *pages, size_t n, unsigned char **buf, size_t *len, uint32_t *offs);
/* Inflate the N pages of a packed section (DATA, OFFS as imagecold_pack made them), page K into
 * DST(ARG, K); false when one does not inflate. */
bool imagecold_unpack(const unsigned char *data, const uint32_t *offs, size_t n, unsigned char *(*dst)(void *, size_t),
                      void *arg);

/* Reserve NPAGES pages at LO (which must be free) without access, page I to be inflated from
 * DATA + OFFS[I] .. DATA + OFFS[I + 1] (with the dictionary DATA .. DATA + DICT_LEN, if DICT_LEN
 * is not 0) on its first touch and given PROT (PROT_READ for a part the
 * collector tracks by write faults, PROT_READ | PROT_WRITE otherwise). DATA and OFFS must stay
 * readable while the range lives. FIRST: the number of page 0 of the range among the image's
 * cold pages (the pages of all its ranges, numbered in the order of OFFS), for imagecold_adopt.
 * False, with nothing reserved, when that cannot be done. */
bool imagecold_map(char *lo, size_t npages, const uint32_t *offs, const unsigned char *data, size_t dict_len, int prot,
                   size_t first);
/* Called with the address of a SIGSEGV: true when it was in a cold page, now there (retry). */
bool imagecold_fault(void *addr);
/* Inflate every cold page from LO for BYTES not yet inflated (no fault needed); false when one fails. */
bool imagecold_fill(char *lo, size_t bytes);
/* Forget the ranges that start in the BYTES from LO (the caller unmaps them). */
void imagecold_forget(char *lo, size_t bytes);
/* Whether every cold page is to be inflated when the image is loaded: TINYCL_IMAGE_EAGER=1, or
 * under Valgrind, whose tools do not resume a fault on a page moved in by a signal handler. */
bool imagecold_eager(void);
/* Pages inflated so far in this process (for TINYCL_IMAGE_STATS and the tests). */
size_t imagecold_inflated(void);

/* The pages of the ranges of the image whose compressed pages are DATA that are not there yet. */
size_t imagecold_absent(const unsigned char *data);
/* Map those pages instead from FD, a file holding the image's cold pages inflated (page K, as
 * numbered by imagecold_map's FIRST, at offset AT + K * IMAGECOLD_PAGE), privately, each with its
 * range's access; the pages there already stay. The caller vouches for the file's contents
 * (imagepages.c checks them first). A page whose file no longer holds it (truncated since: a
 * SIGBUS) is inflated then, as if it had never been mapped. Returns the pages mapped. */
size_t imagecold_adopt(const unsigned char *data, int fd, uint64_t at);
/* ON: such a file is about to be adopted, so a fault brings in its page alone (not the run
 * around it) until imagecold_expect(false). */
void imagecold_expect(bool on);
/* Pages mapped from such a file so far in this process (less those inflated after a SIGBUS). */
size_t imagecold_from_file(void);

#endif
