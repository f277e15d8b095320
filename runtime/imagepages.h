/* imagepages.h: the boot image's cold pages kept inflated in a file beside the system cache, mapped instead of inflated. */
#ifndef TINYCL_IMAGEPAGES_H
#define TINYCL_IMAGEPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The boot image's cold pages (imagecold.h) cost a fault, a signal and an inflate per run of
 * pages; a program that touches most of them (loading a system touches about 1,100 of 1,400)
 * does better to map them from a file that holds them inflated, where the kernel serves each
 * touch from its page cache. That file is written once per build, by the first process that asks
 * for it and finds none valid, into a directory the caller names (the system loader's cache
 * directory: the runtime knows nothing of where that is, or of who may write there):
 *
 *   DIR/image-<the image's checksum, 16 hex digits>.pages
 *   page 0: a header: magic "TCLPAGES", format version, page size, page count, the image's
 *           checksum and build id (whose pages these are), the checksum of the pages, the
 *           checksum of the header
 *   page 1 on: the image's cold pages, inflated, in the order of its index
 *
 * It is used only when it is a regular file of this user with exactly that size, its header is
 * this image's and the checksum of its pages agrees (read with pread, so that a file cut short
 * meanwhile is a short read, not a SIGBUS); anything else (missing, foreign, truncated, damaged,
 * a symbolic link) is not used and is written again: inflated into memory, written beside it
 * under a unique name, then renamed over it, so that a reader sees the old file or the new one
 * whole. Writing it removes the files of other images in DIR (a process that has one mapped keeps
 * its pages: the mapping holds the file). TINYCL_IMAGE_PAGES=0 turns it off.
 */

typedef enum {
    IMAGEPAGES_NONE,       /* nothing done: no page to map, turned off, or no valid file and none written */
    IMAGEPAGES_MAPPED,     /* a valid file found and its pages mapped */
    IMAGEPAGES_WRITTEN,    /* the file written, then its pages mapped */
} ImagePagesResult;

#define IMAGEPAGES_NAMELEN 40

/* The file's name for the image BUF (LEN bytes) into NAME (IMAGEPAGES_NAMELEN bytes); false when
 * BUF has no cold pages. */
bool imagepages_name(const unsigned char *buf, size_t len, char *name);
/* Whether FD is a valid file of the cold pages of BUF (see above). */
bool imagepages_valid(const unsigned char *buf, size_t len, int fd);
/* Write the file of BUF into the directory open as DIRFD (beside, then renamed) and remove the
 * other images' files there; returns a descriptor open on it, or -1. */
int imagepages_write(const unsigned char *buf, size_t len, int dirfd);
/* When pages of the image BUF, mapped at its address (imagecold_map), are not there yet: map them
 * from DIR's file, valid, or written first when MAY_WRITE (DIR made first if missing). *MAPPED:
 * the pages mapped. */
ImagePagesResult imagepages_use(const unsigned char *buf, size_t len, const char *dir, bool may_write, size_t *mapped);

#endif
