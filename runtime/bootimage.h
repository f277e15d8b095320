/* bootimage.h: the booted interpreter saved as an image in the executable, and loaded from it. */
#ifndef TINYCL_BOOTIMAGE_H
#define TINYCL_BOOTIMAGE_H

#include "state.h"

/* Write L's booted state to PATH (build time). 0, or -1 with ERR (IMAGE_ERRLEN bytes) set. */
int bootimage_write(Lisp *L, const char *path, char *err);
/* Whether this executable carries an image. */
bool bootimage_available(void);
/* Load later interpreters from BYTES (LEN bytes, kept by the caller) instead: a program that
 * wrote its own image (the unit tests). */
void bootimage_use(const unsigned char *bytes, size_t len);
/* Load the image into L, a fresh interpreter whose boot has not run. False with ERR set when the
 * image is missing or refused (L must then be set up again). */
bool bootimage_load(Lisp *L, char *err);
/* Boot every later interpreter from the stdlib sources instead (tinycl --boot-from-source). */
void bootimage_set_source_boot(bool on);
bool bootimage_source_boot(void);
/* Whether a missing or refused image must fail the boot (TINYCL_BOOT=image). */
bool bootimage_required(void);

/* Into OUT, the N bytes the executable's image holds at offset OFF of its pointer-bearing part:
 * what a page of an interpreter that has it mapped (L->image_heap.fixed) held before it was
 * written. False when they cannot be read. */
bool bootimage_original_bytes(size_t off, void *out, size_t n);
/* The loaded image's bytes (NULL when none), for its table offsets (image_table_offsets). */
const unsigned char *bootimage_bytes(size_t *len);
/* The Lisp structure's fields that belong to one interpreter instance, not to its state: cleared
 * in COPY before it is written (bootimage_strip_instance), and taken from the live L into LOADED
 * when an image is read back (bootimage_keep_instance). Session checkpoints use the same list. */
void bootimage_strip_instance(Lisp *copy);
void bootimage_keep_instance(Lisp *loaded, const Lisp *L);

#endif
